import type { ApplicationStatus, ApplicationValues } from '../domain/applications.js';
import type { Queryable } from './db.js';

/** Merchants' applications for approval (migration 0026): one row per merchant that wrote one. */

export interface ApplicationRow {
  merchant_id: string;
  status: ApplicationStatus;
  legal_name: string | null;
  country: string | null;
  website: string | null;
  description: string | null;
  monthly_volume_usd: string | null;
  contact: string | null;
  submitted_at: Date | null;
  decided_at: Date | null;
  reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function getApplication(q: Queryable, merchantId: string): Promise<ApplicationRow | null> {
  const { rows } = await q.query<ApplicationRow>('SELECT * FROM merchant_applications WHERE merchant_id = $1', [merchantId]);
  return rows[0] ?? null;
}

/** The application locked until the transaction ends, so a save, a submission and a decision happen one after the other. */
export async function lockApplication(q: Queryable, merchantId: string): Promise<ApplicationRow | null> {
  const { rows } = await q.query<ApplicationRow>('SELECT * FROM merchant_applications WHERE merchant_id = $1 FOR UPDATE', [merchantId]);
  return rows[0] ?? null;
}

/**
 * Writes the merchant's fields; `submit` makes it `submitted` at `at` (clearing the last decision and
 * its reason), otherwise it keeps its status (`draft` for a new one, `rejected` stays `rejected`
 * with its reason until submitted again). Only from the statuses given, in the same statement: null
 * when the application is in another one.
 */
export async function writeApplication(
  q: Queryable,
  a: { merchantId: string; values: ApplicationValues; submit: boolean; from: readonly ApplicationStatus[]; at: Date },
): Promise<ApplicationRow | null> {
  const v = a.values;
  const { rows } = await q.query<ApplicationRow>(
    `INSERT INTO merchant_applications AS x (merchant_id, status, legal_name, country, website, description, monthly_volume_usd, contact, submitted_at, created_at, updated_at)
     VALUES ($1, CASE WHEN $8 THEN 'submitted' ELSE 'draft' END, $2, $3, $4, $5, $6, $7, CASE WHEN $8 THEN $9::timestamptz END, $9, $9)
     ON CONFLICT (merchant_id) DO UPDATE SET
       legal_name = excluded.legal_name, country = excluded.country, website = excluded.website, description = excluded.description,
       monthly_volume_usd = excluded.monthly_volume_usd, contact = excluded.contact, updated_at = excluded.updated_at,
       status = CASE WHEN $8 THEN 'submitted' ELSE x.status END,
       submitted_at = CASE WHEN $8 THEN excluded.submitted_at ELSE x.submitted_at END,
       decided_at = CASE WHEN $8 THEN NULL ELSE x.decided_at END,
       reason = CASE WHEN $8 THEN NULL ELSE x.reason END
     WHERE x.status = ANY($10::text[])
     RETURNING *`,
    [a.merchantId, v.legalName, v.country, v.website, v.description, v.monthlyVolumeUsd, v.contact, a.submit, a.at, a.from],
  );
  return rows[0] ?? null;
}

/** An operator's decision: the status, when, and the reason of a rejection; only from the statuses given. Null when in another one. */
export async function decideApplication(
  q: Queryable,
  d: { merchantId: string; status: 'approved' | 'rejected'; reason: string | null; from: readonly ApplicationStatus[]; at: Date },
): Promise<ApplicationRow | null> {
  const { rows } = await q.query<ApplicationRow>(
    `UPDATE merchant_applications SET status = $2, reason = $3, decided_at = $5, updated_at = $5
      WHERE merchant_id = $1 AND status = ANY($4::text[]) RETURNING *`,
    [d.merchantId, d.status, d.reason, d.from, d.at],
  );
  return rows[0] ?? null;
}

/** A submitted application with its merchant's name, for the review queue. */
export interface SubmittedApplicationRow extends ApplicationRow {
  merchant_name: string;
  merchant_created_at: Date;
  desks: number;
  sandbox_orders: number;
  sandbox_completed: number;
}

/**
 * Submitted applications, the longest waiting first (by `merchant_applications_submitted`), each
 * with its merchant's name and what it did in the sandbox.
 */
export async function submittedApplications(q: Queryable, limit: number): Promise<SubmittedApplicationRow[]> {
  const { rows } = await q.query<SubmittedApplicationRow>(
    `SELECT a.*, m.name AS merchant_name, m.created_at AS merchant_created_at,
       (SELECT count(*)::int FROM desks d WHERE d.merchant_id = a.merchant_id) AS desks,
       (SELECT count(*)::int FROM orders o WHERE o.merchant_id = a.merchant_id AND o.sandbox AND o.placement = 'placed') AS sandbox_orders,
       (SELECT count(*)::int FROM orders o WHERE o.merchant_id = a.merchant_id AND o.sandbox AND o.status = 'Completed') AS sandbox_completed
     FROM merchant_applications a JOIN merchants m ON m.id = a.merchant_id
     WHERE a.status = 'submitted' ORDER BY a.submitted_at, a.merchant_id LIMIT $1`,
    [limit],
  );
  return rows;
}

/** A merchant under review without a submitted application (none written, a draft, a rejected one). */
export interface UnappliedMerchantRow {
  id: string;
  name: string;
  created_at: Date;
  application_status: ApplicationStatus | null;
  desks: number;
  sandbox_orders: number;
  sandbox_completed: number;
}

/** Merchants under review that have not submitted an application, the longest waiting first, with what they did in the sandbox. */
export async function merchantsUnderReviewWithoutSubmission(q: Queryable, limit: number): Promise<UnappliedMerchantRow[]> {
  const { rows } = await q.query<UnappliedMerchantRow>(
    `SELECT m.id, m.name, m.created_at, a.status AS application_status,
       (SELECT count(*)::int FROM desks d WHERE d.merchant_id = m.id) AS desks,
       (SELECT count(*)::int FROM orders o WHERE o.merchant_id = m.id AND o.sandbox AND o.placement = 'placed') AS sandbox_orders,
       (SELECT count(*)::int FROM orders o WHERE o.merchant_id = m.id AND o.sandbox AND o.status = 'Completed') AS sandbox_completed
     FROM merchants m LEFT JOIN merchant_applications a ON a.merchant_id = m.id
     WHERE m.status = 'UnderReview' AND a.status IS DISTINCT FROM 'submitted'
     ORDER BY m.created_at, m.id LIMIT $1`,
    [limit],
  );
  return rows;
}
