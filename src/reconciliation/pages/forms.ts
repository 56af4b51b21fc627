/**
 * The reconciliation pages' forms, each taken from the operator API's schema of the same action
 * (../schemas.ts) where the shape is the same: the same bounds and the same words when a value is
 * refused. A form field is text, so an integer is a pattern here and a list of rails a repeated
 * field.
 */
import { PAYMENT_KEYS } from '../../domain/payment.js';
import { choice, fieldsFrom, files, sessionForm, text } from '../../web/forms.js';
import { CreateRequisiteBody, IgnoreCreditBody, IgnoreCreditsBody, MatchCreditBody, PatchRequisiteBody } from '../schemas.js';

/**
 * The page an action returns to: the queue with its filters, or a credit's own page. Only these
 * paths, so the field can never send anyone elsewhere.
 */
const back = text({ maxLength: 600, pattern: '^/office/credits(/crd_[0-9A-Za-z]{1,64})?(\\?[A-Za-z0-9_.~%=&+-]*)?$', 'x-message': 'must be a page of the credits queue' });

/** `POST /office/credits/{id}/match`: the order the credit pays; `force` = `true` when the amounts differ and the operator matches all the same. */
export const MatchCreditForm = sessionForm({ ...fieldsFrom(MatchCreditBody, ['orderId', 'force']), back });

/** `POST /office/credits/{id}/ignore`: the reason, 1 to 500 characters. */
export const IgnoreCreditForm = sessionForm({ ...fieldsFrom(IgnoreCreditBody, ['reason']), back });

/** The most credits one "ignore this queue" takes, as `POST /admin/v1/credits/ignore` bounds it. */
export const IGNORE_MAX = 500;

/**
 * `POST /office/credits/ignore`: the ids of the filtered queue as the page counted them (at most
 * 500, separated by spaces), and one reason for all, as `POST /admin/v1/credits/ignore` takes them.
 */
export const IgnoreQueueForm = sessionForm({
  ids: text({ maxLength: IGNORE_MAX * 70, pattern: `^crd_[0-9A-Za-z]{1,64}( crd_[0-9A-Za-z]{1,64}){0,${IGNORE_MAX - 1}}$`, 'x-message': `must be 1 to ${IGNORE_MAX} credit ids` }),
  ...fieldsFrom(IgnoreCreditsBody, ['reason']),
  back,
});

/** `maxOpenOrders` as the API bounds it (1–10 000), written as text. */
const maxOpenOrders = text({ maxLength: 5, pattern: '^[1-9]\\d{0,4}$', 'x-message': 'must be a whole number from 1 to 10000' });

/** The payment keys of a new requisite, one field each (`card`, `phone`, …). */
export const REQUISITE_PAYMENT_FIELDS = PAYMENT_KEYS;
const paymentFields = Object.fromEntries(REQUISITE_PAYMENT_FIELDS.map((k) => [k, text({ maxLength: 255 })])) as Record<(typeof PAYMENT_KEYS)[number], ReturnType<typeof text>>;

/** `POST /office/pools/{id}/requisites`: the fields of `POST /admin/v1/providers/{id}/requisites`, the payment keys one by one. */
export const CreateRequisiteForm = sessionForm({
  ...paymentFields,
  ...fieldsFrom(CreateRequisiteBody, ['currency', 'rails', 'minAmount', 'maxAmount', 'dailyLimit', 'label']),
  maxOpenOrders,
});

/** `POST /office/requisites/{id}`: limits and label, as `PATCH /admin/v1/requisites/{id}` takes them; an empty label clears it. */
export const EditRequisiteForm = sessionForm({ ...fieldsFrom(PatchRequisiteBody, ['minAmount', 'maxAmount', 'dailyLimit', 'label']), maxOpenOrders });

/** A CSV profile's id, as a form names it. */
const profileId = text({ maxLength: 68, pattern: '^csp_[0-9A-Za-z]{1,64}$', 'x-message': 'must be a CSV profile of this pool' });

/**
 * `POST /office/pools/{id}/statements` (multipart): one statement file, and the CSV profile to
 * read it with when it is a bank's own CSV export (empty: the format is recognised).
 */
export const StatementForm = sessionForm({ statement: files(1), profile: profileId });

/** A column of a CSV profile: a header name, or a column number (digits alone). */
const column = text({ maxLength: 200 });

/** What a profile form's delimiter, quote and thousands separator say, in words a form can carry. */
export const DELIMITERS = { comma: ',', semicolon: ';', tab: '\t', pipe: '|' } as const;
export const QUOTES = { double: '"', single: "'", none: null } as const;
export const THOUSANDS = { none: null, space: ' ', nbsp: '\u00a0', dot: '.', comma: ',', apostrophe: "'" } as const;

/**
 * `POST /office/pools/{id}/profiles/new` and `POST /office/statement-profiles/{id}` (multipart):
 * a CSV profile's fields as `POST /admin/v1/providers/{id}/statement-profiles` takes them, a
 * sample file to preview it with (or the sample kept from the last preview), and whether to
 * preview or save.
 */
export const ProfileForm = sessionForm({
  intent: choice(['preview', 'save'] as const),
  name: text({ maxLength: 100 }),
  delimiter: choice(Object.keys(DELIMITERS) as (keyof typeof DELIMITERS)[]),
  quote: choice(Object.keys(QUOTES) as (keyof typeof QUOTES)[]),
  encoding: text({ maxLength: 40 }),
  skipRows: text({ maxLength: 4, pattern: '^\\d{1,4}$', 'x-message': 'must be a whole number of lines' }),
  decimalSeparator: choice(['.', ','] as const),
  thousandsSeparator: choice(Object.keys(THOUSANDS) as (keyof typeof THOUSANDS)[]),
  dateFormat: text({ maxLength: 40 }),
  timeZone: text({ maxLength: 64 }),
  receivedAt: column,
  amount: column,
  credit: column,
  debit: column,
  account: column,
  currency: column,
  payer: column,
  reference: column,
  bankReference: column,
  fixedAccount: text({ maxLength: 200 }),
  fixedCurrency: text({ maxLength: 3 }),
  sample: files(1),
  /** The first lines of the last sample previewed, base64: the next preview reads them when no file is chosen. */
  kept: text({ maxLength: 15_000, pattern: '^[A-Za-z0-9+/]*={0,2}$', 'x-message': 'must be the sample the page kept' }),
  keptName: text({ maxLength: 255 }),
});

/** The statuses the queue filters by, `any` for all of them. */
export const CREDIT_FILTERS = ['unmatched', 'matched', 'ignored', 'any'] as const;
export const creditFilter = choice(CREDIT_FILTERS);
