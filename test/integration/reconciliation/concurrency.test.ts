import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app/buildApp.js';
import type { Ctx } from '../../../src/context.js';
import { dbNonceStore } from '../../../src/services/nonces.js';
import { createRateLimits } from '../../../src/services/rateLimits.js';
import { openPg, type Db } from '../../../src/store/db.js';
import { serverUrl } from '../../helpers/db.js';
import { ADMIN_TOKEN, admin, createHarness, json, provisionDesk, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { card, credit, creditDaysDifferences, feed, order, pools, type Pool } from './helpers.js';

/**
 * Two instances over one PostgreSQL, each with its own connection pool, app and rate limits, as
 * two processes would be, taking orders and credits at the same moment: the assignment rules and
 * "completed once" hold between them. Runs when DATABASE_URL is set (PGlite has one connection,
 * so nothing there ever runs at once).
 */

describe.runIf(serverUrl)('two instances on one PostgreSQL', () => {
  let h: Harness;
  let db2: Db;
  let app2: FastifyInstance;
  let desk: DeskCreds;
  let pool: ReturnType<typeof pools>;
  const instances = () => [h, { ...h, app: app2 }] as Harness[];

  beforeAll(async () => {
    h = await createHarness({ unlimitedOrders: true });
    db2 = openPg(h.testDb.url!, { max: 12 });
    const ctx2: Ctx = {
      ...h.ctx,
      db: db2,
      nonces: dbNonceStore(db2, h.clock),
      limits: createRateLimits(null, { orderCreate: { points: 1_000_000, durationSec: 10, queued: 5 } }),
    };
    app2 = buildApp(ctx2);
    await app2.ready();
    desk = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true } });
    pool = pools(h);
  }, 60_000);
  afterAll(async () => {
    await app2?.close();
    await db2?.close();
    await h?.close();
  });

  const openSameAmount = async (providerId: string) =>
    (
      await h.ctx.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (
           SELECT a.requisite_id, a.amount, a.currency FROM requisite_assignments a JOIN orders o ON o.id = a.order_id
            WHERE a.provider_id = $1 AND o.placement = 'placed' AND o.status IN ('Created', 'Payed')
            GROUP BY 1, 2, 3 HAVING count(*) > 1) x`,
        [providerId],
      )
    ).rows[0].n;

  it('orders of one amount created at once on both never share a requisite; the rest are declined', async () => {
    const p = await pool([1, 2, 3, 4, 5].map((i) => ({ card: card(i) })));
    for (let round = 0; round < 3; round++) {
      const amount = 500 + round;
      const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => order(instances()[i % 2], desk, amount)));
      const ok = answers.filter((r) => r.statusCode === 201).map((r) => json(r).result);
      expect(answers.filter((r) => r.statusCode !== 201).every((r) => r.statusCode === 503)).toBe(true);
      expect(ok).toHaveLength(5);
      expect(new Set(ok.map((o) => o.payment.card)).size).toBe(5);
    }
    expect(await openSameAmount(p.id)).toBe(0);
    const listed = json(await admin(h.app, 'GET', `/providers/${p.id}/requisites`)).result;
    expect(listed.map((r: any) => r.openOrders)).toEqual([3, 3, 3, 3, 3]);
  }, 60_000);

  it('maxOpenOrders holds between instances', async () => {
    const p = await pool([{ card: card(10) }]);
    await admin(h.app, 'PATCH', `/requisites/${p.requisites[0].id}`, { maxOpenOrders: 4 });
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => order(instances()[i % 2], desk, 600 + i)));
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(4);
  }, 60_000);

  describe('credits', () => {
    let p: Pool;
    let orders: any[];
    const ledgerCredits = async (orderId: string) => (await h.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_entries WHERE order_id = $1 AND kind = 'credit'`, [orderId])).rows[0].n;

    beforeAll(async () => {
      p = await pool([1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({ card: card(20 + i) })));
      orders = [];
      for (let i = 0; i < 8; i++) {
        const res = await order(h, desk, 700 + i);
        expect(res.statusCode, res.body).toBe(201);
        orders.push(json(res).result);
      }
    }, 60_000);

    it('the same transaction sent to both at once is one credit; competing credits complete each order once', async () => {
      const sends = orders.flatMap((o, i) => {
        const same = credit(h, o.payment.card, o.amount);
        const competing = credit(h, o.payment.card, o.amount);
        return [feed(h, p, { credits: [same] }), feed({ ...h, app: app2 }, p, { credits: [same] }), feed(i % 2 ? h : { ...h, app: app2 }, p, { credits: [competing] })];
      });
      const answers = await Promise.all(sends);
      for (const a of answers) expect(a.statusCode, a.body).toBe(200);
      const results = answers.map((a) => json(a).result.credits[0]);
      for (let i = 0; i < orders.length; i++) {
        const [x, y, z] = results.slice(i * 3, i * 3 + 3);
        expect(x.creditId).toBe(y.creditId);
        expect([x.duplicate, y.duplicate].sort()).toEqual([false, true]);
        const matched = [x, z].filter((r) => r.status === 'matched');
        expect(matched, `order ${i}`).toHaveLength(1);
        expect(matched[0].orderId).toBe(orders[i].id);
        expect(await ledgerCredits(orders[i].id)).toBe(1);
        const loser = json(await admin(h.app, 'GET', `/credits/${[x, z].find((r) => r.status !== 'matched').creditId}`)).result;
        expect(loser).toMatchObject({ status: 'unmatched', reason: 'already paid', candidates: [orders[i].id] });
      }
      const { rows } = await h.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox_events WHERE order_id = ANY($1::text[]) AND event = 'order.completed'`, [orders.map((o) => o.id)]);
      expect(rows[0].n).toBe(orders.length);
      // The day report's sums, written by both instances' connections at once, add up to the credits.
      expect(await creditDaysDifferences(h)).toEqual([]);
      const { rows: slots } = await h.ctx.db.query<{ n: number }>('SELECT count(DISTINCT slot)::int AS n FROM credit_days');
      expect(slots[0].n).toBeGreaterThan(1);
    }, 60_000);

    it('an operator confirming while a credit arrives: the order completes once', async () => {
      const q = await pool([{ card: card(40) }]);
      for (let round = 0; round < 5; round++) {
        const o = json(await order(h, desk, 800 + round)).result;
        const [confirm, fed] = await Promise.all([
          admin(app2, 'POST', `/orders/${o.id}/confirm`),
          feed(h, q, { credits: [credit(h, card(40), o.amount)] }),
        ]);
        const c = json(fed).result.credits[0];
        expect(fed.statusCode).toBe(200);
        // Whichever came second saw the first: a 409 for the confirm, or `already paid` for the credit.
        if (confirm.statusCode === 200) expect(json(await admin(h.app, 'GET', `/credits/${c.creditId}`)).result).toMatchObject({ status: 'unmatched', reason: 'already paid' });
        else {
          expect(json(confirm).fault.code).toBe('ORDER_ALREADY_COMPLETED');
          expect(c).toMatchObject({ status: 'matched', orderId: o.id });
        }
        expect(await ledgerCredits(o.id)).toBe(1);
      }
    }, 60_000);
  });

  describe('credit identity between instances', () => {
    const upload = (app: FastifyInstance, providerId: string, body: string) =>
      app.inject({ method: 'POST', url: `/admin/v1/providers/${providerId}/statements`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' }, payload: body });
    const creditCount = async (providerId: string) => (await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM credits WHERE provider_id = $1', [providerId])).rows[0].n;
    const HEADER = 'transactionId,account,amount,currency,receivedAt,payer,reference,bankReference';

    it('the same file taken by both at once is recorded once: one records it, the other answers sameAs', async () => {
      const q = await pool([{ card: card(50) }]);
      const at = new Date(h.clock.now()).toISOString();
      const rows = Array.from({ length: 1200 }, (_, i) => `r${i},${card(50)},${(i % 50) + 1}.00,RUB,${at},P,,BR-${i}`);
      const csv = [HEADER, ...rows].join('\n');
      const [x, y] = await Promise.all([upload(h.app, q.id, csv), upload(app2, q.id, csv)]);
      expect(x.statusCode, x.body).toBe(200);
      expect(y.statusCode, y.body).toBe(200);
      const answers = [json(x).result, json(y).result];
      expect(answers[0].statementId).toBe(answers[1].statementId);
      expect(answers.filter((a) => a.sameAs !== null)).toHaveLength(1);
      expect(await creditCount(q.id)).toBe(1200);
    }, 60_000);

    it('a file and the feed with the same money at once make one credit of each payment', async () => {
      const q = await pool([{ card: card(51) }]);
      const at = new Date(h.clock.now()).toISOString();
      for (let round = 0; round < 5; round++) {
        const amount = `${900 + round}.00`;
        const [file, fed] = await Promise.all([
          upload(app2, q.id, [HEADER, `f${round},${card(51)},${amount},RUB,${at},P,,`].join('\n')),
          feed(h, q, { credits: [credit(h, card(51), amount, { receivedAt: at })] }),
        ]);
        expect(file.statusCode, file.body).toBe(200);
        expect(fed.statusCode, fed.body).toBe(200);
        const n = (await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM credits WHERE provider_id = $1 AND amount = $2', [q.id, amount])).rows[0].n;
        expect(n, amount).toBe(1);
        // Whichever came second found the first's money.
        expect(json(file).result.duplicates + (json(fed).result.credits[0].duplicate ? 1 : 0)).toBe(1);
      }
    }, 60_000);
  });
});
