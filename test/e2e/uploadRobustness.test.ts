import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newProviderMessageId, signProviderRequestHeaders } from '../../src/providers/providerMessages.js';
import { FEED_MAX_BYTES } from '../../src/reconciliation/credits.js';
import { FEED_BODY_BUDGET } from '../../src/reconciliation/routes.js';
import { createTestDb, serverUrl, type TestDb } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { partialRequest, type Answer, type PartialRequest } from '../helpers/partialRequest.js';
import { adminApi, bareEnv, copyOfMigratedDataDir, freePort, killChildren, NO_DRAIN, runAsNpmStart, scratchDir, STARTUP_MS, waitStatus, type Proc } from '../helpers/process.js';

/**
 * The statement upload and the credit feed against a server process of its own (`node dist/main.js
 * serve`, as `npm start` runs it), so that what it holds is its own: its resident memory while 400
 * feed senders stall, and the temporary files a killed process leaves behind. Embedded database by
 * default; a throwaway PostgreSQL database when DATABASE_URL is set. The same endpoints under
 * failures of every other kind are in test/integration/reconciliation/uploadRobustness.test.ts.
 */

afterAll(killChildren);

const MiB = 1024 * 1024;
const ADMIN_TOKEN = `e2e-upload-${randomBytes(12).toString('hex')}`;
/** Node answers 408 to a request not whole within REQUEST_TIMEOUT_SECONDS: short here, so stalled senders are given up within the test. */
const REQUEST_TIMEOUT_SECONDS = 10;

/** Resident memory of a process, in bytes, as the kernel counts it. */
function rss(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}
/** What stalled senders send of their bodies (JSON may start with blanks): one buffer, shared. */
const SPACES = Buffer.alloc(MiB, 0x20);
const mb = (bytes: number) => Math.round((bytes / 1e6) * 10) / 10;

describe.skipIf(!existsSync('/proc/self/status'))('a server process of its own', () => {
  let dataDir: string;
  /** The server's TMPDIR: its spool folders, and nothing else's. */
  let tmp: string;
  let testDb: TestDb | null = null;
  let env: NodeJS.ProcessEnv;
  let base: string;
  let server: Proc;
  let pool: { id: string; key: string; secret: string; account: string };

  beforeAll(async () => {
    tmp = scratchDir('e2e-upload-tmp');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const common = { PORT: String(port), ADMIN_TOKEN, TMPDIR: tmp, REQUEST_TIMEOUT_SECONDS: String(REQUEST_TIMEOUT_SECONDS), ...NO_DRAIN };
    if (serverUrl) {
      testDb = await createTestDb();
      dataDir = scratchDir('e2e-upload-data');
      env = bareEnv({ ...common, DATA_DIR: dataDir, DATABASE_URL: testDb.url!, MASTER_KEY: randomBytes(32).toString('hex') });
    } else {
      dataDir = await copyOfMigratedDataDir('e2e-upload');
      env = bareEnv({ ...common, DATA_DIR: dataDir });
    }
    server = await start();
    const created = await admin('POST', '/providers', {
      name: 'E2E pool',
      kind: 'pool',
      priority: 10,
      capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
      requisites: [{ card: '2200150000007001', holder: 'E2E' }],
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    pool = { id: created.json.result.id, key: created.json.result.key, secret: created.json.result.secret, account: '2200150000007001' };
  }, 2 * STARTUP_MS);
  afterAll(async () => {
    killChildren();
    await server?.exit;
    await testDb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  });

  async function start(): Promise<Proc> {
    const p = runAsNpmStart(['serve'], env);
    await waitStatus(`${base}/healthz`, p);
    return p;
  }
  const admin = (method: string, path: string, body?: unknown) => adminApi(base, ADMIN_TOKEN)(method, path, body);
  const spoolsOf = (pid: number) => readdirSync(tmp).filter((n) => n.startsWith(`paygate-statement-${pid}-`));
  const feedOne = async (amount: string) => {
    const raw = JSON.stringify({ credits: [{ transactionId: `e2e-${randomBytes(6).toString('hex')}`, account: pool.account, amount, currency: 'RUB', receivedAt: new Date().toISOString() }] });
    const res = await fetch(`${base}/providers/v1/${pool.id}/credits`, {
      method: 'POST',
      headers: { ...signProviderRequestHeaders(pool.key, pool.secret, newProviderMessageId(), Date.now() / 1000, raw), 'content-type': 'application/json' },
      body: raw,
    });
    await res.arrayBuffer();
    return res.status;
  };

  it('the process serves on after a file with a bad row, a file that is no statement and clients that go away mid-upload, and keeps no temporary file', async () => {
    const pid = server.child.pid!;
    const header = 'transactionId,account,amount,currency,receivedAt,payer,reference';
    const good = Array.from({ length: 100 }, (_, i) => `g-${i},${pool.account},${i + 1}.00,RUB,2026-01-15T10:00:00Z,p,r`);
    const post = async (body: string) => {
      const res = await fetch(`${base}/admin/v1/providers/${pool.id}/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' }, body });
      return { status: res.status, json: (await res.json()) as any };
    };
    // 100 good rows and a bad one: what used to kill the process.
    const bad = await post([header, ...good, `b-1,${pool.account},abc,RUB,2026-01-15T10:00:00Z,p,r`].join('\n'));
    expect(bad.status).toBe(200);
    expect(bad.json.result).toMatchObject({ entries: 101, credits: 100, unreadable: 1 });
    expect((await post('%PDF-1.4 no statement')).status).toBe(400);
    // Five clients that go away with part of their file sent.
    const gone = Array.from({ length: 5 }, () =>
      partialRequest(`${base}/admin/v1/providers/${pool.id}/statements`, { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv', 'content-length': String(8 * MiB) }),
    );
    for (const r of gone) await r.write([header, ...good].join('\n').repeat(200).slice(0, MiB));
    await eventually('the uploads are being spooled', () => spoolsOf(pid).length === 5);
    for (const r of gone) r.abort();
    await eventually('their spool folders are removed', () => spoolsOf(pid).length === 0);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
    expect((await post([header, ...good.map((g) => g.replace('g-', 'h-').replace(',r', ',again'))].join('\n'))).json.result).toMatchObject({ entries: 100 });
    expect(readdirSync(tmp)).toEqual([]);
    expect(server.stderr()).not.toMatch(/ERR_STREAM|uncaught|unhandled/i);
  });

  it('a process killed mid-upload leaves its spool folder; the next start removes it, and keeps those of live processes', async () => {
    // An upload of 8 MiB of which 1 MiB arrived when the process is killed.
    const killed = server.child.pid!;
    const statements = async () => (await admin('GET', `/statements?providerId=${pool.id}&limit=100`)).json.result.items.map((s: any) => [s.id, s.state]);
    const recordedBefore = await statements();
    const rows = ['transactionId,account,amount,currency,receivedAt,payer,reference'];
    for (let i = 0, size = 0; size < 1.2 * MiB; i++) size += rows[rows.push(`k-${i},${pool.account},1.00,RUB,2026-01-15T10:00:00Z,p,r`) - 1].length + 1;
    const upload = partialRequest(`${base}/admin/v1/providers/${pool.id}/statements`, { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv', 'content-length': String(8 * MiB) });
    await upload.write(rows.join('\n').slice(0, MiB));
    await eventually('the upload is being spooled', () => spoolsOf(killed).length === 1);
    // A folder of a process that still runs (this test's): never another's to remove.
    const live = `paygate-statement-${process.pid}-live00`;
    mkdirSync(join(tmp, live));
    server.child.kill('SIGKILL');
    await server.exit;
    upload.abort();
    expect(spoolsOf(killed)).toHaveLength(1);

    server = await start();
    expect(spoolsOf(killed)).toEqual([]);
    expect(readdirSync(tmp)).toContain(live);
    await eventually('the start logged the removal', () => /temporary statement files of stopped processes removed/.test(server.stdout()), { withinMs: 5_000 });
    rmSync(join(tmp, live), { recursive: true });
    // Nothing of the killed upload was recorded, and the new process takes uploads.
    expect(await statements()).toEqual(recordedBefore);
    const res = await fetch(`${base}/admin/v1/providers/${pool.id}/statements`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' },
      body: rows.slice(0, 101).join('\n'),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).result).toMatchObject({ entries: 100, credits: 100 });
    expect(spoolsOf(server.child.pid!)).toEqual([]);
  }, 3 * STARTUP_MS);

  it('400 stalled feed senders of 1 MiB each: memory grows by less than 50 MB, the requests past the budget are 503 at once, the stalled ones 408; a stalled upload leaves no file', async () => {
    const pid = server.child.pid!;
    // Warm-up: every path the measured requests take, taken before the baseline.
    for (let i = 0; i < 20; i++) expect(await feedOne(`${i + 1}.00`)).toBe(200);
    const warm = Array.from({ length: 40 }, () => stalledFeed(64 * 1024));
    await eventually('the warm-up senders are answered or read', () => warm.filter((r) => !r.pending()).length >= 40 - FEED_BODY_BUDGET / FEED_MAX_BYTES);
    for (const r of warm) r.abort();
    await eventually('the budget is free after the warm-up', async () => (await feedOne('99.00')) === 200);
    // A statement upload that stalls too: it is spooled to disk, so it costs no memory, and is given up like the others.
    const upload = partialRequest(`${base}/admin/v1/providers/${pool.id}/statements`, { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv', 'content-length': String(8 * MiB) });
    await upload.write(`transactionId,account,amount,currency,receivedAt,payer,reference\n${`s,${pool.account},1.00,RUB,2026-01-15T10:00:00Z,p,r\n`.repeat(20_000)}`);
    await eventually('the stalled upload is being spooled', () => spoolsOf(pid).length === 1);
    const before = rss(pid);

    const SENDERS = 400;
    const PART = 512 * 1024;
    const fits = Math.min(SENDERS, Math.floor(FEED_BODY_BUDGET / FEED_MAX_BYTES));
    const t0 = performance.now();
    const senders = Array.from({ length: SENDERS }, () => stalledFeed(PART));
    await eventually(`${SENDERS - fits} senders past the budget are answered`, () => senders.filter((r) => !r.pending()).length >= SENDERS - fits, { withinMs: 20_000 });
    const answered = await Promise.all(senders.filter((r) => !r.pending()).map((r) => r.answer));
    const refusedIn = Math.max(...answered.map((a) => a.at - t0));
    // Every part sent has reached the server, read into a stalled body or read and discarded.
    await Promise.all(senders.map((r) => r.sent));
    // The peak over a second and a half of the stall, once the server has read what it was sent.
    let during = 0;
    for (let i = 0; i < 15; i++) {
      during = Math.max(during, rss(pid));
      await new Promise((r) => setTimeout(r, 100));
    }
    const stalledNow = senders.filter((r) => r.pending());
    console.log(`RSS of the server: ${mb(before)} MB before, ${mb(during)} MB while ${SENDERS} senders of ${FEED_MAX_BYTES / MiB} MiB stalled after ${PART / 1024} KiB (+${mb(during - before)} MB); ${answered.length} answered 503 within ${Math.round(refusedIn)} ms, ${stalledNow.length} stalled`);

    expect(answered.map((a) => a.status)).toEqual(Array(SENDERS - fits).fill(503));
    expect(answered.every((a) => a.headers['retry-after'] === '1')).toBe(true);
    expect(stalledNow).toHaveLength(fits);
    // At once: long before any stalled body is given up.
    expect(refusedIn).toBeLessThan((REQUEST_TIMEOUT_SECONDS * 1000) / 2);
    expect(during - before).toBeLessThan(50 * 1e6);

    // The stalled ones are given up with 408; the budget is whole again and the process serves.
    const timedOut: Answer[] = await Promise.all(stalledNow.map((r) => r.answer));
    expect(timedOut.map((a) => a.status)).toEqual(Array(fits).fill(408));
    expect(JSON.parse(timedOut[0].body).fault.code).toBe('REQUEST_TIMEOUT');
    for (const r of senders) r.abort();
    await eventually('the budget is whole again', async () => (await feedOne('100.00')) === 200);
    expect((await upload.answer).status).toBe(408);
    await eventually('the stalled upload left no temporary file', () => spoolsOf(pid).length === 0);
    expect((await admin('GET', `/statements?providerId=${pool.id}`)).json.result.items.filter((s: any) => s.state !== 'recorded')).toEqual([]);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  }, 2 * STARTUP_MS);

  /** An authenticated feed request declaring 1 MiB that sends `part` bytes of it and stalls. */
  function stalledFeed(part: number): PartialRequest & { sent: Promise<void> } {
    const r = partialRequest(`${base}/providers/v1/${pool.id}/credits`, {
      ...signProviderRequestHeaders(pool.key, pool.secret, newProviderMessageId(), Date.now() / 1000, 'never all sent'),
      'content-type': 'application/json',
      'content-length': String(FEED_MAX_BYTES),
    });
    return { ...r, sent: r.write(SPACES.subarray(0, part)).catch(() => undefined) };
  }
});
