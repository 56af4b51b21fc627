import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMetricsApp } from '../../src/http/health.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';

const APPEAL_FIELDS = ['id', 'orderId', 'orderRef', 'status', 'amount', 'reason', 'comment', 'slaDueAt', 'createdAt', 'resolvedAt', 'evidenceUrl'].sort();

/** What every scenario below needs from a harness: orders, cancels, appeals, and a look at the outbox. */
function toolkit(h: Harness) {
  const t = {
    async order(d: DeskCreds, body: Record<string, unknown> = {}): Promise<any> {
      const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount: 1000, rail: 'Sbp', ...body }) });
      if (res.statusCode !== 201) throw new Error(`order creation failed: ${res.body}`);
      return json(res).result;
    },
    cancel: (d: DeskCreds, id: string) => signed(h, d, `/gw/v1/orders/${id}/cancel`, { body: '{}' }),
    /** A sandbox order created and cancelled by the merchant: the usual thing to appeal. */
    async canceledOrder(d: DeskCreds, body: Record<string, unknown> = {}): Promise<any> {
      const o = await t.order(d, body);
      const res = await t.cancel(d, o.id);
      if (json(res).result?.status !== 'Canceled') throw new Error(`cancel failed: ${res.body}`);
      return o;
    },
    appeal: (d: DeskCreds, body: Record<string, unknown>) => signed(h, d, '/gw/v1/appeals', { body: JSON.stringify(body) }),
    getAppeal: (d: DeskCreds, id: string) => signed(h, d, `/gw/v1/appeals/${id}`),
    getOrder: async (d: DeskCreds, id: string) => json(await signed(h, d, `/gw/v1/orders/${id}`)).result,
    async opened(d: DeskCreds, orderId: string): Promise<any> {
      const res = await t.appeal(d, { orderId });
      if (res.statusCode !== 201) throw new Error(`appeal failed: ${res.body}`);
      return json(res).result;
    },
    async events(orderId: string): Promise<{ event: string; body: any }[]> {
      const { rows } = await h.ctx.db.query<{ event: string; body: string }>('SELECT event, body FROM outbox_events WHERE order_id = $1 ORDER BY seq', [orderId]);
      return rows.map((r) => ({ event: r.event, body: JSON.parse(r.body) }));
    },
    async provider(id: string): Promise<any> {
      return json(await admin(h.app, 'GET', '/providers')).result.find((p: any) => p.id === id);
    },
    async balance(merchantId: string): Promise<string> {
      return json(await admin(h.app, 'GET', `/merchants/${merchantId}`)).result.balance.available;
    },
  };
  return t;
}

describe('appeals', () => {
  let h: Harness;
  let t: ReturnType<typeof toolkit>;
  let desk: DeskCreds;
  let other: DeskCreds;
  let live: DeskCreds;
  let poolId: string;

  beforeAll(async () => {
    h = await createHarness();
    t = toolkit(h);
    const tariff = json(await admin(h.app, 'POST', '/tariffs', { name: 'Standard', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '2.5' }] })).result;
    desk = await provisionDesk(h.app, { desk: { tariffId: tariff.id } });
    other = await provisionDesk(h.app, { merchant: { name: 'Other' } });
    const pool = await admin(h.app, 'POST', '/providers', {
      name: 'Pool',
      kind: 'pool',
      priority: 10,
      capabilities: [{ method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' }],
      requisites: [{ phone: '+79990000001', holder: 'Ivan P.', bank: 'Bank' }],
    });
    poolId = json(pool).result.id;
    live = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true }, desk: { rails: ['Sbp'] } });
  });
  afterAll(() => h.close());

  describe('POST /gw/v1/appeals on a cancelled order', () => {
    it('opens an appeal: 201 with the Appeal fields, order to Dispute, order.appealed in the outbox', async () => {
      const o = await t.canceledOrder(desk, { orderRef: 'inv-appeal-1' });
      const res = await t.appeal(desk, { orderId: o.id, reason: 'customer paid at 12:03', evidenceUrl: 'https://files.example/a.png;https://files.example/b.pdf' });
      expect(res.statusCode).toBe(201);
      const body = json(res);
      expect(body.status).toBe('ok');
      expect(body.traceId).toBe(res.headers['x-trace-id']);
      const a = body.result;
      expect(Object.keys(a).sort()).toEqual(APPEAL_FIELDS);
      expect(a.id).toMatch(/^apl_[0-9a-z]{26}$/);
      expect(a).toMatchObject({
        orderId: o.id,
        orderRef: 'inv-appeal-1',
        status: 'Open',
        amount: { value: '10.89324619', currency: 'USD' },
        reason: 'customer paid at 12:03',
        comment: null,
        evidenceUrl: 'https://files.example/a.png;https://files.example/b.pdf',
        createdAt: '2026-01-15T12:00:00Z',
        slaDueAt: '2026-01-16T12:00:00Z',
        resolvedAt: null,
      });
      expect(a.amount.value).toBe(o.settled.amount);

      const order = await t.getOrder(desk, o.id);
      expect(order.status).toBe('Dispute');
      expect(order.finishedAt).toBeNull();

      const events = await t.events(o.id);
      expect(events.map((e) => e.event)).toEqual(['order.cancelled', 'order.appealed']);
      expect(events[1].body).toMatchObject({ event: 'order.appealed', id: o.id, orderRef: 'inv-appeal-1', status: 'Dispute' });
    });

    it('accepts the orderRef in place of the ord_ id; reason and evidenceUrl are optional', async () => {
      const o = await t.canceledOrder(desk, { orderRef: 'inv-by-ref' });
      const res = await t.appeal(desk, { orderId: 'inv-by-ref' });
      expect(res.statusCode).toBe(201);
      expect(json(res).result).toMatchObject({ orderId: o.id, orderRef: 'inv-by-ref', reason: null, evidenceUrl: null });
    });

    it('a repeat while the appeal is open returns the same appeal with 201, and nothing else happens', async () => {
      const o = await t.canceledOrder(desk);
      const first = await t.opened(desk, o.id);
      h.clock.advance(60_000);
      const again = await t.appeal(desk, { orderId: o.id, reason: 'second try' });
      expect(again.statusCode).toBe(201);
      expect(json(again).result).toEqual(first);
      const { rows } = await h.ctx.db.query('SELECT id FROM appeals WHERE order_id = $1', [o.id]);
      expect(rows).toHaveLength(1);
      expect((await t.events(o.id)).filter((e) => e.event === 'order.appealed')).toHaveLength(1);
    });

    it('concurrent opens for one order all answer 201 with one and the same appeal', async () => {
      const o = await t.canceledOrder(desk);
      const all = await Promise.all(Array.from({ length: 4 }, () => t.appeal(desk, { orderId: o.id })));
      expect(all.map((r) => r.statusCode)).toEqual([201, 201, 201, 201]);
      expect(new Set(all.map((r) => json(r).result.id)).size).toBe(1);
      expect((await t.events(o.id)).filter((e) => e.event === 'order.appealed')).toHaveLength(1);
    });

    it('the appeal counts against the provider that served the order', async () => {
      const o = await t.order(live);
      expect(json(await admin(h.app, 'GET', `/orders/${o.id}`)).result.providerId).toBe(poolId);
      await t.cancel(live, o.id);
      const before = await t.provider(poolId);
      const sandboxBefore = (await t.provider('prv_sandbox')).openAppeals;
      const a = await t.opened(live, o.id);
      expect((await t.provider(poolId)).openAppeals).toBe(before.openAppeals + 1);
      expect((await t.provider('prv_sandbox')).openAppeals).toBe(sandboxBefore);
      expect(json(await admin(h.app, 'GET', `/appeals/${a.id}`)).result.providerId).toBe(poolId);
    });
  });

  describe('refusals', () => {
    const code = (res: { body: string }) => json(res as never).fault.code;

    it('D17: Created answers 409 ORDER_STILL_OPEN and the order stays as it was', async () => {
      const o = await t.order(desk);
      const res = await t.appeal(desk, { orderId: o.id });
      expect(res.statusCode).toBe(409);
      expect(code(res)).toBe('ORDER_STILL_OPEN');
      expect((await t.getOrder(desk, o.id)).status).toBe('Created');
      expect(await t.events(o.id)).toEqual([]);
    });

    it('D17: Payed answers 409 ORDER_STILL_OPEN', async () => {
      const o = await t.order(live, { amount: 1001 }); // the pool holds one requisite, and 1000 is quarantined there by the test above
      expect((await admin(h.app, 'POST', `/orders/${o.id}/report-payment`, {})).statusCode).toBe(200);
      const res = await t.appeal(live, { orderId: o.id });
      expect(res.statusCode).toBe(409);
      expect(code(res)).toBe('ORDER_STILL_OPEN');
      expect((await t.getOrder(live, o.id)).status).toBe('Payed');
    });

    it('Completed answers 409 ORDER_ALREADY_COMPLETED', async () => {
      const o = await t.order(desk);
      await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`);
      const res = await t.appeal(desk, { orderId: o.id });
      expect(res.statusCode).toBe(409);
      expect(code(res)).toBe('ORDER_ALREADY_COMPLETED');
    });

    it('an unknown order and another desk\u2019s order are 404 ORDER_NOT_FOUND, by id and by reference', async () => {
      const o = await t.canceledOrder(other, { orderRef: 'other-ref' });
      for (const orderId of ['ord_00000000000000000000000000', 'no-such-ref', o.id, 'other-ref']) {
        const res = await t.appeal(desk, { orderId });
        expect(res.statusCode).toBe(404);
        expect(code(res)).toBe('ORDER_NOT_FOUND');
      }
      expect((await t.getOrder(other, o.id)).status).toBe('Canceled');
    });

    it('a missing orderId or a field of the wrong type is 400 VALIDATION_ERROR naming the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{}, 'orderId'],
        [{ orderId: '' }, 'orderId'],
        [{ orderId: 42 }, 'orderId'],
        [{ orderId: 'x', reason: 5 }, 'reason'],
        [{ orderId: 'x', evidenceUrl: ['https://a.example'] }, 'evidenceUrl'],
      ];
      for (const [body, name] of cases) {
        const res = await t.appeal(desk, body);
        expect(res.statusCode).toBe(400);
        expect(json(res).fault.code).toBe('VALIDATION_ERROR');
        expect(json(res).fault.detail).toMatch(new RegExp(`^${name}:`));
      }
      const notJson = await signed(h, desk, '/gw/v1/appeals', { body: 'nope' });
      expect(json(notJson).fault.code).toBe('VALIDATION_ERROR');
    });

    it('both appeal routes are signed', async () => {
      const post = await h.app.inject({ method: 'POST', url: '/gw/v1/appeals', headers: { 'content-type': 'application/json' }, payload: '{"orderId":"x"}' });
      const get = await h.app.inject({ method: 'GET', url: '/gw/v1/appeals/apl_x' });
      for (const r of [post, get]) {
        expect(r.statusCode).toBe(401);
        expect(json(r).fault.code).toBe('AUTH_HEADERS_MISSING');
      }
      const wrong = await signed(h, desk, '/gw/v1/appeals', { body: '{"orderId":"x"}', secret: 'not-the-secret' });
      expect(json(wrong).fault.code).toBe('AUTH_FAILED');
    });
  });

  describe('GET /gw/v1/appeals/{id}', () => {
    it('returns the same shape as the create response', async () => {
      const o = await t.canceledOrder(desk);
      const a = await t.opened(desk, o.id);
      const res = await t.getAppeal(desk, a.id);
      expect(res.statusCode).toBe(200);
      expect(json(res).result).toEqual(a);
    });

    it('another desk\u2019s appeal and an unknown id are 404 APPEAL_NOT_FOUND', async () => {
      const o = await t.canceledOrder(desk);
      const a = await t.opened(desk, o.id);
      for (const [d, id] of [[other, a.id], [desk, 'apl_00000000000000000000000000']] as const) {
        const res = await t.getAppeal(d, id);
        expect(res.statusCode).toBe(404);
        expect(json(res).fault.code).toBe('APPEAL_NOT_FOUND');
      }
    });
  });

  describe('operator decisions', () => {
    it('accept: appeal Accepted with comment and resolvedAt; order Completed and credited net of the fee; order.completed', async () => {
      const o = await t.canceledOrder(desk);
      const a = await t.opened(desk, o.id);
      const balanceBefore = await t.balance(desk.merchantId);
      h.clock.advance(3_600_000);
      const res = await admin(h.app, 'POST', `/appeals/${a.id}/accept`, { comment: 'receipt matches the bank statement' });
      expect(res.statusCode).toBe(200);
      const r = json(res).result;
      expect(r).toMatchObject({ id: a.id, status: 'Accepted', comment: 'receipt matches the bank statement', overdue: false });
      expect(r.resolvedAt).toBe(new Date(h.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'));
      expect(r.order).toMatchObject({ id: o.id, status: 'Completed' });

      const order = await t.getOrder(desk, o.id);
      expect(order).toMatchObject({
        status: 'Completed',
        subStatus: 'SuccessfullyPaid',
        commission: { rate: '2.5000', amount: '0.27233115', currency: 'USD' },
        credited: { amount: '10.62091504', currency: 'USD' },
      });
      expect(order.finishedAt).toBe(r.resolvedAt);
      expect(await t.balance(desk.merchantId)).toBe(new Decimal(balanceBefore).plus('10.62091504').toFixed(8));

      const events = await t.events(o.id);
      expect(events.map((e) => e.event)).toEqual(['order.cancelled', 'order.appealed', 'order.completed']);
      expect(events[2].body.status).toBe('Completed');

      const seen = json(await t.getAppeal(desk, a.id)).result;
      expect(seen).toMatchObject({ status: 'Accepted', comment: 'receipt matches the bank statement', resolvedAt: r.resolvedAt });

      // Resolved is final, and the order is now completed.
      for (const action of ['accept', 'reject']) {
        const again = await admin(h.app, 'POST', `/appeals/${a.id}/${action}`, {});
        expect(again.statusCode).toBe(409);
        expect(json(again).fault.code).toBe('APPEAL_ALREADY_RESOLVED');
      }
      expect(json(await t.appeal(desk, { orderId: o.id })).fault.code).toBe('ORDER_ALREADY_COMPLETED');
    });

    it('reject: appeal Rejected with comment; order Canceled with cancelReason "appeal rejected"; order.cancelled; no credit', async () => {
      const o = await t.canceledOrder(desk);
      const a = await t.opened(desk, o.id);
      const balanceBefore = await t.balance(desk.merchantId);
      const res = await admin(h.app, 'POST', `/appeals/${a.id}/reject`, { comment: 'no payment found' });
      expect(res.statusCode).toBe(200);
      const r = json(res).result;
      expect(r).toMatchObject({ id: a.id, status: 'Rejected', comment: 'no payment found' });
      expect(r.resolvedAt).not.toBeNull();
      expect(r.order.status).toBe('Canceled');

      const order = await t.getOrder(desk, o.id);
      expect(order).toMatchObject({ status: 'Canceled', subStatus: 'Cancelled', cancelReason: 'appeal rejected', credited: { amount: '0.00000000', currency: 'USD' } });
      expect(order.finishedAt).not.toBeNull();
      expect(await t.balance(desk.merchantId)).toBe(balanceBefore);

      const events = await t.events(o.id);
      expect(events.map((e) => e.event)).toEqual(['order.cancelled', 'order.appealed', 'order.cancelled']);
      expect(events[2].body.status).toBe('Canceled');

      expect(json(await t.getAppeal(desk, a.id)).result).toMatchObject({ status: 'Rejected', comment: 'no payment found' });
      const again = await admin(h.app, 'POST', `/appeals/${a.id}/reject`, { comment: 'again' });
      expect(again.statusCode).toBe(409);
      expect(json(again).fault.code).toBe('APPEAL_ALREADY_RESOLVED');
    });

    it('after a rejection the cancelled order can be appealed again: a new appeal, the old one stays Rejected', async () => {
      const o = await t.canceledOrder(desk);
      const first = await t.opened(desk, o.id);
      await admin(h.app, 'POST', `/appeals/${first.id}/reject`, { comment: 'no payment found' });
      const second = await t.opened(desk, o.id);
      expect(second.id).not.toBe(first.id);
      expect(second.status).toBe('Open');
      expect((await t.getOrder(desk, o.id)).status).toBe('Dispute');
      expect(json(await t.getAppeal(desk, first.id)).result.status).toBe('Rejected');
    });

    it('a comment is optional; an unknown appeal is 404 APPEAL_NOT_FOUND; a malformed comment is 400', async () => {
      const o = await t.canceledOrder(desk);
      const a = await t.opened(desk, o.id);
      expect(json(await admin(h.app, 'POST', `/appeals/${a.id}/reject`, { comment: 7 })).fault.code).toBe('VALIDATION_ERROR');
      const res = await admin(h.app, 'POST', `/appeals/${a.id}/reject`);
      expect(res.statusCode).toBe(200);
      expect(json(res).result).toMatchObject({ status: 'Rejected', comment: null });
      for (const path of ['/appeals/apl_unknown', '/appeals/apl_unknown/accept', '/appeals/apl_unknown/reject']) {
        const r = await admin(h.app, path.endsWith('unknown') ? 'GET' : 'POST', path, path.endsWith('unknown') ? undefined : {});
        expect(r.statusCode).toBe(404);
        expect(json(r).fault.code).toBe('APPEAL_NOT_FOUND');
      }
    });

    it('payment confirmed while the appeal is open: appeal Accepted by itself, order Completed and credited, order.completed', async () => {
      const o = await t.canceledOrder(desk);
      const a = await t.opened(desk, o.id);
      const open = (await t.provider('prv_sandbox')).openAppeals;
      const res = await admin(h.app, 'POST', `/orders/${o.id}/confirm`);
      expect(res.statusCode).toBe(200);
      expect(json(res).result).toMatchObject({ status: 'Completed', credited: { amount: '10.62091504' } });
      const seen = json(await t.getAppeal(desk, a.id)).result;
      expect(seen).toMatchObject({ status: 'Accepted', comment: 'payment confirmed' });
      expect(seen.resolvedAt).not.toBeNull();
      expect((await t.events(o.id)).map((e) => e.event)).toEqual(['order.cancelled', 'order.appealed', 'order.completed']);
      expect((await t.provider('prv_sandbox')).openAppeals).toBe(open - 1);
      const late = await admin(h.app, 'POST', `/appeals/${a.id}/accept`, {});
      expect(json(late).fault.code).toBe('APPEAL_ALREADY_RESOLVED');
    });

    it('the merchant cannot cancel an order under appeal', async () => {
      const o = await t.canceledOrder(desk);
      await t.opened(desk, o.id);
      const res = await t.cancel(desk, o.id);
      expect(res.statusCode).toBe(409);
      expect((await t.getOrder(desk, o.id)).status).toBe('Dispute');
    });
  });

  describe('operator review list', () => {
    it('GET /admin/v1/appeals?status=Open: open appeals, most urgent first, with order and provider; overdue past the SLA; gauge set', async () => {
      const { rows } = await h.ctx.db.query<{ id: string }>(`SELECT id FROM appeals WHERE status = 'Open'`);
      for (const r of rows) await admin(h.app, 'POST', `/appeals/${r.id}/reject`, {});

      const o1 = await t.canceledOrder(desk, { orderRef: 'sla-1' });
      const a1 = await t.opened(desk, o1.id);
      h.clock.advance(2 * 3_600_000);
      const o2 = await t.canceledOrder(desk);
      const a2 = await t.opened(desk, o2.id);
      const o3 = await t.canceledOrder(desk);
      const a3 = await t.opened(desk, o3.id);
      await admin(h.app, 'POST', `/appeals/${a3.id}/accept`, {});

      const list = async () => {
        const res = await admin(h.app, 'GET', '/appeals?status=Open');
        expect(res.statusCode).toBe(200);
        return json(res).result.items;
      };
      let items = await list();
      expect(items.map((x: any) => x.id)).toEqual([a1.id, a2.id]);
      expect(items[0]).toMatchObject({
        id: a1.id,
        status: 'Open',
        providerId: 'prv_sandbox',
        deskId: desk.id,
        merchantId: desk.merchantId,
        overdue: false,
        order: { id: o1.id, orderRef: 'sla-1', status: 'Dispute', amount: '1000.00', currency: 'RUB', settled: { amount: '10.89324619', currency: 'USD', rate: '91.80000000' } },
      });
      expect(await h.ctx.metrics.appealsOverdue.get()).toMatchObject({ values: [{ value: 0 }] });

      // 22 h later the first is exactly at its SLA (not yet overdue); one second more and it is.
      h.clock.advance(22 * 3_600_000);
      expect((await list()).map((x: any) => x.overdue)).toEqual([false, false]);
      h.clock.advance(1000);
      items = await list();
      expect(items.map((x: any) => x.overdue)).toEqual([true, false]);
      expect((await h.ctx.metrics.appealsOverdue.get()).values[0].value).toBe(1);
      const metrics = await buildMetricsApp(h.ctx).inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/^paygate_appeals_overdue 1$/m);

      expect(json(await admin(h.app, 'GET', `/appeals/${a1.id}`)).result).toEqual(items[0]);

      const all = json(await admin(h.app, 'GET', '/appeals')).result.items.map((x: any) => x.id);
      expect(all).toEqual(expect.arrayContaining([a1.id, a2.id, a3.id]));
      expect(json(await admin(h.app, 'GET', '/appeals?status=Accepted')).result.items.map((x: any) => x.status)).not.toContain('Open');
      expect(json(await admin(h.app, 'GET', '/appeals?status=Closed')).fault.code).toBe('VALIDATION_ERROR');
    });

    it('the operator routes need the operator token', async () => {
      for (const [method, url] of [['GET', '/admin/v1/appeals'], ['GET', '/admin/v1/appeals/apl_x'], ['POST', '/admin/v1/appeals/apl_x/accept'], ['POST', '/admin/v1/appeals/apl_x/reject']] as const) {
        const res = await h.app.inject({ method, url, headers: { authorization: 'Bearer wrong-token-wrong-token' } });
        expect(res.statusCode).toBe(401);
        expect(json(res).fault.code).toBe('ADMIN_AUTH_FAILED');
      }
    });
  });
});

describe('appeal guard on the sandbox provider', () => {
  let h: Harness;
  let t: ReturnType<typeof toolkit>;
  let desk: DeskCreds;

  beforeAll(async () => {
    h = await createHarness();
    t = toolkit(h);
    desk = await provisionDesk(h.app);
  });
  afterAll(() => h.close());

  const sandbox = () => t.provider('prv_sandbox');
  const methods = async () => json(await signed(h, desk, '/gw/v1/methods')).result;

  it('9 → 10 pauses; 10 → 9 → 8 stays paused; 8 → 7 resumes; 7 → 9 stays running; 10 pauses again', async () => {
    const orders: any[] = [];
    for (let i = 0; i < 13; i++) orders.push(await t.canceledOrder(desk));
    const appeals: any[] = [];
    for (let i = 0; i < 9; i++) appeals.push(await t.opened(desk, orders[i].id));
    expect(await sandbox()).toMatchObject({ openAppeals: 9, paused: false, pauseReasons: [] });
    expect((await methods()).available).toBe(true);

    appeals.push(await t.opened(desk, orders[9].id));
    expect(await sandbox()).toMatchObject({ openAppeals: 10, paused: true, pauseReasons: ['appeals'], pauseReason: 'appeals' });

    // Paused: gone from the methods picture, and nobody else serves the rail.
    expect(await methods()).toMatchObject({ available: false, reason: 'no provider currently offers this method', rails: [] });
    const refused = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 1000, rail: 'Sbp' }) });
    expect(refused.statusCode).toBe(503);
    expect(json(refused).fault.code).toBe('NO_AVAILABLE_METHOD');

    // A repeat of an open appeal changes nothing.
    await t.opened(desk, orders[9].id);
    expect((await sandbox()).openAppeals).toBe(10);

    await admin(h.app, 'POST', `/appeals/${appeals[0].id}/reject`, {});
    expect(await sandbox()).toMatchObject({ openAppeals: 9, paused: true });
    await admin(h.app, 'POST', `/appeals/${appeals[1].id}/accept`, {});
    expect(await sandbox()).toMatchObject({ openAppeals: 8, paused: true, pauseReasons: ['appeals'] });
    expect((await methods()).available).toBe(false);

    // The eighth-to-seventh step comes from a confirmed payment, which accepts the appeal by itself.
    await admin(h.app, 'POST', `/orders/${orders[2].id}/confirm`);
    expect(await sandbox()).toMatchObject({ openAppeals: 7, paused: false, pauseReasons: [] });
    expect((await methods()).available).toBe(true);
    const served = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 1000, rail: 'Sbp' }) });
    expect(served.statusCode).toBe(201);

    // Climbing back: 8 and 9 keep it running, 10 pauses it again.
    await t.opened(desk, orders[10].id);
    await t.opened(desk, orders[11].id);
    expect(await sandbox()).toMatchObject({ openAppeals: 9, paused: false });
    await t.opened(desk, orders[12].id);
    expect(await sandbox()).toMatchObject({ openAppeals: 10, paused: true, pauseReasons: ['appeals'], pauseReason: 'appeals' });
  });

  it('a manual pause and the appeal pause are separate reasons', async () => {
    expect((await sandbox()).paused).toBe(true);
    await admin(h.app, 'POST', '/providers/prv_sandbox/pause');
    expect((await sandbox()).pauseReasons).toEqual(['manual', 'appeals']);
    await admin(h.app, 'POST', '/providers/prv_sandbox/resume');
    expect(await sandbox()).toMatchObject({ paused: true, pauseReasons: ['appeals'] });
  });
});

describe.skipIf(!process.env.DATABASE_URL)('concurrency on PostgreSQL', () => {
  let h: Harness;
  let t: ReturnType<typeof toolkit>;
  let desk: DeskCreds;

  beforeAll(async () => {
    h = await createHarness();
    t = toolkit(h);
    desk = await provisionDesk(h.app);
  });
  afterAll(() => h.close());

  async function ledgerCredits(orderId: string): Promise<number> {
    const { rows } = await h.ctx.db.query(`SELECT id FROM ledger_entries WHERE order_id = $1 AND kind = 'credit'`, [orderId]);
    return rows.length;
  }

  it('an accept and a reject at once: exactly one wins, the other is 409 APPEAL_ALREADY_RESOLVED', async () => {
    for (let round = 0; round < 6; round++) {
      const o = await t.canceledOrder(desk);
      const a = await t.opened(desk, o.id);
      const [acc, rej] = await Promise.all([
        admin(h.app, 'POST', `/appeals/${a.id}/accept`, { comment: 'accept' }),
        admin(h.app, 'POST', `/appeals/${a.id}/reject`, { comment: 'reject' }),
      ]);
      expect([acc.statusCode, rej.statusCode].sort()).toEqual([200, 409]);
      const loser = acc.statusCode === 409 ? acc : rej;
      expect(json(loser).fault.code).toBe('APPEAL_ALREADY_RESOLVED');
      const accepted = acc.statusCode === 200;

      const appeal = json(await t.getAppeal(desk, a.id)).result;
      const order = await t.getOrder(desk, o.id);
      const events = (await t.events(o.id)).map((e) => e.event);
      if (accepted) {
        expect(appeal).toMatchObject({ status: 'Accepted', comment: 'accept' });
        expect(order.status).toBe('Completed');
        expect(await ledgerCredits(o.id)).toBe(1);
        expect(events).toEqual(['order.cancelled', 'order.appealed', 'order.completed']);
      } else {
        expect(appeal).toMatchObject({ status: 'Rejected', comment: 'reject' });
        expect(order).toMatchObject({ status: 'Canceled', cancelReason: 'appeal rejected' });
        expect(await ledgerCredits(o.id)).toBe(0);
        expect(events).toEqual(['order.cancelled', 'order.appealed', 'order.cancelled']);
      }
    }
  });

  it('an operator accept and a payment confirmation at once credit the order exactly once', async () => {
    const o = await t.canceledOrder(desk);
    const a = await t.opened(desk, o.id);
    const [acc, conf] = await Promise.all([admin(h.app, 'POST', `/appeals/${a.id}/accept`, {}), admin(h.app, 'POST', `/orders/${o.id}/confirm`)]);
    expect([acc.statusCode, conf.statusCode].sort()).toEqual([200, 409]);
    expect((await t.getOrder(desk, o.id)).status).toBe('Completed');
    expect(json(await t.getAppeal(desk, a.id)).result.status).toBe('Accepted');
    expect(await ledgerCredits(o.id)).toBe(1);
    expect((await t.events(o.id)).filter((e) => e.event === 'order.completed')).toHaveLength(1);
  });

  it('ten appeals opened at once on different orders pause the provider: every count sees the others', async () => {
    const { rows } = await h.ctx.db.query<{ id: string }>(`SELECT id FROM appeals WHERE status = 'Open'`);
    for (const r of rows) await admin(h.app, 'POST', `/appeals/${r.id}/reject`, {});
    expect(await t.provider('prv_sandbox')).toMatchObject({ openAppeals: 0, paused: false });

    const orders: any[] = [];
    for (let i = 0; i < 10; i++) orders.push(await t.canceledOrder(desk));
    const res = await Promise.all(orders.map((o) => t.appeal(desk, { orderId: o.id })));
    expect(res.every((r) => r.statusCode === 201)).toBe(true);
    expect(await t.provider('prv_sandbox')).toMatchObject({ openAppeals: 10, paused: true, pauseReasons: ['appeals'] });

    // And three decisions at once bring it to seven: resumed.
    const { rows: open } = await h.ctx.db.query<{ id: string }>(`SELECT id FROM appeals WHERE status = 'Open' ORDER BY id LIMIT 3`);
    await Promise.all(open.map((r, i) => admin(h.app, 'POST', `/appeals/${r.id}/${i % 2 ? 'accept' : 'reject'}`, {})));
    expect(await t.provider('prv_sandbox')).toMatchObject({ openAppeals: 7, paused: false, pauseReasons: [] });
  });
});
