/**
 * Credits (`crd_`): money seen arriving on a requisite's account, from the signed feed, a bank
 * statement or an operator. Each is recorded once per `(providerId, sourceId)` and, in the same
 * transaction, matched to the order it pays (matching.ts); a win confirms the order exactly as
 * `POST /admin/v1/orders/{id}/confirm` does (orderActions.ts `confirmInTx`), with an audit entry
 * by `matcher` naming the credit. Unmatched credits wait for a person to match or ignore them.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Decimal } from 'decimal.js';
import type { Ctx } from '../context.js';
import { isIsoCurrency } from '../domain/catalogue.js';
import { AppError } from '../domain/errors.js';
import { byKey } from '../domain/keys.js';
import { dec, fmt2 } from '../domain/money.js';
import { isoSeconds } from '../domain/time.js';
import { newHistoryId, randomId26 } from '../ids.js';
import { parseStrictJson } from '../json.js';
import { verifySignedHeaders } from '../providers/providerMessages.js';
import { completeManyInTx } from '../services/completions.js';
import { confirmInTx } from '../services/orderActions.js';
import { pageOf } from '../services/paging.js';
import { insertAuditEntry } from '../store/audit.js';
import type { Queryable } from '../store/db.js';
import { getOrderById, type OrderRow } from '../store/orders.js';
import { getProvider, type ProviderRow } from '../store/providers.js';
import { normalizeAccount } from '../domain/requisites.js';
import { CREATED_AFTER_MONEY_MS, matchCredit, NEAR_MAX, type CreditTerms, type MatchableOrder, type MatchOutcome } from './matching.js';
import { bookingDateTime, positiveAmount } from './statements/fields.js';
import { openStatement, StatementInvalidError, statementKindOf, type StatementBody, type StatementCredit, type StatementKind, type StatementProblem, type StatementTotals } from './statements/index.js';
import * as store from './store.js';

export const newCreditId = (atMs: number): string => newHistoryId('crd', atMs);

/** The feed takes 1 to 500 credits in one request of at most 1 MiB. */
export const FEED_MAX_ITEMS = 500;
export const FEED_MAX_BYTES = 1024 * 1024;
/** A credit cannot have arrived more than 5 minutes in the sender's future (clock skew). */
export const FUTURE_SKEW_MS = 5 * 60_000;
/** Credits of one statement are recorded this many to a transaction. */
const STATEMENT_BATCH = 500;

export function creditView(c: store.CreditRow) {
  return {
    id: c.id,
    providerId: c.provider_id,
    requisiteId: c.requisite_id,
    account: c.account,
    amount: fmt2(c.amount),
    currency: c.currency,
    receivedAt: isoSeconds(c.received_at),
    payer: c.payer,
    reference: c.reference,
    source: c.source,
    sourceId: c.source_id,
    status: c.status,
    reason: c.reason,
    orderId: c.order_id,
    matchedBy: c.matched_by,
    candidates: c.candidates,
    difference: c.difference === null ? null : fmt2(c.difference),
    createdAt: isoSeconds(c.created_at),
  };
}
export type CreditView = ReturnType<typeof creditView>;

/** One credit as it arrives, checked. */
export type CreditInput = store.CreditTerms;

const lateMs = (ctx: Ctx) => ctx.config.reconcileLateHours * 3_600_000;

function termsOf(c: store.NewCredit): CreditTerms {
  const from = c.receivedAt;
  // A date alone stands for the whole UTC day.
  const to = c.dateOnly ? new Date(from.getTime() + 86_400_000 - 1) : from;
  return { amount: c.amount, currency: c.currency, receivedFrom: from, receivedTo: to, reference: c.reference };
}

const matchable = (r: store.MatchableOrderRow): MatchableOrder => ({
  id: r.id,
  amount: r.amount,
  currency: r.currency,
  status: r.status,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  payerReference: r.payer_reference,
  matchedByCredit: r.matched_credit_id !== null,
});


/**
 * For credits with no order of their amount: up to `limit` orders of other amounts in each one's
 * window that still wait for money, closest amount first, then oldest. The orders of credits
 * sharing requisites and currency are read once, in one statement for all, and each credit's
 * nearest are picked here, so a statement of 500 credits on one account reads that account's
 * waiting orders once instead of 500 times.
 */
async function nearOrders(q: Queryable, probes: readonly store.OrderProbe[], limit: number): Promise<Map<number, store.MatchableOrderRow[]>> {
  const groupOf = new Map<string, store.WaitingProbe>();
  const keyOf = (p: store.OrderProbe) => `${p.currency}|${[...p.requisiteIds].sort().join(',')}`;
  for (const p of probes) {
    const w = groupOf.get(keyOf(p));
    if (!w) groupOf.set(keyOf(p), { g: groupOf.size, requisiteIds: p.requisiteIds, currency: p.currency, createdBy: p.createdBy, expiresFrom: p.expiresFrom });
    else {
      if (p.createdBy > w.createdBy) w.createdBy = p.createdBy;
      if (p.expiresFrom < w.expiresFrom) w.expiresFrom = p.expiresFrom;
    }
  }
  const rowsOf = new Map<number, (store.MatchableOrderRow & { amountDec: Decimal })[]>();
  for (const r of await store.waitingOrders(q, [...groupOf.values()])) rowsOf.set(r.g, [...(rowsOf.get(r.g) ?? []), { ...r, amountDec: dec(r.amount) }]);
  const out = new Map<number, store.MatchableOrderRow[]>();
  for (const p of probes) {
    const amount = dec(p.amount);
    const near = (rowsOf.get(groupOf.get(keyOf(p))!.g) ?? [])
      .filter((o) => !o.amountDec.eq(amount) && o.created_at <= p.createdBy && o.expires_at >= p.expiresFrom)
      .map((o) => ({ o, distance: o.amountDec.minus(amount).abs() }))
      .sort((a, b) => a.distance.cmp(b.distance) || a.o.created_at.getTime() - b.o.created_at.getTime() || byKey(a.o.id, b.o.id))
      .slice(0, limit)
      .map(({ o: { amountDec: _, ...o } }) => o);
    out.set(p.k, near);
  }
  return out;
}

interface Recorded {
  credit: store.CreditRow;
  duplicate: boolean;
}

/** Another transaction recorded one of the credits since this one looked: run again (`txWithRetry`), it is a duplicate then. */
class RecordedMeanwhile extends Error {
  readonly code = '40001';
}

/**
 * Records credits and matches the new ones, in the caller's transaction, with the outcome each
 * would have had alone, in list order: a credit matches the order its terms name (matching.ts), and
 * an order won by an earlier credit of the list is matched already for the later ones. A credit
 * the provider already sent (same source id, also earlier in the list) is answered as recorded,
 * unchanged.
 *
 * A fixed number of statements for the whole list (the credits sent before, requisites, orders of
 * each amount, lock, read again under the lock, the credits with their outcomes), plus the won
 * orders' confirmation. The orders that could win are locked (in id order) before they are judged,
 * and judged as they stand under the lock, so a competing credit or an operator's confirmation on
 * another instance is either seen or waits for us: an order is never completed twice, and
 * `credits.order_id` is unique besides. Each credit is written once, with its outcome; one that
 * another transaction recorded in the meantime makes this one run again (`txWithRetry`).
 */
export async function recordCredits(q: Queryable, ctx: Ctx, providerId: string, inputs: CreditInput[], source: store.CreditSource): Promise<Recorded[]> {
  const at = new Date(ctx.clock.now());
  const bySource = new Map((await store.creditsBySources(q, providerId, [...new Set(inputs.map((i) => i.sourceId))])).map((c) => [c.source_id, c]));
  // The first of the list for each source id not recorded before; the others are its duplicates.
  const fresh = new Map<string, store.NewCredit>();
  for (const input of inputs) {
    if (!bySource.has(input.sourceId) && !fresh.has(input.sourceId)) fresh.set(input.sourceId, { ...input, id: newCreditId(at.getTime()), providerId, source, at });
  }
  const { settled, winners } = await judgeCredits(q, ctx, [...fresh.values()]);
  const recorded = await store.insertCredits(q, settled);
  if (recorded.length !== settled.length) throw new RecordedMeanwhile('a credit of the list was recorded by another transaction meanwhile');
  for (const c of recorded) bySource.set(c.source_id, c);
  // Every won order confirmed at once, as the confirm action confirms one, audited by the matcher
  // with its credit: the rows other transactions wait for are taken last.
  const creditOf = new Map(winners.map((w) => [w.order.id, w.creditId]));
  await completeManyInTx(q, ctx, winners.map((w) => w.order).sort((a, b) => byKey(a.id, b.id)), {
    action: 'confirm', appealComment: 'payment confirmed', audit: { actor: 'matcher', detail: (o) => creditOf.get(o.id) ?? null },
  });
  if (winners.length) ctx.log.info({ matched: winners.length, credits: settled.length }, 'credits matched');
  // The list's first credit of a source id recorded now is new; every other is a duplicate.
  const answered = new Set<string>();
  return inputs.map((input) => {
    const duplicate = !fresh.has(input.sourceId) || answered.has(input.sourceId);
    answered.add(input.sourceId);
    return { credit: bySource.get(input.sourceId)!, duplicate };
  });
}

/** Records one credit and matches it, in the caller's transaction (see `recordCredits`). */
export async function recordCredit(q: Queryable, ctx: Ctx, providerId: string, input: CreditInput, source: store.CreditSource): Promise<Recorded> {
  return (await recordCredits(q, ctx, providerId, [input], source))[0];
}

/**
 * The outcome of each new credit, in list order, inside its transaction, and the orders they win,
 * locked: what `recordCredits` writes.
 */
async function judgeCredits(q: Queryable, ctx: Ctx, credits: store.NewCredit[]): Promise<{ settled: store.SettledCredit[]; winners: { order: OrderRow; creditId: string }[] }> {
  if (credits.length === 0) return { settled: [], winners: [] };
  const late = lateMs(ctx);
  const providerId = credits[0].providerId;
  const requisitesOf = new Map<string, string[]>();
  for (const r of await store.requisitesByAccounts(q, providerId, [...new Set(credits.map((c) => normalizeAccount(c.account)))])) {
    requisitesOf.set(r.account, [...(requisitesOf.get(r.account) ?? []), r.requisite_id]);
  }
  const terms = credits.map(termsOf);
  const probes: store.OrderProbe[] = [];
  credits.forEach((c, k) => {
    const requisiteIds = requisitesOf.get(normalizeAccount(c.account));
    if (!requisiteIds) return;
    probes.push({
      k, requisiteIds, currency: c.currency, amount: c.amount,
      createdBy: new Date(terms[k].receivedTo.getTime() + CREATED_AFTER_MONEY_MS),
      expiresFrom: new Date(terms[k].receivedFrom.getTime() - late),
    });
  });

  // The orders of each credit's amount; those that could still win are locked, then all read again.
  const groups = (rows: (store.MatchableOrderRow & { k: number })[]) => {
    const m = new Map<number, store.MatchableOrderRow[]>();
    for (const r of rows) m.set(r.k, [...(m.get(r.k) ?? []), r]);
    return m;
  };
  let sameAmount = groups(await store.sameAmountOrders(q, probes));
  const locked = new Map<string, OrderRow>();
  const lock = async (ids: string[]) => {
    for (const o of await store.lockedOrders(q, ids.filter((id) => !locked.has(id)))) locked.set(o.id, o);
  };
  const contenders = [...sameAmount.values()].flat().filter((o) => o.status !== 'Completed' && o.matched_credit_id === null).map((o) => o.id);
  let outcomes: MatchOutcome[] = [];
  if (contenders.length) {
    await lock([...new Set(contenders)]);
    sameAmount = groups(await store.sameAmountOrders(q, probes));
  }
  // Judged in list order: an order won by an earlier credit is matched for the later ones.
  const judge = (near: Map<number, store.MatchableOrderRow[]>) => {
    const wonBy = new Map<string, number>();
    return credits.map((c, k) => {
      const rows = [...(sameAmount.get(k) ?? []), ...(near.get(k) ?? [])];
      const orders = rows.map(matchable).map((o) => {
        const won = wonBy.get(o.id);
        return won !== undefined && won < k ? { ...o, status: 'Completed', matchedByCredit: true } : o;
      });
      const outcome = matchCredit(terms[k], orders, late);
      if (outcome.matched) wonBy.set(outcome.orderId, k);
      return outcome;
    });
  };
  for (;;) {
    outcomes = judge(new Map());
    // A winner not locked yet (an order given its requisite meanwhile): locked, and all judged again.
    const unlocked = outcomes.flatMap((o) => (o.matched && !locked.has(o.orderId) ? [o.orderId] : []));
    if (unlocked.length === 0) break;
    await lock(unlocked);
    sameAmount = groups(await store.sameAmountOrders(q, probes));
  }
  // No order of the amount: the orders of other amounts that still wait for money, for a person to look at.
  const lonely = probes.filter((p) => {
    const o = outcomes[p.k];
    return !o.matched && o.reason === 'no order';
  });
  if (lonely.length) {
    const claimed = outcomes.filter((o) => o.matched).length;
    outcomes = judge(await nearOrders(q, lonely, NEAR_MAX + claimed));
  }

  const settled: store.SettledCredit[] = [];
  const winners: { order: OrderRow; creditId: string }[] = [];
  for (const [k, c] of credits.entries()) {
    const requisiteIds = requisitesOf.get(normalizeAccount(c.account));
    const outcome = outcomes[k];
    if (!requisiteIds) {
      settled.push({ ...c, status: 'unmatched', reason: 'unknown account', requisiteId: null, orderId: null, matchedBy: null, candidates: [] });
    } else if (!outcome.matched) {
      settled.push({ ...c, status: 'unmatched', reason: outcome.reason, requisiteId: requisiteIds[0], orderId: null, matchedBy: null, candidates: outcome.candidates });
    } else {
      const order = locked.get(outcome.orderId)!;
      const won = sameAmount.get(k)!.find((o) => o.id === order.id)!;
      winners.push({ order, creditId: c.id });
      settled.push({ ...c, status: 'matched', reason: null, requisiteId: won.requisite_id, orderId: order.id, matchedBy: outcome.by, candidates: [] });
    }
  }
  return { settled, winners };
}

/** PostgreSQL's deadlock and serialization failures: the transaction did nothing and may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);

/** Runs a transaction of its own, again when the database chose it as a deadlock's victim (at most 5 times). */
async function txWithRetry<T>(ctx: Ctx, fn: (q: Queryable) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.tx(fn);
    } catch (err) {
      if (attempt >= 5 || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
      ctx.log.info({ attempt, code: (err as { code?: string }).code }, 'credit transaction retried');
    }
  }
}

async function poolProvider(q: Queryable, id: string): Promise<ProviderRow> {
  const p = await getProvider(q, id);
  if (!p) throw new AppError('PROVIDER_NOT_FOUND', `no provider ${id}`);
  if (p.kind !== 'pool') throw new AppError('VALIDATION_ERROR', `provider ${id} is a ${p.kind} provider; credits are recorded for pool providers`);
  return p;
}

// ---- checks shared by the feed and the operator

/** A text field of a credit: a string of 1 to max characters (null allowed when `nullable`). */
function text(v: unknown, at: string, max: number, nullable: boolean): string | null {
  if ((v === null || v === undefined) && nullable) return null;
  if (typeof v !== 'string' || v.length === 0 || v.length > max) throw new AppError('VALIDATION_ERROR', `${at}: must be a string of 1 to ${max} characters${nullable ? ' or null' : ''}`);
  if (v.includes('\0')) throw new AppError('VALIDATION_ERROR', `${at}: must not contain NUL`);
  return v;
}

/** Amount, currency and arrival time of a credit as the feed and the operator send them. */
export function checkMoney(raw: { amount: unknown; currency: unknown; receivedAt: unknown }, at: string, nowMs: number): Pick<CreditInput, 'amount' | 'currency' | 'receivedAt' | 'dateOnly'> {
  if (typeof raw.amount !== 'string') throw new AppError('VALIDATION_ERROR', `${at}amount: must be a decimal string with at most 2 places, e.g. "918.00"`);
  const amount = positiveAmount(raw.amount, 2);
  if (!amount.ok) throw new AppError('VALIDATION_ERROR', `${at}amount: ${amount.why}; send a positive decimal string with at most 2 places, e.g. "918.00"`);
  if (typeof raw.currency !== 'string' || !/^[A-Z]{3}$/.test(raw.currency) || !isIsoCurrency(raw.currency)) {
    throw new AppError('VALIDATION_ERROR', `${at}currency: must be an ISO 4217 code`);
  }
  if (typeof raw.receivedAt !== 'string') throw new AppError('VALIDATION_ERROR', `${at}receivedAt: must be an ISO 8601 date-time with a zone`);
  const when = bookingDateTime(raw.receivedAt, 'refuse');
  if (!when.ok) throw new AppError('VALIDATION_ERROR', `${at}receivedAt: ${when.why}`);
  const receivedAt = new Date(when.value.receivedAt);
  if (receivedAt.getTime() > nowMs + FUTURE_SKEW_MS) throw new AppError('VALIDATION_ERROR', `${at}receivedAt: more than 5 minutes in the future`);
  return { amount: amount.value, currency: raw.currency, receivedAt, dateOnly: false };
}

// ---- the feed

const FEED_FIELDS = new Set(['transactionId', 'account', 'amount', 'currency', 'receivedAt', 'payer', 'reference']);

/** The feed's body, checked whole: one bad item refuses the request (nothing recorded). */
export function parseFeed(raw: Buffer, nowMs: number): CreditInput[] {
  let textBody: string;
  try {
    textBody = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'body is not valid UTF-8');
  }
  const parsed = parseStrictJson(textBody);
  if (!parsed.ok) throw new AppError('VALIDATION_ERROR', parsed.detail);
  const body = parsed.value;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new AppError('VALIDATION_ERROR', 'body must be a JSON object');
  const unknown = Object.keys(body).filter((k) => k !== 'credits');
  if (unknown.length) throw new AppError('VALIDATION_ERROR', `unknown property: ${unknown.slice(0, 10).join(', ')}`);
  const items = (body as { credits?: unknown }).credits;
  if (!Array.isArray(items) || items.length < 1 || items.length > FEED_MAX_ITEMS) {
    throw new AppError('VALIDATION_ERROR', `credits: must be an array of 1 to ${FEED_MAX_ITEMS} credits`);
  }
  return items.map((item, i) => {
    const at = `credits[${i}].`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new AppError('VALIDATION_ERROR', `credits[${i}]: must be an object`);
    const o = item as Record<string, unknown>;
    const extra = Object.keys(o).filter((k) => !FEED_FIELDS.has(k));
    if (extra.length) throw new AppError('VALIDATION_ERROR', `credits[${i}]: unknown property: ${extra.slice(0, 10).join(', ')}`);
    return {
      sourceId: text(o.transactionId, `${at}transactionId`, 255, false)!,
      account: text(o.account, `${at}account`, 255, false)!,
      ...checkMoney(o as { amount: unknown; currency: unknown; receivedAt: unknown }, at, nowMs),
      payer: text(o.payer, `${at}payer`, 255, true),
      reference: text(o.reference, `${at}reference`, 255, true),
    };
  });
}

/** An id that is no pool provider with credentials is checked against a throwaway key, so it fails exactly like a wrong signature. */
const DECOY = { key: `decoy_${randomBytes(16).toString('hex')}`, secret: randomBytes(32).toString('hex') };

export type FeedResult =
  | { ok: true; credits: { transactionId: string; creditId: string; status: store.CreditStatus; orderId: string | null; duplicate: boolean }[] }
  | { ok: false; code: 'AUTH_FAILED' | 'VALIDATION_ERROR'; detail: string };

/**
 * `POST /providers/v1/{providerId}/credits`: the signature over the raw bytes first (401 whatever
 * the body), then the whole body (400), then the credits, recorded and matched in order in one
 * transaction. A
 * credit already recorded answers `duplicate: true` with its current state; a retry of the whole
 * request is therefore safe.
 */
export async function receiveCreditFeed(ctx: Ctx, providerId: string, headers: Record<string, string | string[] | undefined>, raw: Buffer): Promise<FeedResult> {
  const provider = await getProvider(ctx.db, providerId);
  const creds = provider?.kind === 'pool' && provider.api_key !== null && provider.secret_enc !== null ? { key: provider.api_key, secret: ctx.box.open(provider.secret_enc) } : null;
  const verdict = verifySignedHeaders({ headers, rawBody: raw, expectedKey: creds?.key ?? DECOY.key, secret: creds?.secret ?? DECOY.secret, nowMs: ctx.clock.now() });
  if (!verdict.ok || !provider || !creds) {
    ctx.log.warn({ providerId, reason: verdict.ok ? 'not a pool provider with credentials' : verdict.reason }, 'credit feed refused');
    return { ok: false, code: 'AUTH_FAILED', detail: verdict.ok ? 'key or signature mismatch' : verdict.reason };
  }
  let items: CreditInput[];
  try {
    items = parseFeed(raw, ctx.clock.now());
  } catch (err) {
    if (err instanceof AppError) return { ok: false, code: 'VALIDATION_ERROR', detail: err.detail ?? 'bad body' };
    throw err;
  }
  // One transaction for the request: a retry after a failure records the same credits again, once.
  const recorded = await txWithRetry(ctx, (q) => recordCredits(q, ctx, provider.id, items, 'feed'));
  const out: Extract<FeedResult, { ok: true }>['credits'] = recorded.map(({ credit, duplicate }, i) => ({
    transactionId: items[i].sourceId, creditId: credit.id, status: credit.status, orderId: credit.order_id, duplicate,
  }));
  ctx.log.info({ providerId, eventId: verdict.eventId, credits: items.length, duplicates: out.filter((c) => c.duplicate).length }, 'credit feed received');
  return { ok: true, credits: out };
}

// ---- statements

export interface StatementSummary {
  entries: number;
  credits: number;
  duplicates: number;
  matched: number;
  unmatched: number;
  skipped: number;
}

const creditFromStatement = (c: StatementCredit): CreditInput => ({
  sourceId: c.sourceId,
  account: c.account,
  amount: c.amount,
  currency: c.currency,
  receivedAt: new Date(c.receivedAt),
  dateOnly: c.dateOnly,
  payer: c.payer,
  reference: c.reference,
});

/**
 * Reads the whole statement once, as it streams in, and writes its credits to a temporary file
 * (one JSON line each) instead of keeping them: memory holds a chunk of the file and a batch of
 * credits, whatever the file's size. Answers the file of credits with the counts, or the problem
 * that makes the body no statement (nothing is kept then).
 */
async function spoolStatement(body: StatementBody, kind: StatementKind): Promise<{ ok: true; totals: StatementTotals; dir: string; file: string } | { ok: false; problem: StatementProblem }> {
  const dir = await mkdtemp(join(tmpdir(), 'paygate-statement-'));
  const file = join(dir, 'credits.ndjson');
  const out = createWriteStream(file);
  const stream = openStatement(body, kind);
  try {
    for await (const credit of stream) if (!out.write(`${JSON.stringify(credit)}\n`)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
    return { ok: true, totals: stream.totals!, dir, file };
  } catch (err) {
    out.destroy();
    await rm(dir, { recursive: true, force: true });
    if (err instanceof StatementInvalidError) return { ok: false, problem: err.problem };
    throw err;
  }
}

/** The spooled credits back, `size` at a time, in file order. */
async function* batchesOf(file: string, size: number): AsyncGenerator<CreditInput[]> {
  let batch: CreditInput[] = [];
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line === '') continue;
    batch.push(creditFromStatement(JSON.parse(line) as StatementCredit));
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/**
 * `POST /admin/v1/providers/{id}/statements`: the file is read to its end first (as a stream, up
 * to 50 MiB, its credits spooled to a temporary file); one that is not a statement is refused
 * naming what is wrong and nothing is recorded. Then its credits are recorded and matched, a batch
 * to a transaction, and the upload audited with its summary.
 */
export async function importStatement(ctx: Ctx, providerId: string, contentType: string | undefined, body: StatementBody, actor: string): Promise<StatementSummary> {
  const provider = await poolProvider(ctx.db, providerId);
  const kind = statementKindOf(contentType);
  if (kind === null) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the statement as application/xml (camt.053, camt.054) or text/csv');
  const read = await spoolStatement(body, kind);
  if (!read.ok) {
    const refusal = read.problem.kind === 'too-large' ? new AppError('PAYLOAD_TOO_LARGE', 'a statement is at most 50 MiB') : new AppError('STATEMENT_INVALID', read.problem.message);
    // A refused file is in the audit trail too, like every refused operator action.
    await insertAuditEntry(ctx.db, { at: new Date(ctx.clock.now()), actor, action: 'provider.statement', objectId: provider.id, outcome: refusal.code, detail: refusal.detail });
    throw refusal;
  }
  const summary: StatementSummary = { entries: read.totals.entries, credits: read.totals.credits, duplicates: 0, matched: 0, unmatched: 0, skipped: read.totals.skipped };
  try {
    for await (const batch of batchesOf(read.file, STATEMENT_BATCH)) {
      const results = await txWithRetry(ctx, (q) => recordCredits(q, ctx, provider.id, batch, 'statement'));
      for (const r of results) {
        if (r.duplicate) summary.duplicates++;
        else if (r.credit.status === 'matched') summary.matched++;
        else summary.unmatched++;
      }
    }
  } finally {
    await rm(read.dir, { recursive: true, force: true });
  }
  await insertAuditEntry(ctx.db, {
    at: new Date(ctx.clock.now()),
    actor,
    action: 'provider.statement',
    objectId: provider.id,
    outcome: 'ok',
    detail: `${read.totals.format}: ${Object.entries(summary).map(([k, v]) => `${k} ${v}`).join(', ')}`,
  });
  return summary;
}

// ---- by hand

export interface OperatorCreditInput {
  providerId: string;
  account: string;
  amount: string;
  currency: string;
  receivedAt: string;
  payer?: string | null;
  reference?: string | null;
  sourceId?: string | null;
}

/** `POST /admin/v1/credits`: recorded and matched like any other; `created` false for a repeated source id. */
export async function createOperatorCredit(ctx: Ctx, input: OperatorCreditInput): Promise<{ credit: CreditView; created: boolean }> {
  return txWithRetry(ctx, async (q) => {
    const provider = await poolProvider(q, input.providerId);
    const credit: CreditInput = {
      sourceId: text(input.sourceId ?? `op_${randomId26()}`, 'sourceId', 255, false)!,
      account: text(input.account, 'account', 255, false)!,
      ...checkMoney(input, '', ctx.clock.now()),
      payer: text(input.payer, 'payer', 255, true),
      reference: text(input.reference, 'reference', 255, true),
    };
    const r = await recordCredit(q, ctx, provider.id, credit, 'operator');
    return { credit: creditView(r.credit), created: !r.duplicate };
  });
}

// ---- reading and working the queue

export async function getCreditView(ctx: Ctx, id: string): Promise<CreditView> {
  const c = await store.getCredit(ctx.db, id);
  if (!c) throw new AppError('CREDIT_NOT_FOUND', `no credit ${id}`);
  return creditView(c);
}

export async function listCreditViews(ctx: Ctx, query: { status?: string; providerId?: string; requisiteId?: string; before?: string; limit: number }) {
  let beforeSeq: number | null = null;
  if (query.before !== undefined) {
    const b = await store.getCredit(ctx.db, query.before);
    if (!b) throw new AppError('VALIDATION_ERROR', 'before: unknown credit id');
    beforeSeq = b.seq;
  }
  const rows = await store.listCredits(ctx.db, {
    status: (query.status as store.CreditStatus | undefined) ?? null,
    providerId: query.providerId ?? null,
    requisiteId: query.requisiteId ?? null,
    pastSeq: beforeSeq,
    oldestFirst: false,
    limit: query.limit + 1,
  });
  return pageOf(rows, query.limit, creditView, (c) => c.id);
}

async function lockCredit(q: Queryable, id: string): Promise<store.CreditRow> {
  const c = await store.getCredit(q, id, { forUpdate: true });
  if (!c) throw new AppError('CREDIT_NOT_FOUND', `no credit ${id}`);
  if (c.status === 'matched') throw new AppError('CREDIT_ALREADY_MATCHED', `credit ${id} already paid order ${c.order_id}`);
  return c;
}

/**
 * `POST /admin/v1/credits/{id}/match`: a person names the order an unmatched (or ignored) credit
 * pays. The order is confirmed as the confirm action does. An amount that differs is refused
 * unless `force`, which completes the order at its own amount, keeps the difference (credit less
 * order) on the credit and writes an audit entry saying so.
 */
export async function matchCreditByOperator(ctx: Ctx, id: string, input: { orderId: string; force?: boolean }, actor: string): Promise<CreditView> {
  return ctx.db.tx(async (q) => {
    const c = await lockCredit(q, id);
    const o = await getOrderById(q, input.orderId, { forUpdate: true });
    if (!o) throw new AppError('ORDER_NOT_FOUND', `no order ${input.orderId}`);
    if (o.status === 'Completed') throw new AppError('ORDER_ALREADY_COMPLETED', `order ${o.id} is already completed`);
    if (o.currency !== c.currency) throw new AppError('CURRENCY_MISMATCH', `the credit is in ${c.currency}, the order in ${o.currency}`);
    const difference = dec(c.amount).minus(o.amount);
    if (!difference.eq(0) && !input.force) {
      throw new AppError('AMOUNT_MISMATCH', `the credit is ${fmt2(c.amount)} ${c.currency}, the order ${fmt2(o.amount)} ${o.currency}; send force: true to complete the order at its own amount`);
    }
    const now = new Date(ctx.clock.now());
    await confirmInTx(q, ctx, o);
    const matched = await store.setCreditOutcome(
      q,
      c.id,
      { status: 'matched', reason: null, orderId: o.id, matchedBy: 'operator', candidates: [], difference: difference.eq(0) ? null : fmt2(difference) },
      now,
    );
    if (!difference.eq(0)) {
      await insertAuditEntry(q, {
        at: now,
        actor,
        action: 'credit.forceMatch',
        objectId: c.id,
        outcome: 'ok',
        detail: `order ${o.id} completed at its own amount ${fmt2(o.amount)} ${o.currency}; credit ${fmt2(c.amount)}; difference ${fmt2(difference)}`,
      });
    }
    return creditView(matched);
  });
}

/** `POST /admin/v1/credits/{id}/ignore`: the credit leaves the queue with the operator's reason. */
export async function ignoreCredit(ctx: Ctx, id: string, reason: string): Promise<CreditView> {
  return ctx.db.tx(async (q) => {
    const c = await lockCredit(q, id);
    const now = new Date(ctx.clock.now());
    return creditView(await store.setCreditOutcome(q, c.id, { status: 'ignored', reason, orderId: null, matchedBy: null, candidates: c.candidates }, now));
  });
}
