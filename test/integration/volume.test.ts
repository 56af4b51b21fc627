import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { ADMIN_TOKEN, createHarness, json, signed, admin, type Harness } from '../helpers/harness.js';
import { creditDaysDifferences, feed } from './reconciliation/helpers.js';
import { accountLookup, normalizeAccount } from '../../src/domain/requisites.js';
import { requisitesByAccounts, requisitesByTails } from '../../src/reconciliation/store.js';
import { FormBrowser } from '../helpers/formBrowser.js';
import { createTestDb } from '../helpers/db.js';
import { generateVolume, nonEmptyReason, type VolumeResult } from '../../tools/volume/generate.js';
import { HELP, parseVolumeArgs, UsageError, wantsHelp } from '../../tools/volume/args.js';
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
/** The pool: credits and requisites (a quarter of them, the cards whose number is a multiple of 4, with weekly statements). */
const CREDITS = 700;
const REQUISITES = 40;

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
    credits: CREDITS,
    requisites: REQUISITES,
  });
}, 120_000);

afterAll(async () => {
  await mock?.close();
  await h?.close();
});

const q = <T = Record<string, any>>(sql: string, params: unknown[] = []) => h.ctx.db.query<T>(sql, params).then((r) => r.rows);
const pool = () => v.pool!;

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
    expect(parseVolumeArgs(['--orders', '2000000'])).toEqual({ orders: 2_000_000, merchants: 100, months: 12, seed: 20_260_115, credits: 0, requisites: 0 });
    expect(parseVolumeArgs(['--orders=5000', '--merchants', '10', '--months', '3', '--seed', '1'])).toEqual({ orders: 5000, merchants: 10, months: 3, seed: 1, credits: 0, requisites: 0 });
  });

  it('makes a pool with --pool (a credit for every 4 orders, 200 requisites), --credits or --requisites; a million credits is allowed', () => {
    expect(parseVolumeArgs(['--orders', '2000000', '--pool'])).toMatchObject({ credits: 500_000, requisites: 200 });
    expect(parseVolumeArgs(['--orders', '2000000', '--credits', '1000000'])).toMatchObject({ credits: 1_000_000, requisites: 200 });
    expect(parseVolumeArgs(['--orders', '1001', '--requisites=50'])).toMatchObject({ credits: 251, requisites: 50 });
    expect(parseVolumeArgs(['--orders', '1000', '--pool', '--credits', '7', '--requisites', '10'])).toMatchObject({ credits: 7, requisites: 10 });
  });

  it('prints its help for --help or -h wherever it stands, whatever else is given', () => {
    for (const argv of [['--help'], ['-h'], ['--orders', '100', '--help'], ['--nonsense', '-h']]) expect(wantsHelp(argv), JSON.stringify(argv)).toBe(true);
    expect(wantsHelp(['--orders', '100'])).toBe(false);
    for (const option of ['--orders N', '--merchants M', '--months K', '--seed S', '--pool', '--credits C', '--requisites R', '--help']) expect(HELP).toContain(option);
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
      [['--orders', '1000', '--credits', '0'], '--credits'],
      [['--orders', '1000', '--requisites', '5001'], '--requisites'],
      [['--orders', '1000', '--pool', '--pool'], 'twice'],
      [['--orders', '1000', '--pool=yes'], '"--pool=yes"'],
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
    // The pool's credits per day, requisite and status, as the credits' triggers keep them.
    expect(await creditDaysDifferences(h)).toEqual([]);
    expect((await q<{ n: number }>('SELECT count(*)::int AS n FROM credit_days'))[0]!.n).toBeGreaterThan(10);
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
      const out = await generateVolume(t.db, { orders: 400, merchants: 3, months: 2, seed: SEED, nowMs: h.clock.now(), box: h.ctx.box, scryptLog2N: 10, credits: 150, requisites: 12 });
      const { rows } = await t.db.query<{ d: string }>(
        `SELECT md5(string_agg(id || status || amount || settled_amount || created_at::text || coalesce(payer_reference, '') || coalesce(provider_id, ''), ',' ORDER BY seq))
                || md5((SELECT string_agg(id || body, ',' ORDER BY seq) FROM outbox_events))
                || md5((SELECT string_agg(id || status || account || amount || received_at::text || coalesce(source_id, '') || coalesce(bank_reference, ''), ',' ORDER BY seq) FROM credits))
                || md5((SELECT string_agg(e.statement_id || e.idx || coalesce(e.credit_id, '') || e.amount, ',' ORDER BY s.seq, e.idx) FROM statement_entries e JOIN statements s ON s.id = e.statement_id)) AS d FROM orders`,
      );
      await t.drop();
      return { out, digest: rows[0]!.d };
    };
    const [a, b] = [await make(), await make()];
    expect(b).toEqual(a);
  }, 120_000);
});


describe('volume tool: the pool', () => {
  const POOL_ORDERS = `(SELECT o.* FROM orders o WHERE o.provider_id = $1)`;

  it('prints the pool with its feed credentials and counts; writes exactly the credits asked for, most of them paying an order', async () => {
    expect(pool()).toMatchObject({ id: expect.stringMatching(/^prv_/), key: expect.stringMatching(/^pvk_/), secret: expect.stringMatching(/^sk_/), requisites: REQUISITES, credits: CREDITS });
    expect(pool().matched / CREDITS).toBeGreaterThan(0.6);
    expect(pool().matched).toBeLessThanOrEqual(CREDITS);
    expect(pool().sampleCreditIds.length).toBe(100);
    expect(pool().days).toHaveLength(10);
    const [c] = await q<{ n: number; matched: number; requisites: number; statements: number }>(
      `SELECT (SELECT count(*)::int FROM credits WHERE provider_id = $1) AS n, (SELECT count(*)::int FROM credits WHERE status = 'matched') AS matched,
              (SELECT count(*)::int FROM requisites WHERE provider_id = $1) AS requisites, (SELECT count(*)::int FROM statements WHERE provider_id = $1) AS statements`,
      [pool().id],
    );
    expect(c).toEqual({ n: CREDITS, matched: pool().matched, requisites: REQUISITES, statements: pool().statements });
    const [p] = await q(`SELECT kind, api_key FROM providers WHERE id = $1`, [pool().id]);
    expect(p).toEqual({ kind: 'pool', api_key: pool().key });
  });

  it('serves live Classic RUB orders on cards and SBP, each given a requisite of its rail with the requisite\'s payment, the assignment keeping its order\'s state', async () => {
    const [o] = await q<{ n: number; wrong: number; payed: number; refs: number; rejected: number }>(
      `SELECT count(*)::int AS n,
              count(*) FILTER (WHERE o.sandbox OR o.method <> 'Classic' OR o.currency <> 'RUB' OR o.rail NOT IN ('Sbp', 'C2c') OR a.order_id IS NULL
                                 OR o.payment <> r.payment OR r.rails <> jsonb_build_array(o.rail) OR a.amount <> o.amount OR a.currency <> o.currency
                                 OR a.expires_at <> o.expires_at OR a.assigned_at < o.created_at OR a.assigned_at > o.created_at + interval '2 seconds'
                                 OR a.order_status <> o.status OR a.order_placement <> o.placement OR a.order_finished_at IS DISTINCT FROM o.finished_at)::int AS wrong,
              count(*) FILTER (WHERE o.status = 'Payed')::int AS payed, count(o.payer_reference)::int AS refs,
              count(*) FILTER (WHERE o.cancel_reason = 'rejected by provider')::int AS rejected
         FROM ${POOL_ORDERS} o LEFT JOIN requisite_assignments a ON a.order_id = o.id LEFT JOIN requisites r ON r.id = a.requisite_id`,
      [pool().id],
    );
    expect(o!.n).toBeGreaterThan(pool().matched);
    // A pool reports no payments: none of its orders waits for a confirmation, carries a reported reference or was rejected.
    expect(o).toMatchObject({ wrong: 0, payed: 0, refs: 0, rejected: 0 });
    expect(await q(`SELECT order_id FROM requisite_assignments a LEFT JOIN orders o ON o.id = a.order_id WHERE o.provider_id IS DISTINCT FROM a.provider_id`)).toEqual([]);
    const [last] = await q(`SELECT count(*)::int AS n FROM requisites r WHERE r.provider_id = $1 AND r.last_used_at IS DISTINCT FROM (SELECT max(assigned_at) FROM requisite_assignments a WHERE a.requisite_id = r.id)`, [pool().id]);
    expect(last).toEqual({ n: 0 });
  });

  it('pays each order with one credit of its amount that arrived while it was open, and completes it when the feed brought the money, audited by the matcher', async () => {
    const wrong = await q(
      `SELECT c.id FROM credits c JOIN orders o ON o.id = c.order_id JOIN requisite_assignments a ON a.order_id = o.id
        WHERE o.status <> 'Completed' OR c.amount <> o.amount OR c.currency <> o.currency OR c.requisite_id <> a.requisite_id OR c.source <> 'feed'
           OR c.received_at < o.created_at OR c.received_at >= o.expires_at OR c.created_at <> o.finished_at OR c.created_at < c.received_at
           OR c.matched_by <> 'amount' OR c.reason IS NOT NULL`,
    );
    expect(wrong).toEqual([]);
    // Completed at once (no Payed step), and in the audit trail by the matcher naming the credit, or by an operator when no credit paid it.
    const [t] = await q<{ wrong: number }>(
      `SELECT count(*)::int AS wrong FROM ${POOL_ORDERS} o
        WHERE o.status = 'Completed' AND (SELECT array_agg(t.from_status || '>' || t.to_status ORDER BY t.id) FROM order_transitions t WHERE t.order_id = o.id) <> ARRAY['Created>Completed']
          AND NOT EXISTS (SELECT 1 FROM appeals ap WHERE ap.order_id = o.id)`,
      [pool().id],
    );
    expect(t!.wrong).toBe(0);
    const audited = await q<{ actor: string; n: number; with_credit: number }>(
      `SELECT (e.actor = 'matcher') AS matcher, count(*)::int AS n, count(c.id)::int AS with_credit
         FROM ${POOL_ORDERS} o JOIN audit_entries e ON e.object_id = o.id AND e.action = 'order.confirm' LEFT JOIN credits c ON c.order_id = o.id AND c.id = e.detail
        GROUP BY 1 ORDER BY 1`,
      [pool().id],
    );
    expect(audited).toEqual([
      { matcher: false, n: expect.any(Number), with_credit: 0 },
      { matcher: true, n: pool().matched, with_credit: pool().matched },
    ]);
    const [unconfirmed] = await q<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${POOL_ORDERS} o WHERE o.status = 'Completed' AND NOT EXISTS (SELECT 1 FROM audit_entries e WHERE e.object_id = o.id AND e.action = 'order.confirm')
          AND NOT EXISTS (SELECT 1 FROM appeals ap WHERE ap.order_id = o.id AND ap.status = 'Accepted')`,
      [pool().id],
    );
    expect(unconfirmed!.n).toBe(0);
  });

  it('keys every credit by its terms as the service would: the requisite its account names (masked ones by their last digits), else the account as written; the UTC day it arrived', async () => {
    const credits = await q<{ account: string; account_key: string; requisite_id: string | null; booking_day: string; day: string }>(
      `SELECT account, account_key, requisite_id, to_char(booking_day, 'YYYY-MM-DD') AS booking_day, to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM credits`,
    );
    const accounts = [...new Set(credits.map((c) => c.account))];
    const lookups = new Map(accounts.map((a) => [a, accountLookup(a)]));
    const byKey = new Map((await requisitesByAccounts(h.ctx.db, pool().id, [...new Set([...lookups.values()].flatMap((l) => l.keys))])).map((r) => [r.account, r.requisite_id]));
    const byTail = new Map<string, string[]>();
    for (const r of await requisitesByTails(h.ctx.db, pool().id, [...new Set([...lookups.values()].flatMap((l) => (l.tail ? [l.tail] : [])))])) byTail.set(r.tail, [...(byTail.get(r.tail) ?? []), r.requisite_id]);
    const keyOf = (a: string) => {
      const l = lookups.get(a)!;
      const found = l.keys.map((k) => byKey.get(k)).find((id) => id !== undefined) ?? (l.tail && byTail.get(l.tail)?.length === 1 ? byTail.get(l.tail)![0] : undefined);
      return found ?? `raw:${normalizeAccount(a)}`;
    };
    const wrong = credits.filter((c) => c.account_key !== keyOf(c.account) || (c.requisite_id ?? `raw:${normalizeAccount(c.account)}`) !== c.account_key || c.booking_day !== c.day);
    expect(wrong).toEqual([]);
    // Some of each way of writing an account: card digits, a phone with and without +, a masked card, an account of no requisite.
    const forms = new Set(accounts.map((a) => (a.includes('*') ? 'masked' : a.startsWith('+') ? 'phone+' : a.startsWith('7') ? 'phone' : a.startsWith('2202') ? 'unknown' : 'card')));
    expect([...forms].sort()).toEqual(['card', 'masked', 'phone', 'phone+', 'unknown']);
  });

  it('keeps the id the feed or an operator gave each of their credits with its terms, and none for the money only a statement saw', async () => {
    const rows = await q<{ source: string; n: number; items: number; exact: number }>(
      `SELECT c.source, count(*)::int AS n, count(i.credit_id)::int AS items,
              count(*) FILTER (WHERE i.source = c.source AND i.source_id = c.source_id AND i.account_key = c.account_key AND i.currency = c.currency
                                 AND i.amount = c.amount AND i.booking_day = c.booking_day AND i.provider_id = c.provider_id AND i.created_at = c.created_at)::int AS exact
         FROM credits c LEFT JOIN credit_items i ON i.credit_id = c.id GROUP BY 1 ORDER BY 1`,
    );
    expect(rows.map((r) => r.source)).toEqual(['feed', 'operator', 'statement']);
    for (const r of rows) expect(r, r.source).toEqual({ source: r.source, n: r.n, items: r.source === 'statement' ? 0 : r.n, exact: r.source === 'statement' ? 0 : r.n });
    expect(await q(`SELECT credit_id FROM credit_items GROUP BY 1 HAVING count(*) > 1`)).toEqual([]);
  });

  it('keeps weekly statements of a quarter of the requisites: entries evidencing the week\'s credits with the bank\'s references, balances that add up and continue, counts and audit as an upload leaves them', async () => {
    const [e] = await q<Record<string, number>>(
      `SELECT count(*) FILTER (WHERE e.kind = 'credit')::int AS credits,
              count(*) FILTER (WHERE e.kind = 'credit' AND (c.id IS NULL OR c.amount <> e.amount OR c.currency <> e.currency OR c.booking_day <> e.booking_date
                                 OR c.received_at <> e.received_at OR c.bank_reference IS DISTINCT FROM e.bank_reference OR e.bank_reference IS NULL
                                 OR NOT c.in_statement OR c.account_key <> r.id OR e.account <> s.accounts->>0
                                 OR (e.outcome = 'new') <> (c.source = 'statement' AND c.statement_id = s.id)
                                 OR c.booking_day NOT BETWEEN s.period_from AND s.period_to
                                 OR (e.outcome = 'duplicate' AND c.created_at >= s.created_at) OR (e.outcome = 'new' AND c.created_at <> s.created_at)))::int AS wrong,
              count(*) FILTER (WHERE e.kind = 'debit' AND (e.outcome <> 'skipped' OR e.credit_id IS NOT NULL))::int AS wrong_debits
         FROM statement_entries e JOIN statements s ON s.id = e.statement_id JOIN requisite_accounts ra ON ra.account = s.accounts->>0 JOIN requisites r ON r.id = ra.requisite_id
         LEFT JOIN credits c ON c.id = e.credit_id`,
    );
    expect(e!.credits).toBeGreaterThan(0);
    expect(e).toMatchObject({ wrong: 0, wrong_debits: 0 });
    // Evidenced exactly when an entry names the credit; those a statement recorded name that statement.
    expect(await q(`SELECT c.id FROM credits c WHERE c.in_statement <> EXISTS (SELECT 1 FROM statement_entries e WHERE e.credit_id = c.id)
                     OR (c.source = 'statement') <> (c.statement_id IS NOT NULL) OR c.legacy_statement`)).toEqual([]);
    const statements = await q<{ id: string; accounts: string[]; account_keys: string[]; sections: any[]; counts: any; continuity: string; entries: number; credits: number; dup: number; debit: string | null; credited: string | null; period_from: string; period_to: string; state: string; balance_check: string }>(
      `SELECT s.id, s.accounts, s.account_keys, s.sections, s.counts, s.continuity, s.state, s.balance_check,
              to_char(s.period_from, 'YYYY-MM-DD') AS period_from, to_char(s.period_to, 'YYYY-MM-DD') AS period_to,
              (SELECT count(*)::int FROM statement_entries e WHERE e.statement_id = s.id) AS entries,
              (SELECT count(*)::int FROM statement_entries e WHERE e.statement_id = s.id AND e.kind = 'credit') AS credits,
              (SELECT count(*)::int FROM statement_entries e WHERE e.statement_id = s.id AND e.outcome = 'duplicate') AS dup,
              (SELECT sum(amount)::text FROM statement_entries e WHERE e.statement_id = s.id AND e.kind = 'debit') AS debit,
              (SELECT sum(amount)::text FROM statement_entries e WHERE e.statement_id = s.id AND e.kind = 'credit') AS credited
         FROM statements s WHERE s.provider_id = $1 ORDER BY s.accounts->>0, s.period_from`,
      [pool().id],
    );
    expect(statements.length).toBe(pool().statements);
    const accounts = new Set(statements.map((x) => x.accounts[0]));
    expect(accounts.size).toBe(REQUISITES / 4);
    let previous: (typeof statements)[number] | null = null;
    for (const st of statements) {
      const [sec] = st.sections;
      expect(st.sections).toHaveLength(1);
      expect(st).toMatchObject({ state: 'recorded', balance_check: 'consistent', account_keys: [normalizeAccount(st.accounts[0]!)] });
      expect(sec).toMatchObject({ account: st.accounts[0], accountKey: st.account_keys[0], from: st.period_from, to: st.period_to, balanceCheck: 'consistent', continuity: st.continuity });
      expect(new Decimal(sec.opening.amount).plus(sec.credits).minus(sec.debits).eq(sec.closing.amount), st.id).toBe(true);
      expect(new Decimal(sec.credits).eq(st.credited ?? 0) && new Decimal(sec.debits).eq(st.debit ?? 0), st.id).toBe(true);
      expect(st.counts).toEqual({ entries: st.entries, credits: st.credits, duplicates: st.dup, matched: 0, unmatched: st.credits - st.dup, skipped: st.entries - st.credits, unreadable: 0, recordedUpTo: st.entries });
      const continues = previous !== null && previous.accounts[0] === st.accounts[0];
      expect(st.continuity, st.id).toBe(continues ? 'continuous' : 'first');
      if (continues) {
        expect(sec.opening.amount, st.id).toBe(previous!.sections[0].closing.amount);
        expect(Date.parse(st.period_from) - Date.parse(previous!.period_to), st.id).toBe(86_400_000);
      }
      previous = st;
    }
    const [audit] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM audit_entries e JOIN statements s ON e.detail LIKE s.id || ' camt.053: entries %' WHERE e.action = 'provider.statement' AND e.object_id = $1 AND e.actor = s.uploaded_by`, [pool().id]);
    expect(audit!.n).toBe(pool().statements);
  });

  it('leaves the credits that paid no order unmatched with the reason matching gives, or ignored by an operator with a reason and an audit entry', async () => {
    const rows = await q<{ status: string; reason: string | null; known: boolean; n: number }>(
      `SELECT status, CASE WHEN status = 'ignored' THEN 'any' ELSE reason END AS reason, requisite_id IS NOT NULL AS known, count(*)::int AS n FROM credits WHERE status <> 'matched' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    );
    expect(rows.filter((r) => r.status === 'unmatched').map((r) => [r.reason, r.known])).toEqual([['no order', true], ['unknown account', false]]);
    expect(rows.some((r) => r.status === 'ignored')).toBe(true);
    expect(await q(`SELECT c.id FROM credits c WHERE c.status = 'ignored' AND (c.reason IS NULL OR c.order_id IS NOT NULL OR NOT EXISTS (
                      SELECT 1 FROM audit_entries e WHERE e.action = 'credit.ignore' AND e.object_id = c.id AND e.detail = c.reason AND e.at <= c.updated_at AND e.at >= c.created_at))`)).toEqual([]);
  });
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

  it('reports a day of the pool as the data holds it: the day\'s credits by status and amount, and its orders', async () => {
    for (const day of [pool().days[0]!, pool().days[9]!]) {
      const report = json(await admin(h.app, 'GET', `/reconciliation?providerId=${pool().id}&date=${day}`)).result;
      const [c] = await q<{ credits: number; amount: string; matched: number; unmatched: number; ignored: number }>(
        `SELECT count(*)::int AS credits, coalesce(sum(amount), 0)::numeric(24, 2)::text AS amount, count(*) FILTER (WHERE status = 'matched')::int AS matched,
                count(*) FILTER (WHERE status = 'unmatched')::int AS unmatched, count(*) FILTER (WHERE status = 'ignored')::int AS ignored
           FROM credits WHERE provider_id = $1 AND received_at >= $2::timestamptz AND received_at < $2::timestamptz + interval '1 day'`,
        [pool().id, `${day}T00:00:00Z`],
      );
      expect(c!.credits, day).toBeGreaterThan(0);
      expect(report.totals, day).toMatchObject({ credits: c!.credits, creditsAmount: c!.amount, matched: c!.matched, unmatched: c!.unmatched, ignored: c!.ignored });
      expect(report.requisites).toHaveLength(REQUISITES);
      const [o] = await q<{ issued: number }>(
        `SELECT count(*)::int AS issued FROM orders WHERE provider_id = $1 AND created_at >= $2::timestamptz AND created_at < $2::timestamptz + interval '1 day'`,
        [pool().id, `${day}T00:00:00Z`],
      );
      expect(report.totals.ordersIssued, day).toBe(o!.issued);
    }
  });

  it('takes the pool\'s feed on the data as its own: each id sent again with its terms is its credit, an id with the terms of money only a statement saw finds that money', async () => {
    const p = { id: pool().id, key: pool().key, secret: pool().secret };
    const item = (c: Record<string, any>, transactionId: string) => ({
      transactionId, account: c.account, amount: c.amount, currency: c.currency, receivedAt: c.received_at.toISOString(), payer: c.payer, reference: null, bankReference: c.bank_reference,
    });
    const before = await q(`SELECT count(*)::int AS n FROM credits`);
    const fed = await q(
      `(SELECT * FROM credits WHERE source = 'feed' AND status = 'matched' ORDER BY seq LIMIT 2) UNION ALL (SELECT * FROM credits WHERE source = 'feed' AND status <> 'matched' ORDER BY seq DESC LIMIT 2)
       UNION ALL (SELECT * FROM credits WHERE account LIKE '%*%' ORDER BY seq LIMIT 1) UNION ALL (SELECT * FROM credits WHERE source = 'feed' AND requisite_id IS NULL ORDER BY seq LIMIT 1)`,
    );
    expect(fed).toHaveLength(6);
    const again = await feed(h, p, { credits: fed.map((c) => item(c, c.source_id)) });
    expect(again.statusCode, again.body).toBe(200);
    expect(json(again).result.credits.map((r: any) => [r.creditId, r.duplicate, r.duplicateOf, r.warnings])).toEqual(fed.map((c) => [c.id, true, c.id, []]));
    // Money a statement recorded and no item names yet: the feed's item is that money, found, not doubled.
    const [seen] = await q(`SELECT * FROM credits WHERE source = 'statement' ORDER BY seq DESC LIMIT 1`);
    const found = await feed(h, p, { credits: [item(seen!, 'late-feed-1')] });
    expect(json(found).result.credits[0]).toMatchObject({ creditId: seen!.id, duplicate: true, duplicateOf: seen!.id });
    expect(await q(`SELECT source, source_id FROM credit_items WHERE credit_id = $1`, [seen!.id])).toEqual([{ source: 'feed', source_id: 'late-feed-1' }]);
    expect(await q(`SELECT count(*)::int AS n FROM credits`)).toEqual(before);
  });

  it('takes statements on the data as its own: a week sent again in other bytes finds every credit it lists; the week after continues its balance and finds the feed\'s credits', async () => {
    // The statement account with the most credits the feed brought after its last statement.
    const [last] = await q<{ id: string; account: string; sections: any[]; period_from: string; period_to: string; requisite_id: string; after: number }>(
      `SELECT s.id, s.accounts->>0 AS account, s.sections, to_char(s.period_from, 'YYYY-MM-DD') AS period_from, to_char(s.period_to, 'YYYY-MM-DD') AS period_to, ra.requisite_id,
              (SELECT count(*)::int FROM credits c WHERE c.requisite_id = ra.requisite_id AND c.booking_day > s.period_to AND NOT c.in_statement) AS after
         FROM statements s JOIN requisite_accounts ra ON ra.account = s.accounts->>0
        WHERE s.seq = (SELECT max(x.seq) FROM statements x WHERE x.accounts = s.accounts)
        ORDER BY after DESC, s.accounts->>0 LIMIT 1`,
    );
    const camt = (from: string, to: string, opening: string, closing: string, entries: { amount: string; at: string; ref: string; kind?: string }[], tag: string) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>${tag}</MsgId><CreDtTm>${to}T23:59:59Z</CreDtTm></GrpHdr>
<Stmt><Id>${tag}-1</Id><FrToDt><FrDtTm>${from}T00:00:00Z</FrDtTm><ToDtTm>${to}T23:59:59Z</ToDtTm></FrToDt><Acct><Id><Othr><Id>${last!.account}</Id></Othr></Id><Ccy>RUB</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="RUB">${opening}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${from}</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="RUB">${closing}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${to}</Dt></Dt></Bal>
${entries.map((e) => `<Ntry><Amt Ccy="RUB">${e.amount}</Amt><CdtDbtInd>${e.kind ?? 'CRDT'}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><DtTm>${e.at}</DtTm></BookgDt><AcctSvcrRef>${e.ref}</AcctSvcrRef></Ntry>`).join('\n')}
</Stmt></BkToCstmrStmt></Document>`;
    const upload = (xml: string) => h.app.inject({ method: 'POST', url: `/admin/v1/providers/${pool().id}/statements`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' }, payload: xml });
    const entriesOf = async (statementId: string) =>
      (await q<{ amount: string; at: Date; ref: string; kind: string }>(`SELECT amount::text, received_at AS at, bank_reference AS ref, kind FROM statement_entries WHERE statement_id = $1 ORDER BY idx`, [statementId]))
        .map((e) => ({ amount: e.amount, at: e.at.toISOString(), ref: e.ref, kind: e.kind === 'debit' ? 'DBIT' : 'CRDT' }));
    const before = await q(`SELECT count(*)::int AS n FROM credits`);
    const sec = last!.sections[0];
    // The last week again, exported anew: every credit it lists is found by its terms and the bank's reference.
    const listed = await entriesOf(last!.id);
    const resent = json(await upload(camt(last!.period_from, last!.period_to, sec.opening.amount, sec.closing.amount, listed, 'RESENT'))).result;
    const credits = listed.filter((e) => e.kind === 'CRDT').length;
    expect(resent).toMatchObject({ sameAs: null, credits, duplicates: credits, matched: 0, unmatched: 0, skipped: listed.length - credits, balanceCheck: 'consistent', continuity: 'continuous' });
    // The week after: its opening is the last closing, and the credits the feed brought since are found, not doubled.
    const fedSince = await q<{ amount: string; received_at: Date; bank_reference: string | null; id: string }>(
      `SELECT id, amount::text, received_at, bank_reference FROM credits WHERE requisite_id = $1 AND booking_day > $2::date AND NOT in_statement ORDER BY received_at`,
      [last!.requisite_id, last!.period_to],
    );
    const next = fedSince.map((c, k) => ({ amount: c.amount, at: c.received_at.toISOString(), ref: c.bank_reference ?? `NEXT-${k}` }));
    next.push({ amount: '123.45', at: new Date(h.clock.now() - 3_600_000).toISOString(), ref: 'NEXT-NEW' });
    const total = next.reduce((s, e) => s.plus(e.amount), new Decimal(0));
    const from = new Date(Date.parse(last!.period_to) + 86_400_000).toISOString().slice(0, 10);
    const to = new Date(h.clock.now()).toISOString().slice(0, 10);
    const week = json(await upload(camt(from, to, sec.closing.amount, new Decimal(sec.closing.amount).plus(total).toFixed(2), next, 'NEXT'))).result;
    expect(week).toMatchObject({ credits: next.length, duplicates: fedSince.length, unmatched: 1, balanceCheck: 'consistent', continuity: 'continuous' });
    expect(await q(`SELECT count(*)::int AS n FROM credits`)).toEqual([{ n: before[0]!.n + 1 }]);
    if (fedSince.length) expect(await q(`SELECT count(*)::int AS n FROM credits WHERE id = ANY($1::text[]) AND in_statement`, [fedSince.map((c) => c.id)])).toEqual([{ n: fedSince.length }]);
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
