import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { createHarness, json, signed, admin, type Harness } from '../helpers/harness.js';
import { FormBrowser } from '../helpers/formBrowser.js';
import { createTestDb } from '../helpers/db.js';
import { generateVolume, nonEmptyReason, type VolumeResult } from '../../tools/volume/generate.js';
import { parseVolumeArgs, UsageError } from '../../tools/volume/args.js';
import { eventBody } from '../../src/services/orderViews.js';
import { expireDueOrders } from '../../src/services/orderActions.js';
import { startMockProvider, type MockProvider } from '../../tools/mock-provider.js';
import type { OrderRow } from '../../src/store/orders.js';
import { loadMigrations, migrate } from '../../src/store/migrate.js';

/*
 * The volume tool on a small set (a few thousand orders), then the service on the result: every
 * invariant the service keeps must hold, and the service must read, list, credit, call back and
 * appeal the generated orders as its own.
 */

const ORDERS = 2000;
const SEED = 7;

let h: Harness;
let mock: MockProvider;
let v: VolumeResult;

beforeAll(async () => {
  h = await createHarness({ env: { OFFICE_REQUIRE_2FA: 'false' }, unlimitedOrders: true });
  mock = await startMockProvider({ key: 'prv_key', secret: 'prv_secret', clock: h.clock });
  v = await generateVolume(h.ctx.db, {
    orders: ORDERS,
    merchants: 8,
    months: 12,
    seed: SEED,
    nowMs: h.clock.now(),
    box: h.ctx.box,
    scryptLog2N: 10,
    providerBaseUrl: mock.url,
  });
}, 120_000);

afterAll(async () => {
  await mock?.close();
  await h?.close();
});

const q = <T = Record<string, any>>(sql: string, params: unknown[] = []) => h.ctx.db.query<T>(sql, params).then((r) => r.rows);

/** A browser signed in to the cabinet as the large merchant, or to the back office as the operator. */
async function signedIn(area: 'cabinet' | 'office'): Promise<FormBrowser> {
  const b = new FormBrowser(h.app);
  await b.get(`/${area}/sign-in`);
  const who = area === 'cabinet' ? v.merchant : v.operator;
  const res = await b.post(`/${area}/sign-in`, [['email', who.email], ['password', who.password]]);
  expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
  return b;
}

/** The orders a list shows from its first page on, following the link `older` finds, each once. */
async function ordersAcrossPages(b: FormBrowser, area: 'cabinet' | 'office', first: string, older: RegExp): Promise<string[]> {
  const ids: string[] = [];
  for (let url: string | null = first; url; ) {
    const res = await b.get(url);
    expect(res.statusCode).toBe(200);
    for (const m of res.body.matchAll(new RegExp(`href="/${area}/orders/(ord_[A-Za-z0-9]+)"`, 'g'))) if (ids.at(-1) !== m[1]) ids.push(m[1]!);
    url = older.exec(res.body)?.[1]?.replaceAll('&amp;', '&') ?? null;
  }
  return ids;
}

describe('volume tool: arguments', () => {
  it('takes the options of the contract, with their defaults', () => {
    expect(parseVolumeArgs(['--orders', '2000000'])).toEqual({ orders: 2_000_000, merchants: 100, months: 12, seed: 20_260_115 });
    expect(parseVolumeArgs(['--orders=5000', '--merchants', '10', '--months', '3', '--seed', '1'])).toEqual({ orders: 5000, merchants: 10, months: 3, seed: 1 });
  });

  it('refuses what is not one of them, naming it', () => {
    for (const [argv, word] of [
      [[], '--orders is required'],
      [['--orders', 'lots'], '--orders'],
      [['--orders', '0'], '--orders'],
      [['--orders', '1000', '--merchants', '1'], '--merchants'],
      [['--orders', '1000', '--rows', '5'], '"--rows"'],
      [['--orders', '1000', '--orders', '5'], 'twice'],
      [['--orders'], 'needs a value'],
    ] as const) {
      expect(() => parseVolumeArgs(argv), JSON.stringify(argv)).toThrow(UsageError);
      expect(() => parseVolumeArgs(argv)).toThrow(word);
    }
  });
});

describe('volume tool: the data', () => {
  it('prints the large merchant, a desk of it, an operator, and samples spread over the period', () => {
    expect(v.orders).toBe(ORDERS);
    expect(v.merchant).toMatchObject({ email: expect.stringContaining('@'), deskKey: expect.stringMatching(/^shp_[0-9a-z]{26}$/), deskSecret: expect.stringMatching(/^sk_/) });
    expect(v.operator.email).toContain('@');
    expect(v.sampleOrderIds.length).toBeGreaterThanOrEqual(50);
    expect(new Set(v.sampleOrderIds).size).toBe(v.sampleOrderIds.length);
    expect(v.sampleOrderRefs.length).toBeGreaterThanOrEqual(50);
    expect(v.samplePayerReferences).toHaveLength(100);
    expect(v.days).toHaveLength(10);
    for (const d of v.days) expect(d).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('gives the large merchant at least 40 % of the orders over at least 20 desks, over the whole period', async () => {
    const [r] = await q<{ mine: number; all: number; desks: number; first: Date; last: Date }>(
      `SELECT count(*) FILTER (WHERE merchant_id = $1)::int AS mine, count(*)::int AS all,
              count(DISTINCT desk_id) FILTER (WHERE merchant_id = $1)::int AS desks, min(created_at) AS first, max(created_at) AS last FROM orders`,
      [v.merchant.id],
    );
    expect(r!.all).toBe(ORDERS);
    expect(r!.mine / r!.all).toBeGreaterThanOrEqual(0.4);
    expect(r!.desks).toBeGreaterThanOrEqual(20);
    expect(h.clock.now() - r!.first.getTime()).toBeGreaterThan(300 * 86_400_000);
    expect(r!.last.getTime()).toBeLessThanOrEqual(h.clock.now());
    // The sample ids are the printed desk's, and its orders are from the first months to the last.
    const rows = await q<{ created_at: Date }>(`SELECT created_at FROM orders WHERE id = ANY($1::text[]) AND desk_id = $2 ORDER BY created_at`, [v.sampleOrderIds, v.merchant.deskId]);
    expect(rows).toHaveLength(v.sampleOrderIds.length);
    expect(rows.at(-1)!.created_at.getTime() - rows[0]!.created_at.getTime()).toBeGreaterThan(250 * 86_400_000);
  });

  it('has the status mix of a year: about 70 % completed, a quarter cancelled, 1 % appealed, the rest open from the last day', async () => {
    const rows = await q<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM orders GROUP BY status`);
    const share = (s: string) => (rows.find((r) => r.status === s)?.n ?? 0) / ORDERS;
    expect(share('Completed')).toBeGreaterThan(0.62);
    expect(share('Completed')).toBeLessThan(0.78);
    expect(share('Canceled')).toBeGreaterThan(0.2);
    expect(share('Canceled')).toBeLessThan(0.33);
    const [open] = await q<{ n: number; oldest: Date | null }>(`SELECT count(*)::int AS n, min(created_at) AS oldest FROM orders WHERE status IN ('Created', 'Payed')`);
    expect(open!.n).toBeGreaterThan(0);
    expect(h.clock.now() - open!.oldest!.getTime()).toBeLessThanOrEqual(86_400_000);
    const [appealed] = await q<{ n: number }>(`SELECT count(DISTINCT order_id)::int AS n FROM appeals`);
    expect(appealed!.n / ORDERS).toBeGreaterThan(0.003);
    expect(appealed!.n / ORDERS).toBeLessThan(0.03);
  });

  it('prices, charges and credits every order exactly as the service does', async () => {
    const orders = await q<OrderRow>(`SELECT * FROM orders ORDER BY seq`);
    for (const o of orders) {
      expect(new Decimal(o.settled_amount).eq(new Decimal(o.amount).div(o.rate).toDecimalPlaces(8, Decimal.ROUND_HALF_UP)), o.id).toBe(true);
      if (o.status !== 'Completed') {
        expect(new Decimal(o.credited_amount).isZero(), o.id).toBe(true);
        continue;
      }
      const commission = new Decimal(o.settled_amount).mul(o.commission_rate).div(100).toDecimalPlaces(8, Decimal.ROUND_HALF_UP);
      expect(new Decimal(o.commission_amount).eq(commission), o.id).toBe(true);
      expect(new Decimal(o.credited_amount).eq(new Decimal(o.settled_amount).minus(commission)), o.id).toBe(true);
    }
  });

  it('balances the ledger: every merchant balance is the sum of its entries, never below zero, one credit per completed order', async () => {
    const off = await q(
      `SELECT m.id FROM merchants m LEFT JOIN (SELECT merchant_id, sum(amount) AS s FROM ledger_entries GROUP BY 1) l ON l.merchant_id = m.id
        WHERE m.balance <> coalesce(l.s, 0) OR m.balance < 0`,
    );
    expect(off).toEqual([]);
    const [c] = await q<{ completed: number; credits: number; credited: string; sum: string }>(
      `SELECT (SELECT count(*)::int FROM orders WHERE status = 'Completed') AS completed,
              (SELECT count(*)::int FROM ledger_entries WHERE kind = 'credit') AS credits,
              (SELECT sum(credited_amount) FROM orders WHERE status = 'Completed') AS credited,
              (SELECT sum(amount) FROM ledger_entries WHERE kind = 'credit') AS sum`,
    );
    expect(c!.credits).toBe(c!.completed);
    expect(c!.sum).toBe(c!.credited);
    const kinds = await q<{ kind: string }>(`SELECT DISTINCT kind FROM ledger_entries`);
    expect(kinds.map((k) => k.kind).sort()).toEqual(['credit', 'reversal', 'withdrawal']);
    expect(await q(`SELECT 1 FROM withdrawals w LEFT JOIN ledger_entries l ON l.kind = 'withdrawal' AND l.reason = w.reference AND l.amount = -w.amount_usd WHERE l.id IS NULL`)).toEqual([]);
  });

  it('keeps the daily ledger rollup the trigger keeps, and the turnover counters completion keeps', async () => {
    const diff = await q(`
      SELECT * FROM (
        SELECT l.merchant_id, (l.created_at AT TIME ZONE 'UTC')::date AS day, coalesce(o.sandbox, false) AS sandbox,
               coalesce(sum(o.settled_amount) FILTER (WHERE l.kind = 'credit'), 0) AS turnover, sum(l.amount) AS net, count(*) AS entries
          FROM ledger_entries l LEFT JOIN orders o ON o.id = l.order_id GROUP BY 1, 2, 3) x
      FULL JOIN ledger_daily d USING (merchant_id, day, sandbox)
      WHERE x.net IS DISTINCT FROM d.net OR x.turnover IS DISTINCT FROM d.turnover OR x.entries IS DISTINCT FROM d.entries`);
    expect(diff).toEqual([]);
    const counters = await q(`
      SELECT * FROM (
        SELECT date_trunc('month', finished_at, 'UTC') AS window_start, sum(settled_amount) AS usd FROM orders
         WHERE status = 'Completed' AND NOT sandbox GROUP BY 1) x
      FULL JOIN (SELECT window_start, completed_usd AS usd FROM turnover_counters WHERE scope = 'platform' AND win = 'month') c USING (window_start)
      WHERE x.usd IS DISTINCT FROM c.usd`);
    expect(counters).toEqual([]);
  });

  it('gives orders, events and appeals ids as the service makes them: base32, the time they were made first', async () => {
    const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
    const timeOf = (id: string) => [...id.slice(4, 14)].reduce((t, c) => t * 32 + ALPHABET.indexOf(c), 0);
    const rows = await q<{ id: string; at: Date }>(`
      (SELECT id, created_at AS at FROM orders ORDER BY seq LIMIT 200)
      UNION ALL (SELECT id, created_at FROM outbox_events ORDER BY seq DESC LIMIT 200)
      UNION ALL (SELECT id, created_at FROM appeals LIMIT 50)`);
    expect(rows.length).toBeGreaterThan(300);
    for (const r of rows) {
      expect(r.id).toMatch(/^(ord|evt|apl)_[0-9abcdefghjkmnpqrstvwxyz]{26}$/);
      expect(timeOf(r.id), r.id).toBe(r.at.getTime());
    }
  });

  it('records every status change in the history, ending at the order as it stands', async () => {
    const wrong = await q(`
      SELECT o.id FROM orders o
        LEFT JOIN LATERAL (SELECT to_status, sub_status, at FROM order_transitions t WHERE t.order_id = o.id ORDER BY t.id DESC LIMIT 1) t ON true
       WHERE (o.status = 'Created' AND t.to_status IS NOT NULL)
          OR (o.status <> 'Created' AND (t.to_status IS DISTINCT FROM o.status OR t.sub_status IS DISTINCT FROM o.sub_status OR t.at <> o.updated_at))`);
    expect(wrong).toEqual([]);
    const [bad] = await q<{ n: number }>(
      `SELECT count(*)::int AS n FROM order_transitions t JOIN orders o ON o.id = t.order_id WHERE t.at < o.created_at OR t.at > $1`,
      [new Date(h.clock.now())],
    );
    expect(bad!.n).toBe(0);
  });

  it('writes each callback with its exact body, numbered as written, with 1 to 3 attempts ending the way the event ended', async () => {
    const EVENTS = `(SELECT * FROM outbox_events UNION ALL SELECT * FROM outbox_events_archive)`;
    const ATTEMPTS = `(SELECT * FROM callback_attempts UNION ALL SELECT * FROM callback_attempts_archive)`;
    const events = await q<{ created_at: Date }>(`SELECT created_at FROM ${EVENTS} e ORDER BY seq`);
    expect(events.length).toBeGreaterThan(ORDERS * 0.9);
    for (let k = 1; k < events.length; k++) expect(events[k]!.created_at.getTime()).toBeGreaterThanOrEqual(events[k - 1]!.created_at.getTime());
    // The last event of a closed order states the order as it stands now, byte for byte.
    const last = await q<OrderRow & { body: string; event: any; event_at: Date }>(
      `SELECT o.*, e.body, e.event, e.created_at AS event_at FROM orders o
         JOIN LATERAL (SELECT * FROM ${EVENTS} x WHERE x.order_id = o.id ORDER BY x.seq DESC LIMIT 1) e ON true
        WHERE o.status IN ('Completed', 'Canceled', 'Dispute')`,
    );
    for (const o of last) expect(o.body, o.id).toBe(eventBody(o, o.event, o.event_at.getTime()));
    const mismatched = await q(`
      SELECT e.id FROM ${EVENTS} e
        JOIN LATERAL (SELECT count(*)::int AS n, max(at) AS last_at, (array_agg(outcome ORDER BY attempt DESC))[1] AS last_outcome
                        FROM ${ATTEMPTS} a WHERE a.event_id = e.id) a ON true
       WHERE a.n <> e.attempts OR a.n NOT BETWEEN 1 AND 3 OR a.last_at <> e.finished_at OR a.last_outcome <> e.state`);
    expect(mismatched).toEqual([]);
    const [retried] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM ${ATTEMPTS} a WHERE outcome = 'retry'`);
    expect(retried!.n).toBeGreaterThan(0);
  });

  it('leaves delivered callbacks older than RETENTION_DAYS where retention puts them: in the archive, with their attempts', async () => {
    const before = new Date(h.clock.now() - 90 * 86_400_000);
    const [hot] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM outbox_events WHERE state = 'delivered' AND created_at < $1`, [before]);
    expect(hot!.n).toBe(0);
    const [arch] = await q<{ n: number; newest: Date; kept: number }>(
      `SELECT count(*)::int AS n, max(created_at) AS newest, (SELECT count(*)::int FROM outbox_events WHERE created_at < $1) AS kept FROM outbox_events_archive`,
      [before],
    );
    expect(arch!.n).toBeGreaterThan(ORDERS / 2);
    expect(arch!.newest.getTime()).toBeLessThan(before.getTime());
    // Refused deliveries stay where the cabinet's callbacks page finds them.
    expect(arch!.kept).toBeGreaterThanOrEqual(0);
    expect(await q(`SELECT a.id FROM callback_attempts_archive a LEFT JOIN outbox_events_archive e ON e.id = a.event_id WHERE e.id IS NULL`)).toEqual([]);
    expect(await q(`SELECT a.id FROM callback_attempts a LEFT JOIN outbox_events e ON e.id = a.event_id WHERE e.id IS NULL`)).toEqual([]);
  });

  it('gives every disputed order its open appeal, every appeal its order, and the appeal guard its count', async () => {
    const [d] = await q<{ disputed: number; open: number }>(
      `SELECT (SELECT count(*)::int FROM orders WHERE status = 'Dispute') AS disputed, (SELECT count(*)::int FROM appeals WHERE status = 'Open') AS open`,
    );
    expect(d!.open).toBe(d!.disputed);
    expect(await q(`SELECT a.id FROM appeals a JOIN orders o ON o.id = a.order_id WHERE (a.status = 'Open') <> (o.status = 'Dispute') OR a.amount <> o.settled_amount`)).toEqual([]);
    expect(await q(`SELECT p.id FROM providers p WHERE p.paused_appeals <> ((SELECT count(*) FROM appeals a WHERE a.provider_id = p.id AND a.status = 'Open') >= 10)`)).toEqual([]);
  });

  it('refuses a database that holds data, before changing anything', async () => {
    expect(await nonEmptyReason(h.ctx.db)).toMatch(/holds rows/);
    const other = await createTestDb();
    try {
      expect(await nonEmptyReason(other.db)).toBeNull();
    } finally {
      await other.drop();
    }
    const before = await q<{ n: number }>(`SELECT count(*)::int AS n FROM orders`);
    await expect(generateVolume(h.ctx.db, { orders: 100, merchants: 2, months: 1, seed: 1, nowMs: h.clock.now(), box: h.ctx.box, scryptLog2N: 10 })).rejects.toThrow(/holds rows/);
    expect(await q(`SELECT count(*)::int AS n FROM orders`)).toEqual(before);
  });

  it('makes the same data from the same seed', async () => {
    const make = async () => {
      const t = await createTestDb();
      const out = await generateVolume(t.db, { orders: 400, merchants: 3, months: 2, seed: SEED, nowMs: h.clock.now(), box: h.ctx.box, scryptLog2N: 10 });
      const { rows } = await t.db.query<{ d: string }>(
        `SELECT md5(string_agg(id || status || amount || settled_amount || created_at::text || coalesce(payer_reference, ''), ',' ORDER BY seq))
                || md5((SELECT string_agg(id || body, ',' ORDER BY seq) FROM outbox_events)) AS d FROM orders`,
      );
      await t.drop();
      return { out, digest: rows[0]!.d };
    };
    const [a, b] = [await make(), await make()];
    expect(b).toEqual(a);
  }, 120_000);
});

describe('the service on the generated data', () => {
  const desk = () => ({ key: v.merchant.deskKey, secret: v.merchant.deskSecret });

  it('reads the orders, the balance and the events feed over the signed API', async () => {
    for (const id of [v.sampleOrderIds[0]!, v.sampleOrderIds.at(-1)!, v.sampleOrderRefs[3]!]) {
      const res = await signed(h, desk(), `/gw/v1/orders/${id}`);
      expect(res.statusCode, res.body).toBe(200);
    }
    const [m] = await q<{ balance: string }>(`SELECT balance FROM merchants WHERE id = $1`, [v.merchant.id]);
    const bal = json(await signed(h, desk(), '/gw/v1/balance'));
    expect(bal.result.available).toBe(m!.balance);
    const ev = json(await signed(h, desk(), '/gw/v1/events'));
    expect(ev.result.events.length).toBeGreaterThan(0);
    for (const e of ev.result.events) expect(JSON.parse(e.body).id).toBe(e.orderId);
  });

  it('lets the merchant sign in and see its orders, balance, callbacks and appeals; the operator its back office', async () => {
    const b = await signedIn('cabinet');
    for (const url of ['/cabinet', '/cabinet/orders', `/cabinet/orders?desk=${v.merchant.deskId}`, '/cabinet/balance', '/cabinet/callbacks', '/cabinet/appeals', `/cabinet/orders/${v.sampleOrderIds[5]}`]) {
      const res = await b.get(url);
      expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
    }
    const csv = await b.get(`/cabinet/orders.csv?from=${v.days[9]}&to=${v.days[9]}T23:59:59Z`);
    expect(csv.statusCode).toBe(200);
    const o = await signedIn('office');
    for (const url of ['/office', '/office/orders', `/office/orders?q=${v.samplePayerReferences[0]}`, `/office/merchants/${v.merchant.id}`, '/office/queues/appeals', '/office/audit']) {
      const res = await o.get(url);
      expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
    }
    const found = await o.get(`/office/orders?q=${v.samplePayerReferences[7]}`);
    const [withRef] = await q<{ id: string }>(`SELECT id FROM orders WHERE payer_reference = $1`, [v.samplePayerReferences[7]]);
    expect(found.body).toContain(withRef!.id);
  });

  it('pages through a month of orders newest first, every order of it once, in the API, the cabinet and the back office, and finds an order by its payer reference in the cabinet', async () => {
    const month = v.days[5]!.slice(0, 7);
    const from = `${month}-01`;
    const to = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1)).toISOString().slice(0, 10);
    const expected = (await q<{ id: string }>(
      `SELECT id FROM orders WHERE merchant_id = $1 AND placement = 'placed' AND created_at >= $2 AND created_at < $3 ORDER BY seq DESC`,
      [v.merchant.id, from, to],
    )).map((r) => r.id);
    expect(expected.length).toBeGreaterThan(20);
    // The operator API, 7 to a page, and the cabinet's list by its "older" links: the same orders in the same order.
    const api: string[] = [];
    for (let before: string | null = null, k = 0; k === 0 || before; k++) {
      const page: { items: { id: string }[]; next: string | null } = json(await admin(h.app, 'GET', `/orders?merchantId=${v.merchant.id}&from=${from}&to=${to}&limit=7${before ? `&before=${before}` : ''}`)).result;
      api.push(...page.items.map((o) => o.id));
      before = page.next;
    }
    expect(api).toEqual(expected);
    const b = await signedIn('cabinet');
    expect(await ordersAcrossPages(b, 'cabinet', `/cabinet/orders?from=${from}&to=${to}`, /href="(\/cabinet\/orders\?[^"]*before=[^"]+)"/)).toEqual(expected);
    // The cabinet's search matches a payer reference, as the back office's does.
    const [paid] = await q<{ id: string; payer_reference: string }>(
      `SELECT id, payer_reference FROM orders WHERE merchant_id = $1 AND payer_reference = ANY($2::text[]) ORDER BY seq LIMIT 1`,
      [v.merchant.id, v.samplePayerReferences],
    );
    const found = await b.get(`/cabinet/orders?q=${encodeURIComponent(paid!.payer_reference)}`);
    expect(found.statusCode).toBe(200);
    expect(found.body).toContain(paid!.id);
    // The operator API's q stays an id or an orderRef.
    expect(json(await admin(h.app, 'GET', `/orders?q=${encodeURIComponent(paid!.payer_reference)}`)).result.items).toEqual([]);

    // The back office's live orders of the month (its `to` is a whole day, included), by its
    // "Older orders" links: every one once, newest first.
    const live = (await q<{ id: string }>(
      `SELECT id FROM orders WHERE NOT sandbox AND placement = 'placed' AND created_at >= $1 AND created_at < $2::date + 1 ORDER BY seq DESC`,
      [from, to],
    )).map((r) => r.id);
    expect(live.length).toBeGreaterThan(50);
    const o = await signedIn('office');
    expect(await ordersAcrossPages(o, 'office', `/office/orders?from=${from}&to=${to}`, /<p class="pager"><a href="([^"]+)"/)).toEqual(live);
  });

  it('credits a paid order, decides an open appeal and expires an open order as its own, the ledger still balanced', async () => {
    const [payed] = await q<{ id: string; merchant_id: string }>(`SELECT id, merchant_id FROM orders WHERE status = 'Payed' LIMIT 1`);
    if (payed) {
      const res = await admin(h.app, 'POST', `/orders/${payed.id}/confirm`);
      expect(res.statusCode, res.body).toBe(200);
      expect(json(res).result.status).toBe('Completed');
    }
    const [appeal] = await q<{ id: string }>(`SELECT id FROM appeals WHERE status = 'Open' LIMIT 1`);
    if (appeal) {
      const res = await admin(h.app, 'POST', `/appeals/${appeal.id}/accept`, { comment: 'found it' });
      expect(res.statusCode, res.body).toBe(200);
    }
    const [closed] = await q<{ id: string }>(`SELECT id FROM orders WHERE status = 'Canceled' AND cancel_reason = 'expired' AND desk_id = $1 ORDER BY seq DESC LIMIT 1`, [v.merchant.deskId]);
    const opened = json(await signed(h, desk(), '/gw/v1/appeals', { body: JSON.stringify({ orderId: closed!.id, reason: 'paid late' }) }));
    expect(opened.result?.status ?? opened, JSON.stringify(opened)).toBe('Open');
    // A day later every open order has expired, with its callback event, as the worker does it.
    h.clock.advance(86_400_000 + 60_000);
    let n = 0;
    for (let k; (k = await expireDueOrders(h.ctx, 500)) > 0; ) n += k;
    expect(n).toBeGreaterThan(0);
    expect(await q(`SELECT id FROM orders WHERE status = 'Created'`)).toEqual([]);
    expect(
      await q(`SELECT m.id FROM merchants m LEFT JOIN (SELECT merchant_id, sum(amount) AS s FROM ledger_entries GROUP BY 1) l ON l.merchant_id = m.id WHERE m.balance <> coalesce(l.s, 0)`),
    ).toEqual([]);
  });

  it('creates new orders for the large merchant through its live providers', async () => {
    const res = await signed(h, desk(), '/gw/v1/orders', { body: JSON.stringify({ amount: 1500, currency: 'RUB', rail: 'Sbp', orderRef: 'after-the-year-1' }) });
    expect(res.statusCode, res.body).toBe(201);
    expect(json(res).result.payment).toBeTruthy();
  });
});

describe('the index migrations on a database holding the data', () => {
  it('build their indexes CONCURRENTLY, valid and recorded, on the generated data', async () => {
    const ours = loadMigrations().filter((m) => /_(scale_indexes|retention_index|ledger_mode_index)\.sql$/.test(m.name));
    expect(ours.map((m) => m.version)).toEqual([11, 17, 19]);
    const names = ours.flatMap((m) => {
      // Outside a transaction, and every index built concurrently: a service on a big database keeps writing meanwhile.
      expect(m.sql.startsWith('--! no-transaction')).toBe(true);
      expect(m.sql).not.toMatch(/CREATE (UNIQUE )?INDEX (?!CONCURRENTLY)/);
      return [...m.sql.matchAll(/CREATE INDEX CONCURRENTLY IF NOT EXISTS (\w+)/g)].map((x) => x[1]!);
    });
    expect(names.length).toBe(16);
    for (const name of names) await h.ctx.db.exec(`DROP INDEX ${name}`);
    await h.ctx.db.query('DELETE FROM schema_migrations WHERE version = ANY($1::int[])', [ours.map((m) => m.version)]);
    expect(await migrate(h.ctx.db)).toEqual(ours.map((m) => m.name));
    const built = await q<{ name: string; valid: boolean }>(
      `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ANY($1::text[])`,
      [names],
    );
    expect(built.sort((a, b) => (a.name < b.name ? -1 : 1))).toEqual([...names].sort().map((name) => ({ name, valid: true })));
    expect(await migrate(h.ctx.db)).toEqual([]);
  });
});
