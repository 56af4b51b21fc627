/**
 * The reconciliation pages' forms, each taken from the operator API's schema of the same action
 * (../schemas.ts) where the shape is the same: the same bounds and the same words when a value is
 * refused. A form field is text, so an integer is a pattern here and a list of rails a repeated
 * field.
 */
import { PAYMENT_KEYS } from '../../domain/payment.js';
import { choice, fieldsFrom, files, sessionForm, text } from '../../web/forms.js';
import { CreateRequisiteBody, IgnoreCreditBody, MatchCreditBody, PatchRequisiteBody } from '../schemas.js';

/**
 * The page an action returns to: the queue with its filters, or a credit's own page. Only these
 * paths, so the field can never send anyone elsewhere.
 */
const back = text({ maxLength: 600, pattern: '^/office/credits(/crd_[0-9A-Za-z]{1,64})?(\\?[A-Za-z0-9_.~%=&+-]*)?$', 'x-message': 'must be a page of the credits queue' });

/** `POST /office/credits/{id}/match`: the order the credit pays; `force` = `true` when the amounts differ and the operator matches all the same. */
export const MatchCreditForm = sessionForm({ ...fieldsFrom(MatchCreditBody, ['orderId', 'force']), back });

/** `POST /office/credits/{id}/ignore`: the reason, 1 to 500 characters. */
export const IgnoreCreditForm = sessionForm({ ...fieldsFrom(IgnoreCreditBody, ['reason']), back });

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

/** `POST /office/pools/{id}/statements` (multipart): one camt.053, camt.054 or CSV file. */
export const StatementForm = sessionForm({ statement: files(1) });

/** The statuses the queue filters by, `any` for all of them. */
export const CREDIT_FILTERS = ['unmatched', 'matched', 'ignored', 'any'] as const;
export const creditFilter = choice(CREDIT_FILTERS);
