import { Decimal } from 'decimal.js';
import { dec, settle } from '../../../src/domain/money.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireDueOrders } from '../../../src/services/orderActions.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { card, credit, feed, getOrder, nextTxn, placed, pools, sendCredit, type Pool } from './helpers.js';

/**
 * Credits and matching (reconciliation contract, "Credits" and "Matching"): the signed feed, the
 * operator's credits, the queue's match and ignore, and every outcome of matching with the effects
 * of a confirmation.
 */

let h: Harness;
let desk: DeskCreds;
let pool: ReturnType<typeof pools>;

beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
  desk = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true } });
  pool = pools(h);
});
afterAll(() => h.close());

const balance = async () => json(await admin(h.app, 'GET', `/merchants/${desk.merchantId}`)).result.balance.available;
const events = async (orderId: string) => (await h.ctx.db.query<{ event: string }>('SELECT event FROM outbox_events WHERE order_id = $1 ORDER BY seq', [orderId])).rows.map((r) => r.event);
const audit = async (objectId: string) => json(await admin(h.app, 'GET', `/audit?objectId=${objectId}`)).result.items;
const ledger = async (orderId: string) => (await h.ctx.db.query<{ kind: string }>('SELECT kind FROM ledger_entries WHERE order_id = $1', [orderId])).rows;
const minutes = (n: number) => n * 60_000;
const at = (ms: number) => new Date(ms).toISOString();

describe('the feed: POST /providers/v1/{providerId}/credits', () => {
  let p: Pool;
  beforeAll(async () => {
    p = await pool([{ card: card(1), holder: 'A' }, { phone: '+7 900 111-22-33', holder: 'B' }]);
  });

  it('a credit of an open order\'s amount on its requisite completes it: credited, order.completed, audited by matcher', async () => {
    const before = await balance();
    const o = await placed(h, desk, 918);
    const item = credit(h, '2200150000000001', '918.00');
    const res = await feed(h, p, { credits: [item] });
    expect(res.statusCode, res.body).toBe(200);
    const [r] = json(res).result.credits;
    expect(r).toMatchObject({ transactionId: item.transactionId, status: 'matched', orderId: o.id, duplicate: false });
    expect(r.creditId).toMatch(/^crd_[0-9a-z]{26}$/);
    const c = json(await admin(h.app, 'GET', `/credits/${r.creditId}`)).result;
    expect(c).toEqual({
      id: r.creditId,
      providerId: p.id,
      requisiteId: p.requisites[0].id,
      account: '2200150000000001',
      amount: '918.00',
      currency: 'RUB',
      receivedAt: '2026-01-15T12:00:00Z',
      payer: 'IVAN I.',
      reference: null,
      bankReference: null,
      source: 'feed',
      sourceId: item.transactionId,
      status: 'matched',
      reason: null,
      orderId: o.id,
      matchedBy: 'amount',
      candidates: [],
      difference: null,
      createdAt: '2026-01-15T12:00:00Z',
      statementEntries: [],
    });
    const done = await getOrder(h, o.id);
    expect(done.status).toBe('Completed');
    expect(Number(await balance())).toBeCloseTo(Number(before) + 10, 6);
    expect(await events(o.id)).toEqual(['order.completed']);
    const entries = await audit(o.id);
    expect(entries[0]).toMatchObject({ actor: 'matcher', action: 'order.confirm', outcome: 'ok', detail: r.creditId });
    const view = json(await admin(h.app, 'GET', `/providers/${p.id}/requisites`)).result[0];
    expect(view).toMatchObject({ receivedToday: '918.00', openOrders: 0 });
  });

  it('is idempotent by transactionId and terms: a repeat answers the recorded credit with duplicate: true and changes nothing; other terms are another payment', async () => {
    const o = await placed(h, desk, 919);
    const item = credit(h, o.payment.card ?? o.payment.phone, '919.00');
    const first = json(await feed(h, p, { credits: [item] })).result.credits[0];
    const again = await feed(h, p, { credits: [item, { ...item, amount: '1.00' }] });
    expect(again.statusCode).toBe(200);
    const [repeat, reused] = json(again).result.credits;
    expect(repeat).toEqual({ ...first, duplicate: true, duplicateOf: first.creditId });
    expect(reused).toMatchObject({ transactionId: item.transactionId, status: 'unmatched', orderId: null, duplicate: false, duplicateOf: null, warnings: ['TRANSACTION_ID_REUSED'] });
    expect(reused.creditId).not.toBe(first.creditId);
    expect(await ledger(o.id)).toHaveLength(1);
    const { rows } = await h.ctx.db.query('SELECT amount FROM credits WHERE source_id = $1 ORDER BY amount', [item.transactionId]);
    expect(rows.map((r: any) => r.amount)).toEqual(['1.00', '919.00']);
  });

  it('a transactionId twice in one request is one credit: the first is recorded and matched, the second answers it as a duplicate', async () => {
    const o = await placed(h, desk, 923);
    const item = credit(h, o.payment.card ?? o.payment.phone, '923.00');
    const res = await feed(h, p, { credits: [item, { ...item }] });
    expect(res.statusCode, res.body).toBe(200);
    const [first, second] = json(res).result.credits;
    expect(first).toMatchObject({ transactionId: item.transactionId, status: 'matched', orderId: o.id, duplicate: false });
    expect(second).toEqual({ ...first, duplicate: true, duplicateOf: first.creditId });
    const { rows } = await h.ctx.db.query<{ amount: string }>('SELECT amount FROM credits WHERE source_id = $1', [item.transactionId]);
    expect(rows.map((r) => r.amount)).toEqual(['923.00']);
    expect(await ledger(o.id)).toHaveLength(1);
  });

  it('compares accounts without spaces, dashes and letter case; answers items in order', async () => {
    const phoneOnly = await pool([{ phone: '+7 900 111-22-33', holder: 'B' }]);
    const a = await placed(h, desk, 501, { rail: 'Sbp' });
    expect(a.payment.phone).toBe('+7 900 111-22-33');
    const unknown = credit(h, '9999', '501.00');
    const known = credit(h, '+79001112233', '501.00');
    const res = json(await feed(h, phoneOnly, { credits: [unknown, known] })).result.credits;
    expect(res.map((r: any) => [r.transactionId, r.status])).toEqual([[unknown.transactionId, 'unmatched'], [known.transactionId, 'matched']]);
    const u = json(await admin(h.app, 'GET', `/credits/${res[0].creditId}`)).result;
    expect(u).toMatchObject({ status: 'unmatched', reason: 'unknown account', requisiteId: null, orderId: null, candidates: [] });
  });

  it('refuses a bad body whole with 400 VALIDATION_ERROR and records nothing', async () => {
    const ok = credit(h, card(1), '10.00');
    const cases: [unknown, RegExp][] = [
      [{ credits: [] }, /credits: must be an array of 1 to 500/],
      [{ credits: Array.from({ length: 501 }, () => ok) }, /credits: must be an array of 1 to 500/],
      [{ credits: [ok, { ...ok, transactionId: nextTxn(), amount: '10.001' }] }, /^credits\[1\]\.amount/],
      [{ credits: [{ ...ok, amount: 10 }] }, /^credits\[0\]\.amount/],
      [{ credits: [{ ...ok, amount: '0.00' }] }, /^credits\[0\]\.amount: "0.00" is not positive/],
      [{ credits: [{ ...ok, amount: '-5' }] }, /^credits\[0\]\.amount/],
      [{ credits: [{ ...ok, currency: 'rub' }] }, /^credits\[0\]\.currency/],
      [{ credits: [{ ...ok, currency: 'XYZ' }] }, /^credits\[0\]\.currency/],
      [{ credits: [{ ...ok, receivedAt: '2026-01-15T12:00:00' }] }, /^credits\[0\]\.receivedAt: .*no time zone/],
      [{ credits: [{ ...ok, receivedAt: 'yesterday' }] }, /^credits\[0\]\.receivedAt/],
      [{ credits: [{ ...ok, receivedAt: at(h.clock.now() + minutes(5) + 1000) }] }, /^credits\[0\]\.receivedAt: more than 5 minutes in the future/],
      [{ credits: [{ ...ok, account: '' }] }, /^credits\[0\]\.account/],
      [{ credits: [{ ...ok, transactionId: undefined }] }, /^credits\[0\]\.transactionId/],
      [{ credits: [{ ...ok, colour: 'red' }] }, /^credits\[0\]: unknown property: colour/],
      [{ credits: [ok], extra: 1 }, /unknown property: extra/],
      [{ credits: 'all' }, /credits: must be an array/],
      [[ok], /body must be a JSON object/],
    ];
    for (const [body, detail] of cases) {
      const res = await feed(h, p, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(json(res).fault.code).toBe('VALIDATION_ERROR');
      expect(json(res).fault.detail, JSON.stringify(body).slice(0, 200)).toMatch(detail);
    }
    expect((await feed(h, p, null, { raw: '{"credits": [' })).statusCode).toBe(400);
    expect((await feed(h, p, null, { raw: '{"credits":[],"credits":[]}' })).statusCode).toBe(400);
    // 5 minutes ahead is still fine (clock skew).
    const edge = await feed(h, p, { credits: [{ ...ok, transactionId: nextTxn(), receivedAt: at(h.clock.now() + minutes(5)) }] });
    expect(edge.statusCode, edge.body).toBe(200);
    const { rows } = await h.ctx.db.query('SELECT id FROM credits WHERE source_id = $1', [ok.transactionId]);
    expect(rows).toHaveLength(0);
  });

  it('authenticates like the provider events: 401 for a wrong secret, stale timestamp, missing header, unknown or non-pool provider', async () => {
    const body = { credits: [credit(h, card(1), '10.00')] };
    const res = [
      await feed(h, p, body, { secret: 'wrong-secret' }),
      await feed(h, p, body, { ts: Math.floor(h.clock.now() / 1000) - 301 }),
      await feed(h, { ...p, id: 'prv_unknown' }, body),
      await feed(h, { ...p, id: 'prv_sandbox' }, body),
      await h.app.inject({ method: 'POST', url: `/providers/v1/${p.id}/credits`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) }),
    ];
    for (const r of res) {
      expect(r.statusCode, r.body).toBe(401);
      expect(json(r).fault.code).toBe('AUTH_FAILED');
    }
    // An unsigned body is judged by its signature only, whatever it holds.
    const garbage = await h.app.inject({ method: 'POST', url: `/providers/v1/${p.id}/credits`, headers: { 'content-type': 'application/json' }, payload: '{"credits":5}' });
    expect(garbage.statusCode).toBe(401);
    const { rows } = await h.ctx.db.query('SELECT id FROM credits WHERE source_id = $1', [body.credits[0].transactionId]);
    expect(rows).toHaveLength(0);
  });

  it('takes JSON only (415) and at most 1 MiB (413); a body of nearly 1 MiB is read whole', async () => {
    const body = { credits: [credit(h, card(1), '10.00')] };
    expect((await feed(h, p, body, { contentType: 'text/plain' })).statusCode).toBe(415);
    const big = JSON.stringify({ credits: [credit(h, card(1), '10.00', { payer: 'x'.repeat(200) })] }) + ' '.repeat(1024 * 1024);
    const tooBig = await feed(h, p, null, { raw: big });
    expect(tooBig.statusCode).toBe(413);
    expect(json(tooBig).fault.code).toBe('PAYLOAD_TOO_LARGE');
    // 500 credits with long fields: past the 64 KiB of other bodies, under 1 MiB.
    const many = { credits: Array.from({ length: 500 }, () => credit(h, `acct-${'9'.repeat(200)}`, '1.00', { payer: 'p'.repeat(200), reference: 'r'.repeat(200) })) };
    const raw = JSON.stringify(many);
    expect(raw.length).toBeGreaterThan(64 * 1024);
    expect(raw.length).toBeLessThan(1024 * 1024);
    const res = await feed(h, p, many);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(json(res).result.credits).toHaveLength(500);
  });
});

describe('matching', () => {
  it('a late payment completes the cancelled order (Canceled → Completed) within RECONCILE_LATE_HOURS', async () => {
    const p = await pool([{ card: card(2) }]);
    const o = await placed(h, desk, 1200);
    h.clock.advance(minutes(16));
    await expireDueOrders(h.ctx, 100);
    expect((await getOrder(h, o.id)).status).toBe('Canceled');
    h.clock.advance(minutes(60));
    const c = await sendCredit(h, p, credit(h, card(2), '1200.00'));
    expect(c).toMatchObject({ status: 'matched', orderId: o.id, matchedBy: 'amount' });
    expect((await getOrder(h, o.id)).status).toBe('Completed');
    expect(await events(o.id)).toEqual(['order.cancelled', 'order.completed']);
  });

  it('after RECONCILE_LATE_HOURS the expired order is no candidate: no order', async () => {
    const p = await pool([{ card: card(3) }]);
    const o = await placed(h, desk, 1300);
    const expiresAt = Date.parse(o.expiresAt);
    h.clock.advance(73 * 3600_000);
    const c = await sendCredit(h, p, credit(h, card(3), '1300.00', { receivedAt: at(expiresAt + 72 * 3600_000 + 1000) }));
    expect(c).toMatchObject({ status: 'unmatched', reason: 'no order', candidates: [] });
    const inTime = await sendCredit(h, p, credit(h, card(3), '1300.00', { receivedAt: at(expiresAt + 72 * 3600_000) }));
    expect(inTime).toMatchObject({ status: 'matched', orderId: o.id });
  });

  it('money that arrived more than 5 minutes before the order was created does not pay it', async () => {
    const p = await pool([{ card: card(4) }]);
    const o = await placed(h, desk, 1400);
    const early = await sendCredit(h, p, credit(h, card(4), '1400.00', { receivedAt: at(Date.parse(o.createdAt) - minutes(5) - 1000) }));
    expect(early).toMatchObject({ status: 'unmatched', reason: 'no order' });
    const justBefore = await sendCredit(h, p, credit(h, card(4), '1400.00', { receivedAt: at(Date.parse(o.createdAt) - minutes(5)) }));
    expect(justBefore).toMatchObject({ status: 'matched', orderId: o.id, matchedBy: 'amount' });
  });

  it('a Dispute order completes with its appeal Accepted', async () => {
    const p = await pool([{ card: card(5) }]);
    const o = await placed(h, desk, 1500);
    h.clock.advance(minutes(16));
    await expireDueOrders(h.ctx, 100);
    const appeal = json(await signed(h, desk, '/gw/v1/appeals', { body: JSON.stringify({ orderId: o.id, reason: 'paid' }) })).result;
    expect((await getOrder(h, o.id)).status).toBe('Dispute');
    const c = await sendCredit(h, p, credit(h, card(5), '1500.00', { receivedAt: at(Date.parse(o.createdAt) + minutes(3)) }));
    expect(c).toMatchObject({ status: 'matched', orderId: o.id });
    expect((await getOrder(h, o.id)).status).toBe('Completed');
    expect(json(await admin(h.app, 'GET', `/appeals/${appeal.id}`)).result.status).toBe('Accepted');
  });

  it('one request confirming several orders has the effects of confirming each alone: fees, ledger, balances, counters, events, appeals, audit', async () => {
    const tariff = json(await admin(h.app, 'POST', '/tariffs', { name: 'Batch 2.5', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '2.5' }] })).result;
    const other = await provisionDesk(h.app, { merchant: { name: 'Live with fee', approve: true }, desk: { tariffId: tariff.id } });
    const p = await pool([{ card: card(20) }, { card: card(21) }]);
    // A Canceled order and a disputed one first, then two open ones.
    const canceled = await placed(h, desk, 1030);
    const disputed = await placed(h, other, 1040);
    h.clock.advance(minutes(16));
    await expireDueOrders(h.ctx, 100);
    const appeal = json(await signed(h, other, '/gw/v1/appeals', { body: JSON.stringify({ orderId: disputed.id, reason: 'paid' }) })).result;
    const open = await placed(h, desk, 1010);
    const withFee = await placed(h, other, 1020);
    // The twin of `withFee`, confirmed alone by an operator: what a confirmation does.
    const twin = await placed(h, other, 1020);
    expect((await admin(h.app, 'POST', `/orders/${twin.id}/confirm`)).statusCode).toBe(200);
    const money = async (merchantId: string) => new Decimal(json(await admin(h.app, 'GET', `/merchants/${merchantId}`)).result.balance.available);
    const counter = async (scope: string, id: string) =>
      new Decimal((await h.ctx.db.query<{ s: string }>(`SELECT COALESCE(sum(completed_usd), 0)::text AS s FROM turnover_counters WHERE scope = $1 AND scope_id = $2 AND win = 'day'`, [scope, id])).rows[0].s);
    const before = { m1: await money(desk.merchantId), m2: await money(other.merchantId), d1: await counter('desk', desk.id), d2: await counter('desk', other.id), pl: await counter('platform', '') };

    const batch = [open, withFee, canceled, disputed];
    const items = batch.map((o) => credit(h, o.payment.card, o.amount));
    const res = await feed(h, p, { credits: items });
    expect(res.statusCode, res.body).toBe(200);
    const answers = json(res).result.credits;
    expect(answers.map((a: any) => [a.status, a.orderId])).toEqual(batch.map((o) => ['matched', o.id]));

    const after = await Promise.all(batch.map((o) => getOrder(h, o.id)));
    expect(after.map((o) => [o.status, o.subStatus])).toEqual(batch.map(() => ['Completed', 'SuccessfullyPaid']));
    const alone = await getOrder(h, twin.id);
    const done = after[1];
    expect({ commission: done.commission, credited: done.credited }).toEqual({ commission: alone.commission, credited: alone.credited });
    expect(done.commission.rate).toBe('2.5000');
    expect(after[0].commission.amount).toBe('0.00000000');
    const entries = async (id: string) => (await h.ctx.db.query('SELECT kind, amount::text, reason, sandbox FROM ledger_entries WHERE order_id = $1', [id])).rows;
    expect(await entries(withFee.id)).toEqual(await entries(twin.id));
    for (const o of after) expect(await entries(o.id)).toEqual([{ kind: 'credit', amount: new Decimal(o.credited.amount).toFixed(8), reason: 'confirm', sandbox: false }]);

    const credited = (os: any[]) => os.reduce((s, o) => s.plus(o.credited.amount), new Decimal(0));
    const settled = (os: any[]) => os.reduce((s, o) => s.plus(o.settled.amount), new Decimal(0));
    expect((await money(desk.merchantId)).minus(before.m1).toFixed(8)).toBe(credited([after[0], after[2]]).toFixed(8));
    expect((await money(other.merchantId)).minus(before.m2).toFixed(8)).toBe(credited([after[1], after[3]]).toFixed(8));
    expect((await counter('desk', desk.id)).minus(before.d1).toFixed(8)).toBe(settled([after[0], after[2]]).toFixed(8));
    expect((await counter('desk', other.id)).minus(before.d2).toFixed(8)).toBe(settled([after[1], after[3]]).toFixed(8));
    expect((await counter('platform', '')).minus(before.pl).toFixed(8)).toBe(settled(after).toFixed(8));

    expect(await events(open.id)).toEqual(['order.completed']);
    expect(await events(canceled.id)).toEqual(['order.cancelled', 'order.completed']);
    expect((await events(disputed.id)).at(-1)).toBe('order.completed');
    expect(json(await admin(h.app, 'GET', `/appeals/${appeal.id}`)).result.status).toBe('Accepted');
    for (const [i, o] of batch.entries()) {
      const trail = await audit(o.id);
      expect(trail.filter((e: any) => e.actor === 'matcher')).toEqual([expect.objectContaining({ action: 'order.confirm', outcome: 'ok', detail: answers[i].creditId })]);
    }
    // Sent again, nothing is confirmed twice.
    const again = await feed(h, p, { credits: items });
    expect(json(again).result.credits.map((a: any) => a.duplicate)).toEqual([true, true, true, true]);
    expect(await entries(open.id)).toHaveLength(1);
  });

  it('amount differs: the waiting orders of the requisite are the candidates, closest amount first', async () => {
    const p = await pool([{ card: card(6) }]);
    const far = await placed(h, desk, 2000);
    const near = await placed(h, desk, 1000);
    const c = await sendCredit(h, p, credit(h, card(6), '999.00'));
    expect(c).toMatchObject({ status: 'unmatched', reason: 'amount differs', candidates: [near.id, far.id], requisiteId: p.requisites[0].id });
  });

  it('no order: a requisite with nothing open', async () => {
    const p = await pool([{ card: card(7) }]);
    expect(await sendCredit(h, p, credit(h, card(7), '10.00'))).toMatchObject({ status: 'unmatched', reason: 'no order', candidates: [] });
  });

  it('already paid: a second payment for an order a credit completed; it lists that order', async () => {
    const p = await pool([{ card: card(8) }]);
    const o = await placed(h, desk, 1600);
    expect(await sendCredit(h, p, credit(h, card(8), '1600.00'))).toMatchObject({ status: 'matched', orderId: o.id });
    expect(await sendCredit(h, p, credit(h, card(8), '1600.00'))).toMatchObject({ status: 'unmatched', reason: 'already paid', candidates: [o.id] });
    expect(await ledger(o.id)).toHaveLength(1);
  });

  it('two late orders of one amount: ambiguous with both listed; the payer\'s reference picks one', async () => {
    const p = await pool([{ card: card(9) }]);
    const first = await placed(h, desk, 1700);
    await admin(h.app, 'POST', `/orders/${first.id}/report-payment`, { payerReference: 'UTR111' });
    await admin(h.app, 'POST', `/orders/${first.id}/reject`);
    h.clock.advance(minutes(20));
    const second = await placed(h, desk, 1700);
    h.clock.advance(minutes(20));
    await expireDueOrders(h.ctx, 100);
    const amb = await sendCredit(h, p, credit(h, card(9), '1700.00'));
    expect(amb).toMatchObject({ status: 'unmatched', reason: 'ambiguous' });
    expect(amb.candidates).toEqual([first.id, second.id]);
    const byRef = await sendCredit(h, p, credit(h, card(9), '1700.00', { reference: 'UTR111' }));
    expect(byRef).toMatchObject({ status: 'matched', orderId: first.id, matchedBy: 'reference' });
    // The other is now the one candidate left: a late payment for it wins by amount.
    expect(await sendCredit(h, p, credit(h, card(9), '1700.00'))).toMatchObject({ status: 'matched', orderId: second.id, matchedBy: 'amount' });
  });

  it('the order open when the money arrived wins over a late one of the same amount', async () => {
    const p = await pool([{ card: card(10) }]);
    const old = await placed(h, desk, 1800, { lifetimeMinutes: 1 });
    h.clock.advance(minutes(17));
    await expireDueOrders(h.ctx, 100);
    const current = await placed(h, desk, 1800);
    const c = await sendCredit(h, p, credit(h, card(10), '1800.00'));
    expect(c).toMatchObject({ status: 'matched', orderId: current.id, matchedBy: 'amount' });
    expect((await getOrder(h, old.id)).status).toBe('Canceled');
  });

  it('a date-only statement credit stands for its whole day', async () => {
    const p = await pool([{ card: card(12) }]);
    const o = await placed(h, desk, 1900);
    const csv = `transactionId,account,amount,currency,receivedAt,payer,reference\n${nextTxn()},${card(12)},1900.00,RUB,${o.createdAt.slice(0, 10)},X,\n`;
    const res = await h.app.inject({ method: 'POST', url: `/admin/v1/providers/${p.id}/statements`, headers: { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'text/csv' }, payload: csv });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).result).toMatchObject({ entries: 1, credits: 1, duplicates: 0, matched: 1, unmatched: 0, skipped: 0, unreadable: 0 });
    expect((await getOrder(h, o.id)).status).toBe('Completed');
  });
});

describe('by hand and the queue', () => {
  let p: Pool;
  beforeAll(async () => {
    p = await pool([{ card: card(20) }]);
  });
  const body = (extra: Record<string, unknown> = {}) => ({ providerId: p.id, account: card(20), amount: '1.00', currency: 'RUB', receivedAt: at(h.clock.now()), payer: null, reference: null, ...extra });

  it('POST /credits: 201 and matched like any other; 200 with the recorded credit for a repeated sourceId with the same terms', async () => {
    const o = await placed(h, desk, 2100);
    const res = await admin(h.app, 'POST', '/credits', body({ amount: '2100.00', sourceId: 'bank-line-1' }));
    expect(res.statusCode, res.body).toBe(201);
    const c = json(res).result;
    expect(c).toMatchObject({ source: 'operator', sourceId: 'bank-line-1', status: 'matched', orderId: o.id });
    const again = await admin(h.app, 'POST', '/credits', body({ amount: '2100.00', sourceId: 'bank-line-1' }));
    expect(again.statusCode).toBe(200);
    expect(json(again).result).toEqual(c);
    // The same id with other terms is another payment.
    const other = await admin(h.app, 'POST', '/credits', body({ amount: '5.00', sourceId: 'bank-line-1' }));
    expect(other.statusCode).toBe(201);
    expect(json(other).result.id).not.toBe(c.id);
    const generated = json(await admin(h.app, 'POST', '/credits', body())).result;
    expect(generated.sourceId).toMatch(/^op_/);
    expect((await audit(c.id))[0]).toMatchObject({ action: 'credit.create', actor: 'token' });
    for (const [bad, code] of [
      [body({ providerId: 'prv_nope' }), 'PROVIDER_NOT_FOUND'],
      [body({ providerId: 'prv_sandbox' }), 'VALIDATION_ERROR'],
      [body({ amount: 1 }), 'VALIDATION_ERROR'],
      [body({ amount: '1.234' }), 'VALIDATION_ERROR'],
      [body({ receivedAt: '2026-01-15' }), 'VALIDATION_ERROR'],
      [body({ extra: true }), 'VALIDATION_ERROR'],
    ] as const) {
      expect(json(await admin(h.app, 'POST', '/credits', bad)).fault.code, JSON.stringify(bad)).toBe(code);
    }
  });

  it('match: the operator confirms the order; 409 for a matched credit, a completed order, another currency', async () => {
    const o = await placed(h, desk, 2200);
    const c = json(await admin(h.app, 'POST', '/credits', body({ amount: '2200.00', account: 'unknown-account' }))).result;
    expect(c).toMatchObject({ status: 'unmatched', reason: 'unknown account' });
    const res = await admin(h.app, 'POST', `/credits/${c.id}/match`, { orderId: o.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).result).toMatchObject({ status: 'matched', matchedBy: 'operator', orderId: o.id, reason: null, difference: null });
    expect((await getOrder(h, o.id)).status).toBe('Completed');
    expect(await events(o.id)).toEqual(['order.completed']);
    expect((await audit(c.id))[0]).toMatchObject({ action: 'credit.match', outcome: 'ok' });
    const again = await admin(h.app, 'POST', `/credits/${c.id}/match`, { orderId: o.id });
    expect(again.statusCode).toBe(409);
    expect(json(again).fault.code).toBe('CREDIT_ALREADY_MATCHED');
    const other = json(await admin(h.app, 'POST', '/credits', body({ amount: '2200.00', account: 'unknown-account' }))).result;
    expect(json(await admin(h.app, 'POST', `/credits/${other.id}/match`, { orderId: o.id })).fault.code).toBe('ORDER_ALREADY_COMPLETED');
    const usd = json(await admin(h.app, 'POST', '/credits', body({ amount: '2200.00', currency: 'USD' }))).result;
    const fresh = await placed(h, desk, 2201);
    const mismatch = await admin(h.app, 'POST', `/credits/${usd.id}/match`, { orderId: fresh.id });
    expect(mismatch.statusCode).toBe(409);
    expect(json(mismatch).fault.code).toBe('CURRENCY_MISMATCH');
    expect(json(await admin(h.app, 'POST', `/credits/${other.id}/match`, { orderId: 'ord_nope' })).fault.code).toBe('ORDER_NOT_FOUND');
    expect(json(await admin(h.app, 'POST', '/credits/crd_nope/match', { orderId: fresh.id })).fault.code).toBe('CREDIT_NOT_FOUND');
    expect((await getOrder(h, fresh.id)).status).toBe('Created');
  });

  it('an amount that differs is 409 AMOUNT_MISMATCH unless force: the order completes for the money that arrived, the difference is kept and audited', async () => {
    const o = await placed(h, desk, 2300);
    const c = json(await admin(h.app, 'POST', '/credits', body({ amount: '2290.50', account: 'somewhere-else' }))).result;
    const refused = await admin(h.app, 'POST', `/credits/${c.id}/match`, { orderId: o.id });
    expect(refused.statusCode).toBe(409);
    expect(json(refused).fault.code).toBe('AMOUNT_MISMATCH');
    expect((await getOrder(h, o.id)).status).toBe('Created');
    expect((await getOrder(h, o.id)).paidAmount).toBeNull();
    const forced = await admin(h.app, 'POST', `/credits/${c.id}/match`, { orderId: o.id, force: true });
    expect(forced.statusCode, forced.body).toBe(200);
    expect(json(forced).result).toMatchObject({ status: 'matched', matchedBy: 'operator', difference: '-9.50' });
    const done = await getOrder(h, o.id);
    expect(done).toMatchObject({ status: 'Completed', amount: '2300.00', paidAmount: '2290.50' });
    // Settled at the order's own rate from the money that arrived; fee and credit follow.
    const rate = dec(done.settled.rate);
    expect(done.settled.amount).toBe(settle(dec('2290.50'), rate).toFixed(8));
    expect(dec(done.credited.amount).plus(done.commission.amount).toFixed(8)).toBe(done.settled.amount);
    const { rows } = await h.ctx.db.query<{ body: string }>(`SELECT body FROM outbox_events WHERE order_id = $1 AND event = 'order.completed'`, [o.id]);
    expect(JSON.parse(rows[0].body).paidAmount).toEqual({ value: '2290.50', currency: 'RUB' });
    const entries = await audit(c.id);
    expect(entries.map((e: any) => e.action)).toEqual(expect.arrayContaining(['credit.forceMatch', 'credit.match']));
    expect(entries.find((e: any) => e.action === 'credit.forceMatch').detail).toContain('difference -9.50');
    // An order paid exactly says so too.
    const exact = await placed(h, desk, 2301);
    await admin(h.app, 'POST', '/credits', body({ amount: '2301.00' }));
    expect(await getOrder(h, exact.id)).toMatchObject({ status: 'Completed', paidAmount: '2301.00' });
  });

  it('ignore: the credit leaves the queue with the reason; a matched credit cannot be ignored', async () => {
    const c = json(await admin(h.app, 'POST', '/credits', body({ amount: '3.00', account: 'refund-line' }))).result;
    const res = await admin(h.app, 'POST', `/credits/${c.id}/ignore`, { reason: 'our own test transfer' });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).result).toMatchObject({ status: 'ignored', reason: 'our own test transfer' });
    for (const bad of [{}, { reason: '' }, { reason: 'x'.repeat(501) }]) expect((await admin(h.app, 'POST', `/credits/${c.id}/ignore`, bad)).statusCode).toBe(400);
    const o = await placed(h, desk, 2400);
    const m = json(await admin(h.app, 'POST', '/credits', body({ amount: '2400.00' }))).result;
    expect(m.orderId).toBe(o.id);
    const refused = await admin(h.app, 'POST', `/credits/${m.id}/ignore`, { reason: 'no' });
    expect(refused.statusCode).toBe(409);
    expect(json(refused).fault.code).toBe('CREDIT_ALREADY_MATCHED');
    expect(json(await admin(h.app, 'POST', '/credits/crd_nope/ignore', { reason: 'x' })).fault.code).toBe('CREDIT_NOT_FOUND');
  });

  it('GET /credits pages newest first and filters by status, provider and requisite', async () => {
    const q = await pool([{ card: card(30) }, { card: card(31) }]);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(json(await admin(h.app, 'POST', '/credits', { ...body({ amount: `${i + 1}.00` }), providerId: q.id, account: i % 2 ? card(31) : card(30) })).result);
    const page1 = json(await admin(h.app, 'GET', `/credits?providerId=${q.id}&limit=2`)).result;
    expect(page1.items.map((c: any) => c.id)).toEqual([made[4].id, made[3].id]);
    expect(page1.hasMore).toBe(true);
    const page2 = json(await admin(h.app, 'GET', `/credits?providerId=${q.id}&limit=2&before=${page1.next}`)).result;
    expect(page2.items.map((c: any) => c.id)).toEqual([made[2].id, made[1].id]);
    const last = json(await admin(h.app, 'GET', `/credits?providerId=${q.id}&limit=2&before=${page2.next}`)).result;
    expect(last).toEqual({ items: [expect.objectContaining({ id: made[0].id })], hasMore: false, next: null });
    const onSecond = json(await admin(h.app, 'GET', `/credits?requisiteId=${q.requisites[1].id}`)).result.items;
    expect(onSecond.map((c: any) => c.id)).toEqual([made[3].id, made[1].id]);
    const unmatched = json(await admin(h.app, 'GET', `/credits?status=unmatched&providerId=${q.id}`)).result.items;
    expect(unmatched).toHaveLength(5);
    expect(json(await admin(h.app, 'GET', `/credits?status=matched&providerId=${q.id}`)).result.items).toEqual([]);
    for (const bad of ['status=open', 'limit=0', 'limit=501', 'before=crd_nope']) expect((await admin(h.app, 'GET', `/credits?${bad}`)).statusCode, bad).toBe(400);
    expect(json(await admin(h.app, 'GET', '/credits/crd_nope')).fault.code).toBe('CREDIT_NOT_FOUND');
  });

  it('answers 401 without the operator token', async () => {
    for (const [method, url] of [['GET', '/admin/v1/credits'], ['POST', '/admin/v1/credits'], ['GET', '/admin/v1/credits/crd_x'], ['POST', '/admin/v1/credits/crd_x/match'], ['POST', '/admin/v1/credits/crd_x/ignore']] as const) {
      const res = await h.app.inject({ method, url, headers: { 'content-type': 'application/json' }, payload: method === 'GET' ? undefined : '{}' });
      expect(res.statusCode, url).toBe(401);
    }
  });
});
