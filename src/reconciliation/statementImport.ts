/**
 * `POST /admin/v1/providers/{id}/statements`: a bank statement uploaded, kept as a record
 * (`stm_`) and its credit entries recorded as credits (reconciliation contract, Statements).
 *
 * 1. The body goes to a temporary file as it arrives (50 MiB at most), hashed: the same bytes
 *    uploaded again answer the statement already recorded (`sameAs`) and record nothing.
 * 2. The file is read to its end (statements/index.ts) before anything is recorded: a file that
 *    is no statement is `400 STATEMENT_INVALID` naming what is wrong; an entry that cannot be read
 *    is listed, never a reason to refuse the others.
 * 3. The statement is recorded, then its entries a batch to a transaction, each batch keeping the
 *    statement's counts, so an import stopped by a crash is resumed by the next upload of the same
 *    bytes from the first entry it had not recorded.
 * 4. The balances are checked and the continuity with the account's previous statement found.
 * The temporary folder is removed when the request ends, whatever happened.
 */
import { Decimal } from 'decimal.js';
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { normalizeAccount } from '../domain/requisites.js';
import { isoSeconds } from '../domain/time.js';
import { newHistoryId } from '../ids.js';
import { pageOf } from '../services/paging.js';
import { insertAuditEntry } from '../store/audit.js';
import { poolProvider, recordStatementEntries, txWithRetry } from './credits.js';
import * as statementStore from './statementStore.js';
import type { BalanceCheck, Continuity, SectionRecord, StatementCounts, StatementRow } from './statementStore.js';
import { discard, entryBatches, readSpooled, spoolBody, spoolFolder, StatementInvalidError, type CsvProfile, type StatementBody, type StatementSection } from './statements/index.js';

/** Entries recorded in one transaction. */
const BATCH = 500;
/** An import whose statement has not moved for this long is taken to have stopped (its process died) and may be resumed. */
const STALLED_MS = 2 * 60_000;
/** The answer lists at most this many unreadable entries; the statement keeps them all. */
const PROBLEMS_LISTED = 100;

export const newStatementId = (atMs: number): string => newHistoryId('stm', atMs);

/** The upload's answer: the statement's counts (statementStore.ts `StatementCounts`) with what it is and what it found. */
export interface StatementAnswer extends Omit<StatementCounts, 'recordedUpTo'> {
  statementId: string;
  sameAs: string | null;
  format: string;
  version: string | null;
  balanceCheck: BalanceCheck;
  balanceDifference: string | null;
  continuity: Continuity;
  gap: { from: string | null; to: string | null } | null;
  problems: { index: number; problem: string }[];
}

export interface UploadOptions {
  filename: string | null;
  profile: CsvProfile | null;
  actor: string;
}

/** Balance check of one section: opening + credits − debits = closing, when both balances are stated. */
function checkSection(s: StatementSection): { balanceCheck: BalanceCheck; difference: string | null } {
  if (s.opening === null || s.closing === null) return { balanceCheck: 'not stated', difference: null };
  const difference = new Decimal(s.opening.amount).plus(s.credits).minus(s.debits).minus(s.closing.amount);
  return difference.isZero() && s.unreadable === 0 ? { balanceCheck: 'consistent', difference: null } : { balanceCheck: 'inconsistent', difference: difference.toFixed(2) };
}

const dayBefore = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
const dayAfter = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

async function answerOf(ctx: Ctx, s: StatementRow, sameAs: boolean): Promise<StatementAnswer> {
  const c = s.counts;
  return {
    statementId: s.id,
    sameAs: sameAs ? s.id : null,
    format: s.format,
    version: s.version,
    entries: c.entries,
    credits: c.credits,
    duplicates: c.duplicates,
    matched: c.matched,
    unmatched: c.unmatched,
    skipped: c.skipped,
    unreadable: c.unreadable,
    balanceCheck: s.balance_check,
    balanceDifference: s.balance_difference,
    continuity: s.continuity,
    gap: s.continuity === 'gap' ? { from: s.gap_from, to: s.gap_to } : null,
    problems: (await statementStore.problemsOf(ctx.db, s.id, PROBLEMS_LISTED)).map((p) => ({ index: p.idx, problem: p.problem })),
  };
}

/** Records the entries of the spooled file after `from` (0: all), a batch to a transaction, keeping the counts with each. */
async function recordEntries(ctx: Ctx, providerId: string, statementId: string, entriesPath: string, counts: StatementCounts): Promise<StatementCounts> {
  const c = { ...counts };
  for await (const batch of entryBatches(entriesPath, BATCH)) {
    const todo = batch.filter((e) => e.index > c.recordedUpTo);
    if (todo.length === 0) continue;
    const next = { ...c };
    await txWithRetry(ctx, async (q) => {
      Object.assign(next, c);
      const outcomes = await recordStatementEntries(q, ctx, providerId, statementId, todo);
      for (const o of outcomes) {
        if (o.outcome === 'unreadable') next.unreadable++;
        else if (o.outcome === 'skipped') next.skipped++;
        else {
          next.credits++;
          if (o.outcome === 'duplicate') next.duplicates++;
          else if (o.credit!.status === 'matched') next.matched++;
          else next.unmatched++;
        }
      }
      next.recordedUpTo = todo[todo.length - 1].index;
      await statementStore.updateCounts(q, statementId, next, new Date(ctx.clock.now()));
    });
    Object.assign(c, next);
  }
  return c;
}

/** Continuity of each section with the account's previous statement, and the statement's as a whole (the first gap found). */
async function continuityOf(ctx: Ctx, providerId: string, statementId: string, sections: SectionRecord[]): Promise<{ sections: SectionRecord[]; continuity: Continuity; gapFrom: string | null; gapTo: string | null }> {
  const out: SectionRecord[] = [];
  for (const s of sections) {
    if (s.opening === null) {
      out.push({ ...s, continuity: 'not stated', gap: null });
      continue;
    }
    const prev = await statementStore.previousSection(ctx.db, providerId, s.accountKey, statementId, s.from);
    if (!prev || prev.section.closing === null) {
      out.push({ ...s, continuity: 'first', gap: null });
      continue;
    }
    const same = new Decimal(prev.section.closing.amount).eq(s.opening.amount);
    const prevTo = prev.section.closing.date ?? prev.section.to;
    const missingFrom = prevTo ? dayAfter(prevTo) : null;
    const missingTo = s.from ? dayBefore(s.from) : null;
    const daysMissing = missingFrom !== null && missingTo !== null && missingFrom <= missingTo;
    if (same && !daysMissing) out.push({ ...s, continuity: 'continuous', gap: null });
    else {
      out.push({
        ...s,
        continuity: 'gap',
        gap: { from: daysMissing ? missingFrom : null, to: daysMissing ? missingTo : null, previousStatementId: prev.id, previousClosing: prev.section.closing.amount },
      });
    }
  }
  const gap = out.find((s) => s.continuity === 'gap');
  const continuity: Continuity = gap ? 'gap' : out.some((s) => s.continuity === 'continuous') ? 'continuous' : out.some((s) => s.continuity === 'first') ? 'first' : 'not stated';
  return { sections: out, continuity, gapFrom: gap?.gap?.from ?? null, gapTo: gap?.gap?.to ?? null };
}

export async function importStatement(ctx: Ctx, providerId: string, body: StatementBody, opts: UploadOptions): Promise<StatementAnswer> {
  const provider = await poolProvider(ctx.db, providerId);
  const audit = (outcome: string, detail: string | null, objectId: string = provider.id) =>
    insertAuditEntry(ctx.db, { at: new Date(ctx.clock.now()), actor: opts.actor, action: 'provider.statement', objectId, outcome, detail });
  const dir = await spoolFolder();
  try {
    let spooled;
    try {
      spooled = await spoolBody(body, dir);
    } catch (err) {
      if (err instanceof StatementInvalidError) {
        await audit('PAYLOAD_TOO_LARGE', 'a statement is at most 50 MiB');
        throw new AppError('PAYLOAD_TOO_LARGE', 'a statement is at most 50 MiB');
      }
      throw err;
    }
    const known = await statementStore.statementBySha(ctx.db, provider.id, spooled.sha256);
    if (known && known.state === 'recorded') return await answerOf(ctx, known, true);
    if (known && !(await statementStore.claimStalled(ctx.db, known.id, new Date(ctx.clock.now() - STALLED_MS), new Date(ctx.clock.now())))) {
      // Another upload of the same bytes is recording it now.
      return await answerOf(ctx, known, true);
    }

    let read;
    try {
      read = await readSpooled(spooled, opts.profile);
    } catch (err) {
      if (err instanceof StatementInvalidError) {
        await audit('STATEMENT_INVALID', err.problem.message);
        throw new AppError('STATEMENT_INVALID', err.problem.message);
      }
      throw err;
    }
    const at = new Date(ctx.clock.now());
    let statement = known;
    if (!statement) {
      const sections: SectionRecord[] = read.summary.sections.map((s) => ({
        ...s, accountKey: normalizeAccount(s.account), ...checkSection(s), continuity: 'not stated' as Continuity, gap: null,
      }));
      const inconsistent = sections.filter((s) => s.balanceCheck === 'inconsistent');
      const stated = sections.some((s) => s.balanceCheck !== 'not stated');
      const days = sections.flatMap((s) => [s.from, s.to]).filter((d): d is string => d !== null).sort();
      statement = await statementStore.insertStatement(ctx.db, {
        id: newStatementId(at.getTime()),
        providerId: provider.id,
        filename: opts.filename,
        sha256: spooled.sha256,
        format: read.summary.format,
        version: read.summary.version,
        accounts: [...new Set(sections.map((s) => s.account))],
        accountKeys: [...new Set(sections.map((s) => s.accountKey))],
        periodFrom: days[0] ?? null,
        periodTo: days.at(-1) ?? null,
        sections,
        balanceCheck: inconsistent.length ? 'inconsistent' : stated ? 'consistent' : 'not stated',
        balanceDifference: inconsistent.length ? inconsistent.reduce((sum, s) => sum.plus(s.difference!), new Decimal(0)).toFixed(2) : null,
        continuity: 'not stated',
        gapFrom: null,
        gapTo: null,
        counts: { ...statementStore.zeroCounts(), entries: read.entries },
        uploadedBy: opts.actor,
        at,
      });
      if (!statement) {
        // The same bytes were recorded by another upload between our look and our insert.
        const other = await statementStore.statementBySha(ctx.db, provider.id, spooled.sha256);
        return await answerOf(ctx, other!, true);
      }
    }
    const counts = await recordEntries(ctx, provider.id, statement.id, read.entriesPath, statement.counts);
    const continuity = await continuityOf(ctx, provider.id, statement.id, statement.sections);
    const done = await statementStore.finishStatement(ctx.db, statement.id, { counts, ...continuity }, new Date(ctx.clock.now()));
    const answer = await answerOf(ctx, done, false);
    await audit('ok', `${statement.id} ${done.format}: entries ${counts.entries}, credits ${counts.credits}, duplicates ${counts.duplicates}, matched ${counts.matched}, unmatched ${counts.unmatched}, skipped ${counts.skipped}, unreadable ${counts.unreadable}`);
    ctx.log.info({ providerId: provider.id, statementId: statement.id, format: done.format, ...counts }, 'statement recorded');
    return answer;
  } finally {
    await discard(dir);
  }
}

// ---- reading statements

export function statementView(s: StatementRow) {
  return {
    id: s.id,
    providerId: s.provider_id,
    filename: s.filename,
    sha256: s.sha256,
    format: s.format,
    version: s.version,
    accounts: s.accounts,
    periodFrom: s.period_from,
    periodTo: s.period_to,
    state: s.state,
    balanceCheck: s.balance_check,
    balanceDifference: s.balance_difference,
    continuity: s.continuity,
    gap: s.continuity === 'gap' ? { from: s.gap_from, to: s.gap_to } : null,
    sections: s.sections.map(({ accountKey: _, ...rest }) => rest),
    counts: {
      entries: s.counts.entries, credits: s.counts.credits, duplicates: s.counts.duplicates, matched: s.counts.matched,
      unmatched: s.counts.unmatched, skipped: s.counts.skipped, unreadable: s.counts.unreadable,
    },
    uploadedBy: s.uploaded_by,
    createdAt: isoSeconds(s.created_at),
  };
}
export type StatementView = ReturnType<typeof statementView>;

export function entryView(e: statementStore.EntryRow) {
  return {
    index: e.idx,
    kind: e.kind,
    account: e.account,
    amount: e.amount === null ? null : new Decimal(e.amount).toFixed(2),
    currency: e.currency,
    bookingDate: e.booking_date,
    bankReference: e.bank_reference,
    sourceRef: e.source_ref,
    payer: e.payer,
    reference: e.reference,
    outcome: e.outcome,
    creditId: e.credit_id,
    duplicateOf: e.outcome === 'duplicate' ? e.credit_id : null,
    problem: e.problem,
  };
}

export async function listStatementViews(ctx: Ctx, query: { providerId?: string; account?: string; before?: string; limit: number }) {
  let pastSeq: number | null = null;
  if (query.before !== undefined) {
    const b = await statementStore.getStatement(ctx.db, query.before);
    if (!b) throw new AppError('VALIDATION_ERROR', 'before: unknown statement id');
    pastSeq = b.seq;
  }
  const rows = await statementStore.listStatements(ctx.db, {
    providerId: query.providerId ?? null,
    accountKey: query.account === undefined ? null : normalizeAccount(query.account),
    pastSeq,
    limit: query.limit + 1,
  });
  return pageOf(rows, query.limit, statementView, (r) => r.id);
}

/** A statement with a page of its entries in file order (`after`: the last index of the previous page). */
export async function getStatementView(ctx: Ctx, id: string, query: { after?: number; limit: number; outcome?: string }) {
  const s = await statementStore.getStatement(ctx.db, id);
  if (!s) throw new AppError('STATEMENT_NOT_FOUND', `no statement ${id}`);
  const rows = await statementStore.listEntries(ctx.db, id, query.after ?? 0, query.limit + 1, query.outcome ?? null);
  const kept = rows.slice(0, query.limit);
  return {
    ...statementView(s),
    entries: {
      items: kept.map(entryView),
      hasMore: rows.length > query.limit,
      next: rows.length > query.limit && kept.length ? kept[kept.length - 1].idx : null,
    },
  };
}
