import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/buildApp.js';
import { ManualClock } from '../../src/clock.js';
import { ConfigError, parseConfig } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { merchantBalance } from '../../src/services/balance.js';
import { listAudit } from '../../src/services/audit.js';
import { dashboard, exportAudit, exportMerchants, listMerchants } from '../../src/services/office.js';
import { REPLICA_CHECK_MS, type ReadReplicaDb } from '../../src/store/readReplica.js';
import { createTestDb, serverUrl, type TestDb } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { admin, ADMIN_TOKEN, json } from '../helpers/harness.js';
import { replicaUnavailable, startReplica, type Replica } from '../helpers/replica.js';

/*
 * A read replica for reports (issue "Reports and exports at any size", point 6). With
 * DATABASE_READ_URL, merchant statements, exports, the reconciliation day report and the dashboards
 * read from a PostgreSQL streaming replica while it keeps up, and from the primary when it lags
 * beyond READ_REPLICA_MAX_LAG_SECONDS or cannot be reached. The replica is a real one, made by this
 * file from the test server with pg_basebackup and run on a port of its own.
 *
 * The proof of where a read went: with the replica's replay paused, the primary is changed; a read
 * that shows the old figures read the replica, one that shows the new read the primary. The lag is
 * the databases' own (replay timestamps by the replica's clock), so that wait is real time; when
 * the lag is measured again is the injected clock's (REPLICA_CHECK_MS), which the test moves.
 */

describe('DATABASE_READ_URL and READ_REPLICA_MAX_LAG_SECONDS', () => {
  const server = { DATABASE_URL: 'postgres://u@db.example/paygate', MASTER_KEY: 'a'.repeat(64) };

  it('a replica of the embedded database is refused, naming the variable and why', () => {
    expect(() => parseConfig({ DATABASE_READ_URL: 'postgres://u@replica.example/paygate' })).toThrow(ConfigError);
    expect(() => parseConfig({ DATABASE_READ_URL: 'postgres://u@replica.example/paygate' })).toThrow(/^DATABASE_READ_URL: needs DATABASE_URL.*embedded database/);
  });

  it('takes a PostgreSQL address only, and a lag from 0 to a day (30 s by default)', () => {
    expect(() => parseConfig({ ...server, DATABASE_READ_URL: 'mysql://replica.example/paygate' })).toThrow(/^DATABASE_READ_URL: must start with postgres:\/\//);
    for (const bad of ['-1', '1.5', '86401', 'soon']) expect(() => parseConfig({ ...server, READ_REPLICA_MAX_LAG_SECONDS: bad }), bad).toThrow(/^READ_REPLICA_MAX_LAG_SECONDS: /);
    expect(parseConfig(server)).toMatchObject({ databaseReadUrl: null, readReplicaMaxLagSeconds: 30 });
    expect(parseConfig({ ...server, DATABASE_READ_URL: 'postgresql://u@replica.example/paygate', READ_REPLICA_MAX_LAG_SECONDS: '5' })).toMatchObject({
      databaseReadUrl: 'postgresql://u@replica.example/paygate',
      readReplicaMaxLagSeconds: 5,
    });
  });
});

describe('without DATABASE_READ_URL', () => {
  it('long reads use the database itself', async () => {
    const testDb = await createTestDb();
    try {
      const rt = await createRuntime(parseConfig({ SEED_DEMO: 'false', MASTER_KEY: randomBytes(32).toString('hex'), ADMIN_TOKEN }), { clock: new ManualClock(), log: pino({ level: 'silent' }), db: testDb.db });
      expect(rt.ctx.readDb).toBe(rt.ctx.db);
    } finally {
      await testDb.drop();
    }
  });
});

const why = await replicaUnavailable(serverUrl);

describe.skipIf(why !== null)(`reports on a streaming replica${why ? ` (skipped: ${why})` : ''}`, () => {
  const DAY = '2026-01-15';
  const lines: any[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  const clock = new ManualClock(Date.UTC(2026, 0, 15, 12, 0, 0));
  let testDb: TestDb;
  let replica: Replica;
  /** Reads from the replica up to an hour behind. */
  let lenient: Runtime;
  let app: FastifyInstance;
  let base: string;
  /** The same primary and replica, but no more than 1 s behind. */
  let strict: Runtime;
  let strictApp: FastifyInstance;
  let strictBase: string;
  let merchantId: string;
  let providerId: string;

  const env = (extra: Record<string, string>) => ({
    DATABASE_URL: testDb.url!,
    DATABASE_READ_URL: replica.urlOf(testDb.url!),
    MASTER_KEY: randomBytes(32).toString('hex'),
    ADMIN_TOKEN,
    SEED_DEMO: 'false',
    PASSWORD_SCRYPT_LOG2N: '10',
    ...extra,
  });
  const route = (rt: Runtime) => (rt.ctx.readDb as ReadReplicaDb).route();
  const get = async (at: string, path: string) => {
    const res = await fetch(`${at}/admin/v1${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const body = await res.text();
    expect(res.status, body).toBe(200);
    return JSON.parse(body).result;
  };
  const statement = (at: string) => get(at, `/merchants/${merchantId}/statement?from=${DAY}&to=${DAY}`);
  const report = (at: string) => get(at, `/reconciliation?providerId=${providerId}&date=${DAY}`);
  /** A live credit on the primary, as the ledger records one: the entry and the balance together. */
  const credit = (amount: string, at: string) =>
    testDb.db.tx(async (q) => {
      await q.query("INSERT INTO ledger_entries (merchant_id, order_id, kind, amount, reason, sandbox, created_at) VALUES ($1, NULL, 'credit', $2, NULL, false, $3)", [merchantId, amount, at]);
      await q.query('UPDATE merchants SET balance = balance + $2::numeric WHERE id = $1', [merchantId, amount]);
    });

  beforeAll(async () => {
    testDb = await createTestDb();
    replica = await startReplica(serverUrl!);
    const log = pino({ level: 'info' }, sink);
    lenient = await createRuntime(parseConfig(env({ READ_REPLICA_MAX_LAG_SECONDS: '3600' })), { clock, log, db: testDb.db });
    app = buildApp(lenient.ctx);
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    strict = await createRuntime(parseConfig(env({ READ_REPLICA_MAX_LAG_SECONDS: '1' })), { clock, log, db: testDb.db });
    strictApp = buildApp(strict.ctx);
    strictBase = await strictApp.listen({ port: 0, host: '127.0.0.1' });

    const m = await admin(app, 'POST', '/merchants', { name: 'Replica shop', sandbox: false });
    expect(m.statusCode, m.body).toBe(201);
    merchantId = json(m).result.id;
    const p = await admin(app, 'POST', '/providers', {
      name: 'Pool',
      kind: 'pool',
      priority: 10,
      capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
      requisites: [{ card: '2200 1500 0000 0001', holder: 'A' }],
    });
    expect(p.statusCode, p.body).toBe(201);
    providerId = json(p).result.id;
    await credit('10.00000000', `${DAY}T09:00:00Z`);
    await replica.caughtUp();
    // Both measure once now, and find the replica well.
    expect(await route(lenient)).toMatchObject({ target: 'replica', lagSeconds: expect.any(Number) });
    // (The strict one may find a moment of lag on a busy server: measured again until it does not.)
    await eventually('the strict runtime reads the replica', async () => {
      clock.advance(REPLICA_CHECK_MS);
      return (await route(strict)).target === 'replica';
    }, { withinMs: 30_000, everyMs: 100 });
  }, 240_000);

  afterAll(async () => {
    await app?.close();
    await strictApp?.close();
    // The runtimes share the test database, which is dropped last: close their replica pools only.
    await lenient?.ctx.readDb.close();
    await strict?.ctx.readDb.close();
    await replica?.remove();
    await testDb?.drop();
  }, 60_000);

  it('statements, exports, the day report and the dashboards read the replica; writes go to the primary and the replica refuses any', async () => {
    expect(await route(lenient)).toMatchObject({ target: 'replica', reason: null });
    expect(lines.filter((l) => l.msg === 'reports read from the read replica').length).toBeGreaterThanOrEqual(1);
    const before = {
      statement: await statement(base),
      report: await report(base),
      dashboard: await dashboard(lenient.ctx),
      balance: await merchantBalance(lenient.ctx, merchantId, { limit: 50 }),
    };
    expect(before.statement).toMatchObject({ openingBalance: '0.00000000', closingBalance: '10.00000000', entries: [{ amountUsd: '10.00000000' }] });
    expect(before.report.requisites).toHaveLength(1);
    expect(before.dashboard.turnover.todayOrders).toBe(1);

    await replica.pauseReplay();
    // Written while the replica stands still: through the app (operator API) and as the ledger writes.
    await credit('5.00000000', `${DAY}T10:00:00Z`);
    const added = await admin(app, 'POST', `/providers/${providerId}/requisites`, { payment: { card: '2200 1500 0000 0002', holder: 'B' } });
    expect(added.statusCode, added.body).toBe(201);
    const made = await admin(app, 'POST', '/merchants', { name: 'Made while the replica stood still', sandbox: false });
    expect(made.statusCode, made.body).toBe(201);
    const newMerchant = json(made).result.id;

    // The primary has all of it, the replica none of it.
    const onReplica = async (sqlText: string, params: unknown[]) => {
      const c = new (await import('pg')).default.Client({ connectionString: replica.urlOf(testDb.url!) });
      await c.connect();
      try {
        return (await c.query(sqlText, params)).rows;
      } finally {
        await c.end();
      }
    };
    expect((await testDb.db.query('SELECT 1 FROM merchants WHERE id = $1', [newMerchant])).rows).toHaveLength(1);
    expect(await onReplica('SELECT 1 FROM merchants WHERE id = $1', [newMerchant])).toHaveLength(0);
    expect((await get(base, `/providers/${providerId}/requisites`)).length).toBe(2);

    // Every report still shows the replica's figures.
    expect(await route(lenient)).toMatchObject({ target: 'replica' });
    expect(await statement(base)).toEqual(before.statement);
    expect(await report(base)).toEqual(before.report);
    expect(await dashboard(lenient.ctx)).toEqual(before.dashboard);
    const balance = await merchantBalance(lenient.ctx, merchantId, { limit: 50 });
    expect(balance.days).toEqual(before.balance.days);
    // The balances themselves are the primary's: the page agrees with what the merchant just did.
    expect(balance.live).toBe('15.00000000');
    const exported: string[] = [];
    for await (const r of exportMerchants(lenient.ctx, {})) exported.push(r.id);
    expect(exported).toContain(merchantId);
    expect(exported).not.toContain(newMerchant);
    const audited: string[] = [];
    for await (const e of exportAudit(lenient.ctx, {})) audited.push(e.objectId ?? '');
    expect(audited).toContain(merchantId);
    expect(audited).not.toContain(newMerchant);
    expect((await listAudit(lenient.ctx, { limit: 50 })).items.map((e) => e.objectId)).toContain(newMerchant);
    // The merchants page itself reads the primary.
    expect((await listMerchants(lenient.ctx, {}, { limit: 50 })).items.map((r) => r.id)).toContain(newMerchant);

    // What reports read through can write nothing (here on the replica; on the primary below).
    await expect(lenient.ctx.readDb.tx((q) => q.query("INSERT INTO settings (key, value) VALUES ('replica-probe', 'x')"))).rejects.toMatchObject({ code: '25006' });
  }, 120_000);

  it('a replica behind by more than READ_REPLICA_MAX_LAG_SECONDS is left for the primary, and read again once it has caught up', async () => {
    // Still paused: the strict runtime's next measures find the lag growing past 1 s.
    lines.length = 0;
    const switches = async () => (await strict.ctx.metrics.readReplicaSwitches.get()).values.find((v) => v.labels.to === 'primary')?.value ?? 0;
    const before = await switches();
    await eventually(
      'the strict runtime reads the primary',
      async () => {
        clock.advance(REPLICA_CHECK_MS);
        return (await route(strict)).target === 'primary';
      },
      { withinMs: 30_000, everyMs: 200 },
    );
    expect(await route(strict)).toMatchObject({ target: 'primary', reason: expect.stringMatching(/^lag \d+\.\d s is beyond 1 s$/) });
    expect((await strict.ctx.metrics.readReplicaInUse.get()).values[0]!.value).toBe(0);
    expect(await switches()).toBe(before + 1);
    expect(lines.filter((l) => l.msg === 'reports read from the primary: the read replica is not usable')).toHaveLength(1);
    await expect(strict.ctx.readDb.tx((q) => q.query("INSERT INTO settings (key, value) VALUES ('replica-probe', 'x')"))).rejects.toMatchObject({ code: '25006' });

    // The primary's figures: the credit and the requisite written while the replica stood still.
    expect(await statement(strictBase)).toMatchObject({ closingBalance: '15.00000000', entries: [{ amountUsd: '10.00000000' }, { amountUsd: '5.00000000' }] });
    expect((await report(strictBase)).requisites).toHaveLength(2);
    expect((await dashboard(strict.ctx)).turnover.todayOrders).toBe(2);
    // An hour of lag is still within the lenient one's bound.
    expect(await statement(base)).toMatchObject({ closingBalance: '10.00000000' });

    await replica.resumeReplay();
    await replica.caughtUp();
    await eventually(
      'the strict runtime reads the replica again',
      async () => {
        clock.advance(REPLICA_CHECK_MS);
        return (await route(strict)).target === 'replica';
      },
      { withinMs: 30_000, everyMs: 200 },
    );
    expect((await strict.ctx.metrics.readReplicaInUse.get()).values[0]!.value).toBe(1);
    expect(lines.filter((l) => l.msg === 'reports read from the read replica')).toHaveLength(1);
    // Caught up, the replica has what the primary has.
    clock.advance(REPLICA_CHECK_MS);
    expect(await route(lenient)).toMatchObject({ target: 'replica' });
    expect(await statement(base)).toMatchObject({ closingBalance: '15.00000000' });
    expect((await report(base)).requisites).toHaveLength(2);
  }, 120_000);

  it('a replica that stops: no read fails, they go to the primary, and say so once', async () => {
    expect(await route(lenient)).toMatchObject({ target: 'replica' });
    await credit('2.50000000', `${DAY}T11:00:00Z`);
    await replica.stop();
    lines.length = 0;
    // The last measure said "replica": the first reads find it gone and are read again from the primary.
    expect(await statement(base)).toMatchObject({ closingBalance: '17.50000000' });
    expect((await report(base)).requisites).toHaveLength(2);
    expect((await dashboard(lenient.ctx)).turnover.todayOrders).toBe(3);
    const exported: string[] = [];
    for await (const r of exportMerchants(lenient.ctx, {})) exported.push(r.id);
    expect(exported).toContain(merchantId);
    expect(await route(lenient)).toMatchObject({ target: 'primary', reason: expect.stringMatching(/^unreachable: /) });
    // Measured again later, still unreachable: still the primary, and no new line.
    clock.advance(REPLICA_CHECK_MS);
    expect(await route(lenient)).toMatchObject({ target: 'primary', reason: expect.stringMatching(/^unreachable: /) });
    expect(await statement(base)).toMatchObject({ closingBalance: '17.50000000' });
    expect(lines.filter((l) => l.msg === 'reports read from the primary: the read replica is not usable')).toHaveLength(1);
    expect((await lenient.ctx.metrics.readReplicaInUse.get()).values[0]!.value).toBe(0);
  }, 120_000);
});
