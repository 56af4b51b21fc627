/**
 * Credits (`crd_`): money seen arriving on a requisite's account, from the signed feed, a bank
 * statement or an operator. Each is recorded once per `(providerId, sourceId)` and, in the same
 * transaction, matched to the order it pays (matching.ts); a win confirms the order exactly as
 * `POST /admin/v1/orders/{id}/confirm` does (orderActions.ts `confirmInTx`), with an audit entry
 * by `matcher` naming the credit. Unmatched credits wait for a person to match or ignore them.
 */
import { randomBytes } from 'node:crypto';
import type { Decimal } from 'decimal.js';
import type { Ctx } from '../context.js';
import { isIsoCurrency } from '../domain/catalogue.js';
import { AppError } from '../domain/errors.js';
import { byKey } from '../domain/keys.js';
import { dec, fmt2 } from '../domain/money.js';
import { isoSeconds } from '../domain/time.js';
import { newHistoryId, randomId26 } from '../ids.js';
import { parseStrictJson } from '../json.js';
import { precheckSignedHeaders, verifySignedHeaders } from '../providers/providerMessages.js';
import { completeManyInTx } from '../services/completions.js';
import { confirmInTx } from '../services/orderActions.js';
import { pageOf } from '../services/paging.js';
import { insertAuditEntries, insertAuditEntry } from '../store/audit.js';
import type { Queryable } from '../store/db.js';
import { getOrderById, type OrderRow } from '../store/orders.js';
import { getProvider, type ProviderRow } from '../store/providers.js';
import { accountLookup, normalizeAccount } from '../domain/requisites.js';
import { CREATED_AFTER_MONEY_MS, matchCredit, NEAR_MAX, type CreditTerms, type MatchableOrder, type MatchOutcome } from './matching.js';
import { bookingDateTime, positiveAmount } from './statements/fields.js';
import type { StatementEntry } from './statements/types.js';
import * as statementStore from './statementStore.js';
import * as store from './store.js';
import { termsKey } from './store.js';

export const newCreditId = (atMs: number): string => newHistoryId('crd', atMs);

/** The feed takes 1 to 500 credits in one request of at most 1 MiB. */
export const FEED_MAX_ITEMS = 500;
export const FEED_MAX_BYTES = 1024 * 1024;
/** A credit cannot have arrived more than 5 minutes in the sender's future (clock skew). */
export const FUTURE_SKEW_MS = 5 * 60_000;

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
    bankReference: c.bank_reference,
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
  // A Canceled order closed at its cancel (or expiry); Completed ones are no candidates anyway.
  closedAt: r.status === 'Canceled' ? r.finished_at : null,
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

/** What became of one item or entry: the credit it is, and whether that credit was recorded before. */
export interface Recorded {
  credit: store.CreditRow;
  duplicate: boolean;
  /** The credit it repeats, when a duplicate. */
  duplicateOf: string | null;
  /** `TRANSACTION_ID_REUSED`: the id was sent before with other terms, so this is another payment. */
  warnings: string[];
}

/** Another transaction recorded one of the items since this one looked: run again (`txWithRetry`), it is a duplicate then. */
class RecordedMeanwhile extends Error {
  readonly code = '40001';
}

/** The UTC day of an instant, `YYYY-MM-DD`: the booking day of a credit's terms. */
const dayOf = (d: Date): string => d.toISOString().slice(0, 10);

/** The requisites an account names (null: none), those a masked one may be, and the key the credit's terms use for it. */
interface ResolvedAccount {
  requisiteIds: string[] | null;
  /** For a masked account that names no single requisite: the requisites it may be. */
  maybe: string[];
  key: string;
}

/**
 * Names each account's requisites as banks write accounts (domain/requisites.ts `accountLookup`):
 * by the keys it may be stored under, or, masked, by the one requisite whose account ends with its
 * digits. Its key in the credit's terms is the first of them (active first), so two writings of one
 * account are one; an account that names none keys by its written form.
 */
async function resolveAccounts(q: Queryable, providerId: string, accounts: readonly string[]): Promise<Map<string, ResolvedAccount>> {
  const distinct = [...new Set(accounts)];
  const lookups = new Map(distinct.map((a) => [a, accountLookup(a)]));
  const idsByKey = new Map<string, string[]>();
  for (const r of await store.requisitesByAccounts(q, providerId, [...new Set([...lookups.values()].flatMap((l) => l.keys))])) {
    idsByKey.set(r.account, [...(idsByKey.get(r.account) ?? []), r.requisite_id]);
  }
  const byTail = new Map<string, string[]>();
  for (const r of await store.requisitesByTails(q, providerId, [...new Set([...lookups.values()].flatMap((l) => (l.tail ? [l.tail] : [])))])) {
    byTail.set(r.tail, [...(byTail.get(r.tail) ?? []), r.requisite_id]);
  }
  return new Map(distinct.map((a) => {
    const l = lookups.get(a)!;
    const found = l.keys.map((k) => idsByKey.get(k)).find((ids) => ids !== undefined) ?? null;
    const tailed = l.tail ? (byTail.get(l.tail) ?? []) : [];
    const ids = found ?? (tailed.length === 1 ? tailed : null);
    return [a, { requisiteIds: ids, maybe: ids ? [] : tailed, key: ids ? ids[0] : `raw:${normalizeAccount(a)}` }];
  }));
}

/** A credit's terms as its identity compares them (the provider aside). */
interface Terms {
  accountKey: string;
  currency: string;
  amount: string;
  bookingDay: string;
}

/**
 * The terms of a list of items or entries locked, and the credits already recorded with each,
 * oldest first (see `store.creditsByTerms`): `known(t)` answers those of `t`'s terms. Each distinct
 * terms is looked up once, however many of the list share it.
 */
async function creditsOfTerms(
  q: Queryable, providerId: string, list: readonly Terms[], opts: { statementId: string | null; source: store.ItemSource | null },
): Promise<{ keyOf: (t: Terms) => string; known: (t: Terms) => store.TermsCreditRow[] }> {
  const keyOf = (t: Terms) => termsKey({ providerId, ...t });
  const distinct = new Map<string, { k: number } & Terms>();
  for (const t of list) {
    const key = keyOf(t);
    if (!distinct.has(key)) distinct.set(key, { k: distinct.size, accountKey: t.accountKey, currency: t.currency, amount: t.amount, bookingDay: t.bookingDay });
  }
  await store.lockTerms(q, [...distinct.keys()]);
  const byK = new Map<number, store.TermsCreditRow[]>();
  for (const c of await store.creditsByTerms(q, providerId, [...distinct.values()], opts)) byK.set(c.k, [...(byK.get(c.k) ?? []), c]);
  return { keyOf, known: (t) => byK.get(distinct.get(keyOf(t))!.k) ?? [] };
}

/** Two bank references can name the same money unless both are known and differ. */
const compatible = (a: string | null, b: string | null): boolean => a === null || b === null || a === b;

/**
 * Judges new credits (their orders locked), writes them with their outcomes and confirms the
 * orders they won, audited by the matcher with each credit: the rows written, in list order.
 */
async function writeNewCredits(q: Queryable, ctx: Ctx, fresh: store.NewCredit[], accounts: Map<string, ResolvedAccount>): Promise<store.CreditRow[]> {
  if (fresh.length === 0) return [];
  const { settled, winners } = await judgeCredits(q, ctx, fresh, accounts);
  const written = new Map((await store.insertCredits(q, settled)).map((c) => [c.id, c]));
  // Every won order confirmed at once, as the confirm action confirms one: the rows other
  // transactions wait for are taken last.
  const creditOf = new Map(winners.map((w) => [w.order.id, w.creditId]));
  await completeManyInTx(q, ctx, winners.map((w) => w.order).sort((a, b) => byKey(a.id, b.id)), {
    action: 'confirm', appealComment: 'payment confirmed', audit: { actor: 'matcher', detail: (o) => creditOf.get(o.id) ?? null },
  });
  if (winners.length) ctx.log.info({ matched: winners.length, credits: settled.length }, 'credits matched');
  return fresh.map((c) => written.get(c.id)!);
}

/**
 * Records items of the feed, a device or a person (each with its own id) and matches the new
 * credits, in the caller's transaction, in list order (reconciliation contract, credit identity):
 *  - the id sent before with the same terms (account, currency, amount, booking day) is a
 *    duplicate of the credit it made;
 *  - else the money a statement recorded with those terms that no item of this source names yet
 *    (earliest first, bank references not contradicting) is this item's money: found, not doubled;
 *  - else a new credit, with `TRANSACTION_ID_REUSED` when the id came before with other terms.
 * The terms are locked first, so a statement or another instance deciding the same money waits.
 */
export async function recordItems(q: Queryable, ctx: Ctx, providerId: string, inputs: CreditInput[], source: store.ItemSource): Promise<Recorded[]> {
  const at = new Date(ctx.clock.now());
  const accounts = await resolveAccounts(q, providerId, inputs.map((i) => i.account));
  const items = inputs.map((i) => ({ ...i, sourceId: i.sourceId!, accountKey: accounts.get(i.account)!.key, bookingDay: dayOf(i.receivedAt) }));
  const { keyOf, known } = await creditsOfTerms(q, providerId, items, { statementId: null, source });
  const sentBefore = await store.itemsByIds(q, providerId, source, items.map((i) => i.sourceId));

  type Decision = { kind: 'duplicate' | 'found'; creditId: string; reused: boolean } | { kind: 'new'; credit: store.NewCredit; reused: boolean };
  // id + terms → the first item of the list with them and its decision: the rows `credit_items` gains.
  const seen = new Map<string, { item: (typeof items)[number]; d: Decision }>();
  const idsSeen = new Set<string>();
  const claimed = new Set<string>();
  const decisions: Decision[] = items.map((item) => {
    const itemKey = `${item.sourceId}\u0000${keyOf(item)}`;
    const earlier = seen.get(itemKey)?.d;
    if (earlier) return { kind: 'duplicate', creditId: earlier.kind === 'new' ? earlier.credit.id : earlier.creditId, reused: false };
    const before = sentBefore.find((r) => r.source_id === item.sourceId && r.account_key === item.accountKey && r.currency === item.currency
      && dec(r.amount).eq(item.amount) && r.booking_day === item.bookingDay);
    const reused = !before && (idsSeen.has(item.sourceId) || sentBefore.some((r) => r.source_id === item.sourceId));
    idsSeen.add(item.sourceId);
    let d: Decision;
    if (before) d = { kind: 'duplicate', creditId: before.credit_id, reused: false };
    else {
      const statementMoney = known(item).find((c) => c.in_statement && !c.has_item_of_source && !claimed.has(c.id)
        && compatible(c.bank_reference, item.bankReference));
      if (statementMoney) {
        claimed.add(statementMoney.id);
        d = { kind: 'found', creditId: statementMoney.id, reused };
      } else {
        d = { kind: 'new', reused, credit: { ...item, id: newCreditId(at.getTime()), providerId, source, at, statementId: null } };
      }
    }
    seen.set(itemKey, { item, d });
    return d;
  });

  const fresh = decisions.flatMap((d) => (d.kind === 'new' ? [d.credit] : []));
  const written = await writeNewCredits(q, ctx, fresh, accounts);
  // Each id with its terms is recorded once: for a new credit and for money a statement had found.
  const itemRows = [...seen.values()].flatMap(({ item, d }) =>
    d.kind === 'duplicate'
      ? []
      : [{ providerId, source, sourceId: item.sourceId, accountKey: item.accountKey, currency: item.currency, amount: item.amount, bookingDay: item.bookingDay,
          creditId: d.kind === 'new' ? d.credit.id : d.creditId, at }],
  );
  if ((await store.insertItems(q, itemRows)) !== itemRows.length) throw new RecordedMeanwhile('an item of the list was recorded by another transaction meanwhile');
  const rows = new Map(written.map((c) => [c.id, c]));
  for (const c of await store.creditsByIds(q, decisions.flatMap((d) => (d.kind === 'new' ? [] : [d.creditId])))) rows.set(c.id, c);
  return decisions.map((d) => {
    const creditId = d.kind === 'new' ? d.credit.id : d.creditId;
    return {
      credit: rows.get(creditId)!,
      duplicate: d.kind !== 'new',
      duplicateOf: d.kind === 'new' ? null : creditId,
      warnings: d.reused ? ['TRANSACTION_ID_REUSED'] : [],
    };
  });
}

/** Records one item and matches it, in the caller's transaction (see `recordItems`). */
export async function recordItem(q: Queryable, ctx: Ctx, providerId: string, input: CreditInput, source: store.ItemSource): Promise<Recorded> {
  return (await recordItems(q, ctx, providerId, [input], source))[0];
}

/** What a statement entry became. */
export interface EntryOutcome {
  index: number;
  outcome: 'new' | 'duplicate' | 'skipped' | 'unreadable';
  credit: store.CreditRow | null;
}

/**
 * Records a batch of a statement's entries, in the caller's transaction (reconciliation contract,
 * credit identity). Each readable credit entry is the same money as
 *  (a) a credit an entry of an earlier statement evidences, with the same terms and the same
 *      bank reference (or neither having one); a credit recorded before statements were kept
 *      stands for any reference, once;
 *  (b) else a credit of the same terms from the feed, a device or a person that no statement
 *      evidences yet, earliest first, bank references not contradicting;
 *  (c) else a new credit, matched like any other.
 * A credit is evidenced by at most one entry of a statement, so two equal payments in one file are
 * two credits. Debits and the rest are kept as `skipped`, unreadable entries as `unreadable`.
 */
export async function recordStatementEntries(q: Queryable, ctx: Ctx, providerId: string, statementId: string, entries: readonly StatementEntry[]): Promise<EntryOutcome[]> {
  const at = new Date(ctx.clock.now());
  const credits = entries.filter((e) => e.kind === 'credit' && e.problem === null) as (StatementEntry & { account: string; amount: string; currency: string; receivedAt: string })[];
  const accounts = await resolveAccounts(q, providerId, credits.map((e) => e.account));
  const terms = credits.map((e) => ({ e, accountKey: accounts.get(e.account)!.key, currency: e.currency, amount: e.amount, bookingDay: e.receivedAt.slice(0, 10) }));
  const { known } = await creditsOfTerms(q, providerId, terms, { statementId, source: null });
  const claimed = new Set(terms.flatMap((t) => known(t)).filter((c) => c.in_this_statement).map((c) => c.id));

  const fresh: store.NewCredit[] = [];
  const found: { creditId: string; bankReference: string | null }[] = [];
  const creditOf = new Map<number, { id: string; outcome: 'new' | 'duplicate' }>();
  for (const t of terms) {
    const { e } = t;
    const cands = known(t);
    const same =
      cands.find((c) => c.in_statement && !claimed.has(c.id) && (c.legacy_statement || c.entry_refs.some((r) => r === e.bankReference))) ??
      cands.find((c) => !c.in_statement && !claimed.has(c.id) && compatible(c.bank_reference, e.bankReference));
    if (same) {
      claimed.add(same.id);
      found.push({ creditId: same.id, bankReference: e.bankReference });
      creditOf.set(e.index, { id: same.id, outcome: 'duplicate' });
      continue;
    }
    const id = newCreditId(at.getTime());
    fresh.push({
      id, providerId, source: 'statement', at, statementId, accountKey: t.accountKey, bookingDay: t.bookingDay,
      sourceId: e.sourceId, account: e.account, amount: e.amount, currency: e.currency, receivedAt: new Date(e.receivedAt), dateOnly: e.dateOnly,
      payer: e.payer, reference: e.reference, bankReference: e.bankReference,
    });
    creditOf.set(e.index, { id, outcome: 'new' });
  }
  const written = await writeNewCredits(q, ctx, fresh, accounts);
  await store.markInStatement(q, found, at);
  const rows = new Map(written.map((c) => [c.id, c]));
  for (const c of await store.creditsByIds(q, found.map((f) => f.creditId))) rows.set(c.id, c);
  const outcomes: EntryOutcome[] = entries.map((e) => {
    if (e.problem !== null) return { index: e.index, outcome: 'unreadable', credit: null };
    const c = creditOf.get(e.index);
    if (!c) return { index: e.index, outcome: 'skipped', credit: null };
    return { index: e.index, outcome: c.outcome, credit: rows.get(c.id)! };
  });
  await statementStore.insertEntries(q, statementId, entries, outcomes);
  return outcomes;
}

/**
 * The outcome of each new credit, in list order, inside its transaction, and the orders they win,
 * locked: what `writeNewCredits` writes.
 */
async function judgeCredits(
  q: Queryable, ctx: Ctx, credits: store.NewCredit[], accounts: Map<string, ResolvedAccount>,
): Promise<{ settled: store.SettledCredit[]; winners: { order: OrderRow; creditId: string }[] }> {
  if (credits.length === 0) return { settled: [], winners: [] };
  const late = lateMs(ctx);
  const terms = credits.map(termsOf);
  const probes: store.OrderProbe[] = [];
  credits.forEach((c, k) => {
    const requisiteIds = accounts.get(c.account)?.requisiteIds;
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
    const requisiteIds = accounts.get(c.account)?.requisiteIds;
    const outcome = outcomes[k];
    if (!requisiteIds) {
      // A masked account that more than one requisite ends with: those requisites are for a person to look at.
      settled.push({ ...c, status: 'unmatched', reason: 'unknown account', requisiteId: null, orderId: null, matchedBy: null, candidates: accounts.get(c.account)?.maybe ?? [] });
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
export async function txWithRetry<T>(ctx: Ctx, fn: (q: Queryable) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.tx(fn);
    } catch (err) {
      if (attempt >= 5 || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
      ctx.log.info({ attempt, code: (err as { code?: string }).code }, 'credit transaction retried');
    }
  }
}

export async function poolProvider(q: Queryable, id: string): Promise<ProviderRow> {
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

const FEED_FIELDS = new Set(['transactionId', 'account', 'amount', 'currency', 'receivedAt', 'payer', 'reference', 'bankReference']);

/**
 * A signed provider body `{"<key>": [1 to max items]}` (the feed's credits, a phone's messages):
 * UTF-8, strict JSON, an object with that one key. Returns the items, each still to be checked.
 */
export function parseItemList(raw: Buffer, key: string, max: number): unknown[] {
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
  const unknown = Object.keys(body).filter((k) => k !== key);
  if (unknown.length) throw new AppError('VALIDATION_ERROR', `unknown property: ${unknown.slice(0, 10).join(', ')}`);
  const items = (body as Record<string, unknown>)[key];
  if (!Array.isArray(items) || items.length < 1 || items.length > max) {
    throw new AppError('VALIDATION_ERROR', `${key}: must be an array of 1 to ${max} ${key}`);
  }
  return items;
}

/** The feed's body, checked whole: one bad item refuses the request (nothing recorded). */
export function parseFeed(raw: Buffer, nowMs: number): CreditInput[] {
  return parseItemList(raw, 'credits', FEED_MAX_ITEMS).map((item, i) => {
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
      bankReference: text(o.bankReference, `${at}bankReference`, 255, true),
    };
  });
}

/** An id that is no pool provider with credentials is checked against a throwaway key, so it fails exactly like a wrong signature. */
const DECOY = { key: `decoy_${randomBytes(16).toString('hex')}`, secret: randomBytes(32).toString('hex') };

export type FeedResult =
  | {
      ok: true;
      credits: { transactionId: string; creditId: string; status: store.CreditStatus; orderId: string | null; duplicate: boolean; duplicateOf: string | null; warnings: string[] }[];
    }
  | { ok: false; code: 'AUTH_FAILED' | 'VALIDATION_ERROR'; detail: string };

/**
 * The feed's headers checked before its body is read: the provider a pool with credentials, the
 * key its key, the time within the skew. An unknown provider fails exactly like a wrong key.
 */
export async function precheckCreditFeed(ctx: Ctx, providerId: string, headers: Record<string, string | string[] | undefined>): Promise<{ ok: true } | { ok: false; detail: string }> {
  const provider = await getProvider(ctx.db, providerId);
  const key = provider?.kind === 'pool' && provider.api_key !== null && provider.secret_enc !== null ? provider.api_key : DECOY.key;
  const verdict = precheckSignedHeaders({ headers, expectedKey: key, nowMs: ctx.clock.now() });
  if (!verdict.ok) {
    ctx.log.warn({ providerId, reason: verdict.reason }, 'credit feed refused before its body');
    return { ok: false, detail: verdict.reason };
  }
  if (key === DECOY.key) return { ok: false, detail: 'key or signature mismatch' };
  return { ok: true };
}

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
  const recorded = await txWithRetry(ctx, (q) => recordItems(q, ctx, provider.id, items, 'feed'));
  const out: Extract<FeedResult, { ok: true }>['credits'] = recorded.map(({ credit, duplicate, duplicateOf, warnings }, i) => ({
    transactionId: items[i].sourceId!, creditId: credit.id, status: credit.status, orderId: credit.order_id, duplicate, duplicateOf, warnings,
  }));
  ctx.log.info({ providerId, eventId: verdict.eventId, credits: items.length, duplicates: out.filter((c) => c.duplicate).length }, 'credit feed received');
  return { ok: true, credits: out };
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
  bankReference?: string | null;
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
      bankReference: text(input.bankReference, 'bankReference', 255, true),
    };
    const r = await recordItem(q, ctx, provider.id, credit, 'operator');
    return { credit: creditView(r.credit), created: !r.duplicate };
  });
}

// ---- reading and working the queue

/** A credit with the statement entries that evidence it, oldest statement first. */
export async function getCreditView(ctx: Ctx, id: string): Promise<CreditView & { statementEntries: { statementId: string; index: number; outcome: string; bankReference: string | null }[] }> {
  const c = await store.getCredit(ctx.db, id);
  if (!c) throw new AppError('CREDIT_NOT_FOUND', `no credit ${id}`);
  const entries = await statementStore.entriesOfCredit(ctx.db, c.id);
  return { ...creditView(c), statementEntries: entries.map((e) => ({ statementId: e.statement_id, index: e.idx, outcome: e.outcome, bankReference: e.bank_reference })) };
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
 * pays. The order is confirmed as the confirm action does. An amount that differs, or an order
 * given another requisite, is refused unless `force`; a forced match of another amount completes
 * the order for the money that arrived (`paidAmount`), keeps the difference (credit less order) on
 * the credit and writes an audit entry saying so. A sandbox order is never paid with real money.
 */
export async function matchCreditByOperator(ctx: Ctx, id: string, input: { orderId: string; force?: boolean }, actor: string): Promise<CreditView> {
  return ctx.db.tx(async (q) => {
    const c = await lockCredit(q, id);
    const o = await getOrderById(q, input.orderId, { forUpdate: true });
    if (!o) throw new AppError('ORDER_NOT_FOUND', `no order ${input.orderId}`);
    if (o.status === 'Completed') throw new AppError('ORDER_ALREADY_COMPLETED', `order ${o.id} is already completed`);
    // Live money pays live orders only.
    if (o.sandbox) throw new AppError('SANDBOX_ORDER', `order ${o.id} is a sandbox order; a credit is real money and pays live orders only`);
    if (o.currency !== c.currency) throw new AppError('CURRENCY_MISMATCH', `the credit is in ${c.currency}, the order in ${o.currency}`);
    const difference = dec(c.amount).minus(o.amount);
    if (!difference.eq(0) && !input.force) {
      throw new AppError('AMOUNT_MISMATCH', `the credit is ${fmt2(c.amount)} ${c.currency}, the order ${fmt2(o.amount)} ${o.currency}; send force: true to complete the order for the money that arrived`);
    }
    const orderRequisite = await store.requisiteOfOrder(q, o.id);
    if (c.requisite_id !== null && orderRequisite !== c.requisite_id && !input.force) {
      throw new AppError('REQUISITE_MISMATCH', `the credit arrived on requisite ${c.requisite_id}, the order was given ${orderRequisite ?? 'no requisite'}; send force: true to match them all the same`);
    }
    const now = new Date(ctx.clock.now());
    // A forced match of another amount completes the order for the money that arrived.
    await confirmInTx(q, ctx, o, difference.eq(0) ? null : fmt2(c.amount));
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
        detail: `order ${o.id} of ${fmt2(o.amount)} ${o.currency} completed for the money that arrived, ${fmt2(c.amount)} ${c.currency}; difference ${fmt2(difference)}`,
      });
    }
    return creditView(matched);
  });
}

/** `POST /admin/v1/credits/ignore`: many unmatched credits leave the queue at once, with one reason. */
export async function ignoreCredits(ctx: Ctx, ids: string[], reason: string, actor: string): Promise<{ ignored: string[]; notIgnored: string[] }> {
  const at = new Date(ctx.clock.now());
  // Each credit ignored is audited as the single action audits it, in the transaction that ignores it.
  const ignored = await ctx.db.tx(async (q) => {
    const done = await store.ignoreUnmatched(q, ids, reason, at);
    await insertAuditEntries(q, done.map((id) => ({ at, actor, action: 'credit.ignore', objectId: id, outcome: 'ok', detail: reason })));
    return done;
  });
  const done = new Set(ignored);
  return { ignored: ids.filter((id, i) => done.has(id) && ids.indexOf(id) === i), notIgnored: [...new Set(ids.filter((id) => !done.has(id)))] };
}

/** `POST /admin/v1/credits/{id}/ignore`: the credit leaves the queue with the operator's reason. */
export async function ignoreCredit(ctx: Ctx, id: string, reason: string): Promise<CreditView> {
  return ctx.db.tx(async (q) => {
    const c = await lockCredit(q, id);
    const now = new Date(ctx.clock.now());
    return creditView(await store.setCreditOutcome(q, c.id, { status: 'ignored', reason, orderId: null, matchedBy: null, candidates: c.candidates }, now));
  });
}
