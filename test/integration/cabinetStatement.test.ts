import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dec } from '../../src/domain/money.js';
import { admin, createHarness, json, signed, type Harness } from '../helpers/harness.js';
import { cabinetKit, PASSWORD, type CabinetBrowser } from '../helpers/cabinet.js';
import { FormBrowser } from '../helpers/formBrowser.js';
import { card, credit, feed, pools } from './reconciliation/helpers.js';

/*
 * The cabinet's statement (reconciliation contract, "Reports"): `/cabinet/statement.csv?from=&to=`
 * gives the merchant's live money as the operator API's statement does, with an opening and a
 * closing row; the balance page leads to it with a from/to form.
 */

let h: Harness;
const { signUp, createDesk, order } = cabinetKit(() => h);
let b: CabinetBrowser;
let desk: Awaited<ReturnType<typeof createDesk>>;
let merchantId: string;
const ids: Record<string, string> = {};

function parse(csv: string): Record<string, string>[] {
  expect(csv.endsWith('\r\n')).toBe(true);
  const [head, ...rows] = csv.trimEnd().split('\r\n').map((l) => l.split(','));
  expect(head).toEqual(['at', 'type', 'orderId', 'withdrawalId', 'amountUsd', 'balanceUsd']);
  return rows.map((r) => Object.fromEntries(head!.map((k, i) => [k, r[i]!])));
}

beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
  await admin(h.app, 'PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
  await admin(h.app, 'PUT', '/rates/RUB', { rate: '91.8' });
  const signedUp = await signUp('Statement Shop');
  b = signedUp.b;
  desk = await createDesk(b);
  // Sandbox money first: it is never in the statement.
  const play = await order(desk, { amount: 918, rail: 'Sbp' });
  expect((await b.post(`/cabinet/orders/${play.id}/simulate-payment`)).statusCode).toBe(303);
  merchantId = json(await admin(h.app, 'GET', '/merchants?status=UnderReview')).result.items.find((m: { name: string }) => m.name === 'Statement Shop').id;
  ids.sandboxMoney = json(await admin(h.app, 'GET', `/merchants/${merchantId}`)).result.balance.available;
  expect(dec(ids.sandboxMoney).gt(0)).toBe(true);
  // No fee on this desk, chosen: the statement's figures are the orders' whole amounts (a desk without a tariff could not be approved).
  expect((await admin(h.app, 'PATCH', `/desks/${desk.id}`, { tariffId: null })).statusCode).toBe(200);
  expect((await admin(h.app, 'POST', `/merchants/${merchantId}/approve`)).statusCode).toBe(200);
  const p = await pools(h)([{ card: card(42) }]);
  const day1 = await order(desk, { amount: 918, currency: 'RUB', rail: 'C2c' }); // 10 USD
  await feed(h, p, { credits: [credit(h, card(42), '918.00')] });
  h.clock.advance(24 * 3_600_000); // 2026-01-16
  const day2 = await order(desk, { amount: 1836, currency: 'RUB', rail: 'C2c' }); // 20 USD
  await feed(h, p, { credits: [credit(h, card(42), '1836.00')] });
  const w = json(await admin(h.app, 'POST', `/merchants/${merchantId}/withdrawals`, { amountUsd: '7.5', reference: 'wire 1' })).result;
  Object.assign(ids, { day1: day1.id, day2: day2.id, withdrawal: w.id });
  // A day later the session has lapsed: sign in again.
  await b.get('/cabinet/sign-in');
  expect((await b.post('/cabinet/sign-in', [['email', signedUp.email], ['password', PASSWORD]])).statusCode).toBe(303);
});
afterAll(() => h.close());

describe('GET /cabinet/statement.csv', () => {
  it('an opening row, the live entries with their running balance, and a closing row equal to the live balance', async () => {
    const res = await b.get('/cabinet/statement.csv?from=2026-01-15&to=2026-01-16');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="statement-2026-01-15-2026-01-16.csv"');
    const rows = parse(res.body);
    expect(rows.map((r) => [r.at, r.type, r.orderId, r.withdrawalId, r.amountUsd, r.balanceUsd])).toEqual([
      ['2026-01-15T00:00:00Z', 'opening', '', '', '', '0.00000000'],
      ['2026-01-15T12:00:00Z', 'credit', ids.day1, '', '10.00000000', '10.00000000'],
      ['2026-01-16T12:00:00Z', 'credit', ids.day2, '', '20.00000000', '30.00000000'],
      ['2026-01-16T12:00:00Z', 'withdrawal', '', ids.withdrawal, '-7.50000000', '22.50000000'],
      ['2026-01-16T23:59:59Z', 'closing', '', '', '', '22.50000000'],
    ]);
    // The same figures as the operator API's statement, and closing = GET /gw/v1/balance today.
    const api = json(await admin(h.app, 'GET', `/merchants/${merchantId}/statement?from=2026-01-15&to=2026-01-16`)).result;
    expect(rows[0]!.balanceUsd).toBe(api.openingBalance);
    expect(rows[rows.length - 1]!.balanceUsd).toBe(api.closingBalance);
    expect(rows.slice(1, -1).map((r) => r.amountUsd)).toEqual(api.entries.map((e: any) => e.amountUsd));
    const sum = rows.slice(1, -1).reduce((t, r) => t.plus(r.amountUsd!), dec(rows[0]!.balanceUsd!));
    expect(sum.eq(rows[rows.length - 1]!.balanceUsd!)).toBe(true);
    // Live money only: where the balance still holds sandbox money beside it, that money is left out.
    const balance = json(await signed(h, desk, '/gw/v1/balance')).result;
    const live = balance.mode === 'live' ? dec(balance.available) : dec(balance.available).minus(ids.sandboxMoney!);
    expect(live.eq(rows[rows.length - 1]!.balanceUsd!)).toBe(true);
  });

  it('one day: the opening balance carries the days before; today by default', async () => {
    const rows = parse((await b.get('/cabinet/statement.csv?from=2026-01-16&to=2026-01-16')).body);
    expect(rows[0]).toMatchObject({ type: 'opening', at: '2026-01-16T00:00:00Z', balanceUsd: '10.00000000' });
    expect(rows.map((r) => r.type)).toEqual(['opening', 'credit', 'withdrawal', 'closing']);
    const today = parse((await b.get('/cabinet/statement.csv')).body);
    expect(today[0]!.at).toBe('2026-01-16T00:00:00Z');
    expect(today[today.length - 1]).toMatchObject({ type: 'closing', at: '2026-01-16T23:59:59Z', balanceUsd: '22.50000000' });
  });

  it('refuses days that are no range with the reason on a page', async () => {
    for (const q of ['from=2026-01-16&to=2026-01-15', 'from=2026-02-30&to=2026-03-01', 'from=x', 'from=2025-01-01&to=2026-01-16']) {
      const res = await b.get(`/cabinet/statement.csv?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.headers['content-type']).toContain('text/html');
    }
  });

  it('holds only the signed-in merchant\'s money, and needs a session', async () => {
    const { b: other } = await signUp('Other Statement Shop');
    const rows = parse((await other.get('/cabinet/statement.csv?from=2026-01-15&to=2026-01-16')).body);
    expect(rows.map((r) => [r.type, r.balanceUsd])).toEqual([['opening', '0.00000000'], ['closing', '0.00000000']]);
    const stranger = await new FormBrowser(h.app).get('/cabinet/statement.csv');
    expect(stranger.statusCode).toBe(303);
    expect(stranger.headers.location).toBe('/cabinet/sign-in');
  });

  it('the balance page leads to it with a from/to form', async () => {
    const page = await b.get('/cabinet/balance');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('action="/cabinet/statement.csv"');
    expect(page.body).toContain('name="from" value="2026-01-01"');
    expect(page.body).toContain('name="to" value="2026-01-16"');
  });
});
