import { CreateDeskBody, CreateMerchantBody, CreateUserBody, PatchDeskBody } from '../../schemas/admin.js';
import { OpenAppealBody } from '../../schemas/gateway.js';
import { CreateWebhookEndpointBody, RecoverWebhookBody, UpdateWebhookEndpointBody } from '../../schemas/webhooks.js';
import { DESTINATION_KINDS } from '../../domain/payouts.js';
import { choice, fieldsFrom, files, sessionForm, text } from '../forms.js';

/**
 * The cabinet's forms, each declared once. Where the operator API takes the same shape, the fields
 * come from its schema (src/schemas), so a desk form and `POST /admin/v1/desks` hold the same
 * rules and say the same thing when a value is refused.
 */

/** `POST /cabinet/sign-up`: the company is the merchant's name, the email and password its first user's. */
export const SignUpForm = sessionForm({
  company: fieldsFrom(CreateMerchantBody, ['name']).name,
  ...fieldsFrom(CreateUserBody, ['email', 'password']),
});

/**
 * `POST /cabinet/desks` and `/cabinet/desks/{id}/settings`: the desk fields of the operator API
 * (web spec). The settings form repeats the method in a hidden input; the desk keeps its own, and
 * its test mode (`sandbox`, chosen on the new-desk form only).
 */
export const DeskForm = sessionForm(fieldsFrom(CreateDeskBody, ['name', 'method', 'rails', 'currencies', 'minUsd', 'maxUsd', 'callbackUrl', 'callbacksEnabled', 'sandbox']));

/** `POST /cabinet/desks/{id}/enabled`. */
export const DeskEnabledForm = sessionForm(fieldsFrom(PatchDeskBody, ['enabled']));

/**
 * `POST /cabinet/account/password`. The form also holds the account's email in a hidden
 * `username` input, for password managers; the route does not read it.
 */
export const PasswordForm = sessionForm({
  username: text({ maxLength: 320 }),
  currentPassword: fieldsFrom(CreateUserBody, ['password']).password,
  newPassword: fieldsFrom(CreateUserBody, ['password']).password,
});

/** The password asked again (recovery codes, turning two-factor off). */
export const PasswordAgainForm = sessionForm(fieldsFrom(CreateUserBody, ['password']));

/** `POST /cabinet/account/two-factor/confirm`: the first code of the new secret. */
export const TwoFactorConfirmForm = sessionForm({ code: text({ maxLength: 20 }) });

/** `POST /cabinet/callbacks/redeliver`: a `datetime-local` value or an ISO 8601 time. */
export const RedeliverForm = sessionForm({ since: text({ maxLength: 40 }) });

/**
 * `POST /cabinet/appeals` (multipart): the fields of `POST /gw/v1/appeals` and one receipt. The
 * evidence is one URL a line here; the API keeps them joined by semicolons.
 */
export const AppealForm = sessionForm({ ...fieldsFrom(OpenAppealBody, ['orderId', 'reason', 'evidenceUrl']), receipt: files(1) });

/**
 * `POST /cabinet/links` (web spec): the amount as typed (a decimal string), the currency, the desk,
 * what the link is for, and optionally when it lapses (`datetime-local`, read as UTC, or ISO 8601)
 * and the rail its orders go by.
 */
export const LinkForm = sessionForm({
  amount: text({ maxLength: 40 }),
  currency: text({ maxLength: 3 }),
  deskId: text({ maxLength: 64 }),
  description: text({ maxLength: 255 }),
  expiresAt: text({ maxLength: 40 }),
  rail: text({ maxLength: 40 }),
});

/** `POST /cabinet/links/{id}/enabled`: `true` or `false`, as a desk's switch. */
export const LinkEnabledForm = sessionForm(fieldsFrom(PatchDeskBody, ['enabled']));

/** `POST /cabinet/team`: who is invited and with which role, as `POST /admin/v1/merchants/{id}/users` takes them. */
export const InviteForm = sessionForm(fieldsFrom(CreateUserBody, ['email', 'role']));

/** `POST /cabinet/team/{userId}/role`. */
export const RoleForm = sessionForm(fieldsFrom(CreateUserBody, ['role']));

/**
 * `POST /cabinet/invite/{token}`: the invitee's password. The form also holds the invited email in a
 * hidden `username` input, for password managers; the route does not read it.
 */
export const AcceptInvitationForm = sessionForm({ username: text({ maxLength: 320 }), ...fieldsFrom(CreateUserBody, ['password']) });

/**
 * `POST /cabinet/payout-destinations` (web spec): the kind, then the fields it takes: a USDT
 * `address`, or a bank's `iban` or `account` with `holder` and `bank`; a `label` to know it by.
 */
export const DestinationForm = sessionForm({
  kind: choice(DESTINATION_KINDS),
  label: text({ maxLength: 200 }),
  address: text({ maxLength: 200 }),
  iban: text({ maxLength: 200 }),
  account: text({ maxLength: 200 }),
  holder: text({ maxLength: 200 }),
  bank: text({ maxLength: 200 }),
});

/** `POST /cabinet/withdrawals` (web spec): the amount in USD as typed, a saved destination, and the two-factor code when codes are on. */
export const WithdrawalForm = sessionForm({
  amountUsd: text({ maxLength: 40 }),
  destinationId: text({ maxLength: 64 }),
  code: text({ maxLength: 40 }),
});

/**
 * `POST /cabinet/application` (web spec): the application's fields under these names, and
 * `submit=true` to submit it rather than save a draft. The bounds here only keep a request small;
 * the rules of each field, with a message per field, are the domain's (`checkApplication`).
 */
export const ApplicationForm = sessionForm({
  legalName: text({ maxLength: 4000 }),
  country: text({ maxLength: 100 }),
  website: text({ maxLength: 8000 }),
  description: text({ maxLength: 20000 }),
  monthlyVolumeUsd: text({ maxLength: 100 }),
  contact: text({ maxLength: 4000 }),
  submit: choice(['true', 'false']),
});

/**
 * `POST /cabinet/webhooks` and `/cabinet/webhooks/{id}/settings`: the fields of
 * `POST /gw/v1/webhook-endpoints` (`events` and `desks` repeated, one check box each), and
 * `deskScope`: `all` (every desk, now and later) or `chosen` (the desks ticked).
 */
export const WebhookEndpointForm = sessionForm({
  ...fieldsFrom(CreateWebhookEndpointBody, ['url', 'events', 'desks', 'description']),
  deskScope: choice(['all', 'chosen']),
});

/** `POST /cabinet/webhooks/{id}/enabled`: `true` or `false`. */
export const WebhookEnabledForm = sessionForm(fieldsFrom(UpdateWebhookEndpointBody, ['enabled']));

/** `POST /cabinet/webhooks/{id}/rotate-secret`: `confirm=yes`, the box that says the old secret goes in 24 hours. */
export const WebhookRotateForm = sessionForm({ confirm: choice(['yes']) });

/** `POST /cabinet/webhooks/{id}/recover`: a `datetime-local` value (UTC) or an ISO 8601 time. */
export const WebhookRecoverForm = sessionForm(fieldsFrom(RecoverWebhookBody, ['since']));
