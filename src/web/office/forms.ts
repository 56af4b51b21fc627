import { BlockBody, CommentBody, CreateLimitBody, PatchMerchantBody, PutCurrencyBody, PutRateBody, ReverseBody, StopDeskBody, WithdrawalBody } from '../../http/schemas/admin.js';
import { choice, fieldsFrom, sessionForm, text } from '../forms.js';

/**
 * The back office's forms, each declared once and taken from the operator API's schema of the same
 * action (src/http/schemas/admin.ts): the same bounds and patterns, the same words when a value is
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
