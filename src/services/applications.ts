import type { Ctx } from '../context.js';
import {
  APPLICATION_ACTIONS, APPLICATION_LIMITS, applicationAllows, charCount, checkApplication, cleanText,
  type ApplicationInput, type ApplicationStatus, type FieldProblem,
} from '../domain/applications.js';
import { AppError } from '../domain/errors.js';
import { fmt2 } from '../domain/money.js';
import { isoOrNull, isoSeconds } from '../domain/time.js';
import { queueMailToOwners } from '../mail/outbox.js';
import {
  decideApplication, getApplication, lockApplication, merchantsUnderReviewWithoutSubmission, submittedApplications, writeApplication,
  type ApplicationRow,
} from '../store/applications.js';
import { insertAuditEntry } from '../store/audit.js';
import type { Queryable } from '../store/db.js';
import { getMerchant, type MerchantRow } from '../store/merchants.js';
import { moneyModeOf } from './gatewayReads.js';

/**
 * A merchant asks for approval (web spec, "Asking for approval"): the cabinet's owner writes the
 * application and submits it; an operator approves the merchant (which approves the application,
 * `operator.approveMerchant`) or rejects it with a reason, after which the merchant edits it and
 * submits again. Each decision mails the merchant's owners from the outbox, in the decision's
 * transaction; a submission and both decisions are in the audit trail.
 */

/** What the operator API answers for an application (`GET /admin/v1/merchants/{id}/application`). */
export function applicationView(a: ApplicationRow) {
  return {
    status: a.status,
    legalName: a.legal_name,
    country: a.country,
    website: a.website,
    description: a.description,
    monthlyVolumeUsd: a.monthly_volume_usd === null ? null : fmt2(a.monthly_volume_usd),
    contact: a.contact,
    submittedAt: isoOrNull(a.submitted_at),
    decidedAt: isoOrNull(a.decided_at),
    reason: a.reason,
  };
}
export type ApplicationView = ReturnType<typeof applicationView>;

const mustMerchant = async (q: Queryable, id: string, lock: { forUpdate?: boolean; forShare?: boolean } = {}): Promise<MerchantRow> => {
  const m = await getMerchant(q, id, lock);
  if (!m) throw new AppError('MERCHANT_NOT_FOUND', `no merchant ${id}`);
  return m;
};

/** The merchant's application, or APPLICATION_NOT_FOUND when it has written none. */
export async function getMerchantApplication(ctx: Ctx, merchantId: string): Promise<ApplicationView> {
  await mustMerchant(ctx.db, merchantId);
  const a = await getApplication(ctx.db, merchantId);
  if (!a) throw new AppError('APPLICATION_NOT_FOUND', `merchant ${merchantId} has not written an application`);
  return applicationView(a);
}

/** The merchant's application, or null (the cabinet's form starts empty, the back office says none was written). */
export async function findMerchantApplication(ctx: Ctx, merchantId: string): Promise<ApplicationView | null> {
  const a = await getApplication(ctx.db, merchantId);
  return a && applicationView(a);
}

/** Why the merchant cannot change its application now, as a refusal's detail. */
function lockedDetail(status: ApplicationStatus | 'none', approved: boolean): string {
  if (approved || status === 'approved') return 'the account is approved: there is nothing to apply for';
  return 'the application is submitted and waits for a decision; it can be changed again if it is rejected';
}

export type ApplicationSave =
  | { kind: 'saved'; application: ApplicationView }
  /** Fields the rules refuse, each named; nothing was written. */
  | { kind: 'invalid'; problems: FieldProblem[] };

/**
 * The cabinet's form (`POST /cabinet/application`): saves the fields as a draft, or with `submit`
 * submits the application (every field then required). A draft takes any field empty but checks
 * those given. The application is written only while the merchant may change it (none yet, a
 * draft, a rejected one) and the account is not approved, else APPLICATION_ALREADY_SUBMITTED; a
 * submission is audited (`application.submit`, the user as actor).
 *
 * The merchant's row is held (shared) until the transaction ends, so a submission and an approval
 * running at once happen one after the other and an approved merchant never has an application
 * waiting for review.
 */
export async function saveApplication(ctx: Ctx, o: { merchantId: string; userId: string; input: ApplicationInput; submit: boolean }): Promise<ApplicationSave> {
  const { values, problems } = checkApplication(o.input, o.submit);
  if (problems.length > 0) return { kind: 'invalid', problems };
  const action = o.submit ? APPLICATION_ACTIONS.submit : APPLICATION_ACTIONS.save;
  const from = (action.from as readonly (ApplicationStatus | 'none')[]).filter((s): s is ApplicationStatus => s !== 'none');
  return ctx.db.tx(async (q) => {
    const merchant = await mustMerchant(q, o.merchantId, { forShare: true });
    const approved = moneyModeOf(merchant) === 'live';
    const current = await lockApplication(q, o.merchantId);
    if (approved || !applicationAllows(o.submit ? 'submit' : 'save', current?.status ?? 'none')) {
      throw new AppError('APPLICATION_ALREADY_SUBMITTED', lockedDetail(current?.status ?? 'none', approved));
    }
    const at = new Date(ctx.clock.now());
    const row = await writeApplication(q, { merchantId: o.merchantId, values, submit: o.submit, from, at });
    if (!row) throw new AppError('APPLICATION_ALREADY_SUBMITTED', lockedDetail(current?.status ?? 'none', approved));
    if (o.submit) await insertAuditEntry(q, { at, actor: o.userId, action: 'application.submit', objectId: o.merchantId, outcome: 'ok', detail: null });
    return { kind: 'saved', application: applicationView(row) };
  });
}

/** An operator's reason for a rejection, as the merchant will read it: trimmed, 3 to 1000 characters, something to read. */
export function rejectionReason(raw: string | null | undefined): string {
  const reason = cleanText(raw ?? '');
  const { min, max } = APPLICATION_LIMITS.reason;
  const n = charCount(reason);
  if (n === 0) throw new AppError('VALIDATION_ERROR', 'reason: say why the application is rejected; the merchant reads it');
  if (n < min || n > max) throw new AppError('VALIDATION_ERROR', `reason: ${min} to ${max} characters`);
  if (/[\p{Cn}\p{Co}\p{Cs}\u202A-\u202E\u2066-\u2069]|(?!\n)\p{Cc}/u.test(reason) || !/[\p{L}\p{N}]/u.test(reason)) {
    throw new AppError('VALIDATION_ERROR', 'reason: plain words the merchant can read');
  }
  return reason;
}

const cabinetLink = (ctx: Ctx, path: string) => `${ctx.config.publicBaseUrl.replace(/\/$/, '')}${path}`;


/**
 * `POST /admin/v1/merchants/{id}/reject`: a submitted application is rejected with the operator's
 * reason, and the owners are mailed it (`application-rejected`), in one transaction with the
 * audit entry the caller's `audited()` writes. The merchant stays under review and may submit
 * again. Any other application (none, a draft, a decided one) is APPLICATION_NOT_SUBMITTED.
 */
export async function rejectApplication(ctx: Ctx, merchantId: string, rawReason: string | null | undefined): Promise<ApplicationView> {
  const reason = rejectionReason(rawReason);
  return ctx.db.tx(async (q) => {
    // Held against an approval running at once: one decision after the other.
    const merchant = await mustMerchant(q, merchantId, { forUpdate: true });
    const at = new Date(ctx.clock.now());
    const from = APPLICATION_ACTIONS.reject.from;
    const row = await decideApplication(q, { merchantId, status: 'rejected', reason, from, at });
    if (!row) {
      const a = await getApplication(q, merchantId);
      throw new AppError('APPLICATION_NOT_SUBMITTED', a ? `the application is ${a.status}, not submitted` : `merchant ${merchantId} has not written an application`);
    }
    await queueMailToOwners(q, new Date(ctx.clock.now()), merchantId, {
      kind: 'application-rejected',
      data: { merchantName: merchant.name, reason, cabinetUrl: cabinetLink(ctx, '/cabinet/application') },
    });
    return applicationView(row);
  });
}

/**
 * What approving the merchant does to its application, in the approval's transaction: an
 * application not yet approved (a draft, a submitted or a rejected one) is approved, and the
 * owners are mailed (`application-approved`) whether or not they applied: their account is live.
 */
export async function recordApproval(ctx: Ctx, q: Queryable, merchant: MerchantRow): Promise<void> {
  const at = new Date(ctx.clock.now());
  await decideApplication(q, { merchantId: merchant.id, status: 'approved', reason: null, from: APPLICATION_ACTIONS.approve.from, at });
  await queueMailToOwners(q, at, merchant.id, { kind: 'application-approved', data: { merchantName: merchant.name, cabinetUrl: cabinetLink(ctx, '/cabinet') } });
}

/** Rows of each part of the review queue; a longer part says so and is worked from the top. */
export const REVIEW_ROWS = 100;

/**
 * The back office's review queue: submitted applications, the longest waiting first, each with its
 * details and what its merchant did in the sandbox; then the merchants under review that have not
 * submitted one (none written, a draft, a rejected one), the longest waiting first, which an
 * operator may still approve without one.
 */
export async function applicationQueue(ctx: Ctx) {
  const [rows, others] = await Promise.all([submittedApplications(ctx.db, REVIEW_ROWS), merchantsUnderReviewWithoutSubmission(ctx.db, REVIEW_ROWS)]);
  return {
    items: rows.map((r) => ({
      merchantId: r.merchant_id,
      merchantName: r.merchant_name,
      createdAt: isoSeconds(r.merchant_created_at),
      desks: r.desks,
      sandboxOrders: r.sandbox_orders,
      sandboxCompleted: r.sandbox_completed,
      application: applicationView(r),
    })),
    notApplied: others.map((m) => ({
      merchantId: m.id,
      merchantName: m.name,
      createdAt: isoSeconds(m.created_at),
      applicationStatus: m.application_status,
      desks: m.desks,
      sandboxOrders: m.sandbox_orders,
      sandboxCompleted: m.sandbox_completed,
    })),
  };
}
