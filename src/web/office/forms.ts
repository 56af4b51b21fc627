import { PAYMENT_KEYS } from '../../domain/payment.js';
import {
  BlockBody,
  Capability,
  CommentBody,
  CreateDeskBody,
  CreateMerchantBody,
  CreateLimitBody,
  CreateOperatorBody,
  CreateProviderBody,
  CreateTariffBody,
  CreateUserBody,
  PatchDeskBody,
  PatchMerchantBody,
  PatchTariffBody,
  PutCurrencyBody,
  PutRateBody,
  ReportPaymentBody,
  ReverseBody,
  StopDeskBody,
  TariffBand,
  WithdrawalBody,
} from '../../schemas/admin.js';
import { WithdrawalPaidBody, WithdrawalRejectBody } from '../../schemas/withdrawals.js';
import { RejectMerchantBody } from '../../schemas/applications.js';
import type { TOptional, TUnsafe } from 'typebox';
import { choice, fieldsFrom, sessionForm, text } from '../forms.js';

/**
 * The back office's forms, each declared once and taken from the operator API's schema of the same
 * action (src/schemas/admin.ts): the same bounds and patterns, the same words when a value is
 * refused. Buttons without fields post `ButtonForm` (forms.ts).
 */

/** `POST /office/two-factor`: the first code of the new secret. */
export const TwoFactorForm = sessionForm({ code: text({ maxLength: 40 }) });

export const BlockForm = sessionForm(fieldsFrom(BlockBody, ['reason']));
export const SandboxForm = sessionForm(fieldsFrom(PatchMerchantBody, ['sandbox']));
export const WithdrawalForm = sessionForm(fieldsFrom(WithdrawalBody, ['amountUsd', 'reference']));
export const StopDeskForm = sessionForm(fieldsFrom(StopDeskBody, ['reason']));
export const ReverseForm = sessionForm(fieldsFrom(ReverseBody, ['reason']));

/** `POST /office/orders/{id}/confirm`: a confirmation taken from a queue says which, to go back there. */
export const ConfirmForm = sessionForm({ from: choice(['payed', 'reconcile'] as const) });

export const AppealDecisionForm = sessionForm(fieldsFrom(CommentBody, ['comment']));
export const RateForm = sessionForm(fieldsFrom(PutRateBody, ['rate']));
/** `enabled` is a check box: absent when it is not ticked. */
export const CurrencyForm = sessionForm(fieldsFrom(PutCurrencyBody, ['enabled', 'spreadPercent']));
export const CapForm = sessionForm(fieldsFrom(CreateLimitBody, ['scope', 'scopeId', 'window', 'capUsd', 'notifyOnly']));

// ---- forms of what the operator API sets: tariffs, providers, operators, a merchant's desks

/**
 * Fields repeated per row (a tariff's bands, a provider's capabilities), each with the API's own
 * shape for that field: the first row under the API's names (`fromUsd`, `toUsd`, `ratePercent`), so
 * a one-band tariff posts just those, the next ones numbered (`fromUsd2`, …). A row left empty is
 * no row; a form has room for `n` rows, more than any tariff or provider has needed.
 */
type Field = TOptional<TUnsafe<string>>;

/** The name of a row's field: the API's name on the first row, numbered on the next ones. */
export const rowField = (name: string, row: number) => (row === 1 ? name : `${name}${row}`);
function rows(fields: Record<string, Field>, n: number): Record<string, Field> {
  const out: Record<string, Field> = {};
  for (let i = 1; i <= n; i++) for (const [name, schema] of Object.entries(fields)) out[rowField(name, i)] = schema;
  return out;
}

export const TARIFF_ROWS = 8;
export const CAPABILITY_ROWS = 8;

/** `POST /office/tariffs` and `/office/tariffs/{id}`: a name, the bands row by row, and the default tick. */
export const TariffForm = sessionForm({
  ...fieldsFrom(CreateTariffBody, ['name', 'default']),
  ...rows(fieldsFrom(TariffBand, ['fromUsd', 'toUsd', 'ratePercent']), TARIFF_ROWS),
});

/** `POST /office/tariffs/{id}/default`: make it the default (`true`) or leave no default (`false`). */
export const TariffDefaultForm = sessionForm(fieldsFrom(PatchTariffBody, ['default']));

/** The payment keys of a pool's first requisite (more are added on the requisite pages). */
export const REQUISITE_KEYS = PAYMENT_KEYS;

/** `POST /office/providers`: the fields of `POST /admin/v1/providers`, capabilities row by row, a pool's first requisite. */
export const ProviderForm = sessionForm({
  ...fieldsFrom(CreateProviderBody, ['name', 'kind', 'baseUrl', 'key', 'secret']),
  priority: text({ maxLength: 7, pattern: '^\\d{1,7}$', 'x-message': 'must be a whole number from 0 to 1000000' }),
  ...rows(fieldsFrom(Capability, ['method', 'rail', 'currency', 'min', 'max']), CAPABILITY_ROWS),
  ...Object.fromEntries(REQUISITE_KEYS.map((k) => [`requisite_${k}`, text({ maxLength: 255 })])),
});

/** `POST /office/operators`: a new operator. */
export const OperatorForm = sessionForm(fieldsFrom(CreateOperatorBody, ['email', 'password', 'role']));
/** `POST /office/operators/{id}/role`. */
export const OperatorRoleForm = sessionForm(fieldsFrom(CreateOperatorBody, ['role']));
/** `POST /office/operators/{id}/access`: `disabled` true to disable, false to enable again. */
export const OperatorAccessForm = sessionForm({ disabled: choice(['true', 'false'] as const) });

/**
 * `POST /office/merchants/{id}/desks`: the fields of `POST /admin/v1/merchants/{id}/desks`. The
 * tariff is a choice of the page: empty for the default tariff, `none` for no fee, or a `trf_` id.
 */
export const NewDeskForm = sessionForm(fieldsFrom(CreateDeskBody, ['name', 'method', 'rails', 'currencies', 'minUsd', 'maxUsd', 'callbackUrl', 'callbacksEnabled', 'tariffId', 'sandbox']));

/** `POST /office/desks/{id}/tariff`: `none` for no fee, or a `trf_` id; `back` says which page to return to. */
export const DeskTariffForm = sessionForm({ ...fieldsFrom(PatchDeskBody, ['tariffId']), back: choice(['merchant', 'desk'] as const) });

/** `POST /office/merchants`: a new merchant, as `POST /admin/v1/merchants` (`sandbox` a check box, ticked by default). */
export const NewMerchantForm = sessionForm(fieldsFrom(CreateMerchantBody, ['name', 'sandbox']));
/** `POST /office/merchants/{id}/name`. */
export const MerchantNameForm = sessionForm(fieldsFrom(PatchMerchantBody, ['name']));
/** `POST /office/merchants/{id}/users`: a cabinet user, as `POST /admin/v1/merchants/{id}/users`. */
export const NewUserForm = sessionForm(fieldsFrom(CreateUserBody, ['email', 'password', 'role']));
/** `POST /office/desks/{id}/settings`: what `PATCH /admin/v1/desks/{id}` changes but the tariff (its own form) and the method (for life). */
export const DeskSettingsForm = sessionForm(fieldsFrom(PatchDeskBody, ['name', 'enabled', 'rails', 'currencies', 'minUsd', 'maxUsd', 'callbackUrl', 'callbacksEnabled']));

/** `POST /office/orders/{id}/report-payment`: the payer's reference (a UTR) when the provider gave one. */
export const ReportPaymentForm = sessionForm(fieldsFrom(ReportPaymentBody, ['payerReference']));

/** `POST /office/withdrawals/{id}/paid` and `/reject`: the transfer's reference, or why not, as the operator API takes them. */
export const WithdrawalPaidForm = sessionForm(fieldsFrom(WithdrawalPaidBody, ['reference']));
export const WithdrawalRejectForm = sessionForm(fieldsFrom(WithdrawalRejectBody, ['reason']));

/** `POST /office/merchants/{id}/reject`: the operator's reason, as the operator API takes it; `back=queue` from the review queue. */
export const RejectApplicationForm = sessionForm({ ...fieldsFrom(RejectMerchantBody, ['reason']), back: choice(['queue'] as const) });
