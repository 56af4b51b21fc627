/**
 * SQL of statements (`stm_`): each upload kept with what the file said, and every entry with what
 * became of it. One exported function per statement, the connection or transaction first.
 */
import type { Queryable } from '../store/db.js';
import type { CsvProfile } from './statements/csvProfile.js';
import type { StatementEntry } from './statements/types.js';

export type StatementState = 'importing' | 'recorded';
export type BalanceCheck = 'consistent' | 'inconsistent' | 'not stated';
export type Continuity = 'continuous' | 'gap' | 'first' | 'not stated';

/** The answer's counts, kept on the statement as entries are recorded. */
export interface StatementCounts {
  entries: number;
  credits: number;
  duplicates: number;
  matched: number;
  unmatched: number;
  skipped: number;
  unreadable: number;
  /** Entries recorded so far, in file order: an import that stopped resumes after the last. */
  recordedUpTo: number;
}

export const zeroCounts = (): StatementCounts => ({ entries: 0, credits: 0, duplicates: 0, matched: 0, unmatched: 0, skipped: 0, unreadable: 0, recordedUpTo: 0 });

/** One account section as kept: the file's balances, the sums, and the checks made of them. */
export interface SectionRecord {
  account: string;
  accountKey: string;
  from: string | null;
  to: string | null;
  opening: { amount: string; currency: string | null; date: string | null } | null;
  closing: { amount: string; currency: string | null; date: string | null } | null;
  credits: string;
  debits: string;
  unreadable: number;
  balanceCheck: BalanceCheck;
  difference: string | null;
  continuity: Continuity;
  gap: { from: string | null; to: string | null; previousStatementId: string; previousClosing: string } | null;
}

export interface StatementRow {
  id: string;
  seq: number;
  provider_id: string;
  filename: string | null;
  sha256: string;
  format: string;
  version: string | null;
  accounts: string[];
  account_keys: string[];
  period_from: string | null;
  period_to: string | null;
  sections: SectionRecord[];
  balance_check: BalanceCheck;
  balance_difference: string | null;
  continuity: Continuity;
  gap_from: string | null;
  gap_to: string | null;
  state: StatementState;
  counts: StatementCounts;
  uploaded_by: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, seq, provider_id, filename, sha256, format, version, accounts, account_keys,
  to_char(period_from, 'YYYY-MM-DD') AS period_from, to_char(period_to, 'YYYY-MM-DD') AS period_to, sections,
  balance_check, balance_difference, continuity, to_char(gap_from, 'YYYY-MM-DD') AS gap_from, to_char(gap_to, 'YYYY-MM-DD') AS gap_to,
  state, counts, uploaded_by, created_at, updated_at`;

export async function statementBySha(q: Queryable, providerId: string, sha256: string): Promise<StatementRow | null> {
  const { rows } = await q.query<StatementRow>(`SELECT ${COLUMNS} FROM statements WHERE provider_id = $1 AND sha256 = $2`, [providerId, sha256]);
  return rows[0] ?? null;
}

export async function getStatement(q: Queryable, id: string): Promise<StatementRow | null> {
  const { rows } = await q.query<StatementRow>(`SELECT ${COLUMNS} FROM statements WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

export interface NewStatement {
  id: string;
  providerId: string;
  filename: string | null;
  sha256: string;
  format: string;
  version: string | null;
  accounts: string[];
  accountKeys: string[];
  periodFrom: string | null;
  periodTo: string | null;
  sections: SectionRecord[];
  balanceCheck: BalanceCheck;
  balanceDifference: string | null;
  continuity: Continuity;
  gapFrom: string | null;
  gapTo: string | null;
  counts: StatementCounts;
  uploadedBy: string;
  at: Date;
}

/** Records a statement being imported; null when the provider has one of these bytes already (another upload won). */
export async function insertStatement(q: Queryable, s: NewStatement): Promise<StatementRow | null> {
  const { rows } = await q.query<StatementRow>(
    `INSERT INTO statements (id, provider_id, filename, sha256, format, version, accounts, account_keys, period_from, period_to, sections,
                             balance_check, balance_difference, continuity, gap_from, gap_to, state, counts, uploaded_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, 'importing', $17, $18, $19, $19)
     ON CONFLICT (provider_id, sha256) DO NOTHING RETURNING ${COLUMNS}`,
    [s.id, s.providerId, s.filename, s.sha256, s.format, s.version, JSON.stringify(s.accounts), s.accountKeys, s.periodFrom, s.periodTo,
      JSON.stringify(s.sections), s.balanceCheck, s.balanceDifference, s.continuity, s.gapFrom, s.gapTo, JSON.stringify(s.counts), s.uploadedBy, s.at],
  );
  return rows[0] ?? null;
}

/** Keeps the counts of the entries recorded so far, in the transaction that recorded them. */
export async function updateCounts(q: Queryable, id: string, counts: StatementCounts, at: Date): Promise<void> {
  await q.query('UPDATE statements SET counts = $2, updated_at = $3 WHERE id = $1', [id, JSON.stringify(counts), at]);
}

/** Takes over an import that stopped: only when it has not moved since `staleBefore`. */
export async function claimStalled(q: Queryable, id: string, staleBefore: Date, at: Date): Promise<boolean> {
  const r = await q.query("UPDATE statements SET updated_at = $3 WHERE id = $1 AND state = 'importing' AND updated_at < $2", [id, staleBefore, at]);
  return (r.rowCount ?? 0) === 1;
}

export async function finishStatement(
  q: Queryable,
  id: string,
  f: { counts: StatementCounts; sections: SectionRecord[]; continuity: Continuity; gapFrom: string | null; gapTo: string | null },
  at: Date,
): Promise<StatementRow> {
  const { rows } = await q.query<StatementRow>(
    `UPDATE statements SET state = 'recorded', counts = $2, sections = $3, continuity = $4, gap_from = $5, gap_to = $6, updated_at = $7
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, JSON.stringify(f.counts), JSON.stringify(f.sections), f.continuity, f.gapFrom, f.gapTo, at],
  );
  return rows[0];
}

/**
 * The latest statement of the provider before `before` (by period end, then upload) whose section
 * for `accountKey` states a closing balance: what a new statement's opening continues from.
 */
export async function previousSection(q: Queryable, providerId: string, accountKey: string, excludeId: string, before: string | null): Promise<{ id: string; section: SectionRecord } | null> {
  const { rows } = await q.query<{ id: string; section: SectionRecord }>(
    `SELECT s.id, x.section FROM statements s
       CROSS JOIN LATERAL (SELECT e AS section FROM jsonb_array_elements(s.sections) e WHERE e->>'accountKey' = $2 AND e->'closing' <> 'null'::jsonb LIMIT 1) x
      WHERE s.provider_id = $1 AND s.account_keys @> ARRAY[$2]::text[] AND s.id <> $3 AND s.state = 'recorded'
        AND ($4::date IS NULL OR COALESCE((x.section->>'to')::date, s.period_to) <= $4::date)
      ORDER BY COALESCE((x.section->>'to')::date, s.period_to) DESC NULLS LAST, s.seq DESC LIMIT 1`,
    [providerId, accountKey, excludeId, before],
  );
  return rows[0] ?? null;
}

/** Statements, newest first, keyset-paged by `seq`. */
export async function listStatements(q: Queryable, f: { providerId: string | null; accountKey: string | null; pastSeq: number | null; limit: number }): Promise<StatementRow[]> {
  const { rows } = await q.query<StatementRow>(
    `SELECT ${COLUMNS} FROM statements
      WHERE ($1::text IS NULL OR provider_id = $1) AND ($2::text IS NULL OR account_keys @> ARRAY[$2]::text[]) AND ($3::bigint IS NULL OR seq < $3)
      ORDER BY seq DESC LIMIT $4`,
    [f.providerId, f.accountKey, f.pastSeq, f.limit],
  );
  return rows;
}

/** The provider's statements uploaded within [from, to), for the day report. */
export async function statementsOfDay(q: Queryable, providerId: string, from: Date, to: Date): Promise<StatementRow[]> {
  const { rows } = await q.query<StatementRow>(
    `SELECT ${COLUMNS} FROM statements WHERE provider_id = $1 AND created_at >= $2 AND created_at < $3 ORDER BY seq`,
    [providerId, from, to],
  );
  return rows;
}

/** The statements whose balances do not add up or do not continue, newest first: what the back office's home warns of. */
export async function statementsWithFindings(q: Queryable, limit: number): Promise<StatementRow[]> {
  const { rows } = await q.query<StatementRow>(
    `SELECT ${COLUMNS} FROM statements WHERE state = 'recorded' AND (balance_check = 'inconsistent' OR continuity = 'gap') ORDER BY seq DESC LIMIT $1`,
    [limit],
  );
  return rows;
}

export interface EntryRow {
  idx: number;
  kind: 'credit' | 'debit' | 'other';
  account: string | null;
  amount: string | null;
  currency: string | null;
  booking_date: string | null;
  received_at: Date | null;
  bank_reference: string | null;
  source_ref: string | null;
  payer: string | null;
  reference: string | null;
  outcome: 'new' | 'duplicate' | 'skipped' | 'unreadable';
  credit_id: string | null;
  problem: string | null;
}

const entryColumns = (e: string) => `${e}.idx, ${e}.kind, ${e}.account, ${e}.amount, ${e}.currency, to_char(${e}.booking_date, 'YYYY-MM-DD') AS booking_date,
  ${e}.received_at, ${e}.bank_reference, ${e}.source_ref, ${e}.payer, ${e}.reference, ${e}.outcome, ${e}.credit_id, ${e}.problem`;

/** Keeps a batch of entries with their outcomes. */
export async function insertEntries(
  q: Queryable,
  statementId: string,
  entries: readonly StatementEntry[],
  outcomes: readonly { index: number; outcome: EntryRow['outcome']; credit: { id: string } | null }[],
): Promise<void> {
  if (entries.length === 0) return;
  const byIndex = new Map(outcomes.map((o) => [o.index, o]));
  const items = entries.map((e) => {
    const o = byIndex.get(e.index)!;
    return {
      idx: e.index, kind: e.kind, account: e.account, amount: e.amount, currency: e.currency, booking_date: e.receivedAt ? e.receivedAt.slice(0, 10) : null,
      received_at: e.receivedAt, bank_reference: e.bankReference, source_ref: e.sourceId, payer: e.payer, reference: e.reference,
      outcome: o.outcome, credit_id: o.credit?.id ?? null, problem: e.problem,
    };
  });
  await q.query(
    `INSERT INTO statement_entries (statement_id, idx, kind, account, amount, currency, booking_date, received_at, bank_reference, source_ref, payer, reference, outcome, credit_id, problem)
     SELECT $1, i.idx, i.kind, i.account, i.amount, i.currency, i.booking_date, i.received_at, i.bank_reference, i.source_ref, i.payer, i.reference, i.outcome, i.credit_id, i.problem
       FROM jsonb_to_recordset($2::jsonb) AS i(idx int, kind text, account text, amount numeric, currency text, booking_date date, received_at timestamptz,
            bank_reference text, source_ref text, payer text, reference text, outcome text, credit_id text, problem text)
     ON CONFLICT (statement_id, idx) DO NOTHING`,
    [statementId, JSON.stringify(items)],
  );
}

/** A statement's entries in file order, from after `afterIdx`. */
export async function listEntries(q: Queryable, statementId: string, afterIdx: number, limit: number, outcome: string | null): Promise<EntryRow[]> {
  const { rows } = await q.query<EntryRow>(
    `SELECT ${entryColumns('e')} FROM statement_entries e WHERE statement_id = $1 AND idx > $2 AND ($4::text IS NULL OR outcome = $4) ORDER BY idx LIMIT $3`,
    [statementId, afterIdx, limit, outcome],
  );
  return rows;
}

/** The entries of unreadable outcome, up to `limit`: the problems the upload's answer lists. */
export async function problemsOf(q: Queryable, statementId: string, limit: number): Promise<{ idx: number; problem: string }[]> {
  const { rows } = await q.query<{ idx: number; problem: string }>(
    `SELECT idx, problem FROM statement_entries WHERE statement_id = $1 AND outcome = 'unreadable' ORDER BY idx LIMIT $2`,
    [statementId, limit],
  );
  return rows;
}

/** The statement entries that evidence a credit, oldest statement first. */
export async function entriesOfCredit(q: Queryable, creditId: string): Promise<(EntryRow & { statement_id: string })[]> {
  const { rows } = await q.query<EntryRow & { statement_id: string }>(
    `SELECT e.statement_id, ${entryColumns('e')}
       FROM statement_entries e JOIN statements s ON s.id = e.statement_id WHERE e.credit_id = $1 ORDER BY s.seq, e.idx`,
    [creditId],
  );
  return rows;
}

// ---- CSV profiles

export interface ProfileRow {
  id: string;
  provider_id: string;
  name: string;
  profile: CsvProfile;
  created_at: Date;
  updated_at: Date;
}

export async function insertProfile(q: Queryable, p: { id: string; providerId: string; profile: CsvProfile; at: Date }): Promise<ProfileRow> {
  const { rows } = await q.query<ProfileRow>(
    'INSERT INTO statement_profiles (id, provider_id, name, profile, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5) RETURNING *',
    [p.id, p.providerId, p.profile.name, JSON.stringify(p.profile), p.at],
  );
  return rows[0];
}

export async function getProfile(q: Queryable, id: string): Promise<ProfileRow | null> {
  const { rows } = await q.query<ProfileRow>('SELECT * FROM statement_profiles WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function listProfiles(q: Queryable, providerId: string): Promise<ProfileRow[]> {
  const { rows } = await q.query<ProfileRow>('SELECT * FROM statement_profiles WHERE provider_id = $1 ORDER BY seq', [providerId]);
  return rows;
}

export async function updateProfile(q: Queryable, id: string, profile: CsvProfile, at: Date): Promise<ProfileRow> {
  const { rows } = await q.query<ProfileRow>('UPDATE statement_profiles SET name = $2, profile = $3, updated_at = $4 WHERE id = $1 RETURNING *', [id, profile.name, JSON.stringify(profile), at]);
  return rows[0];
}
