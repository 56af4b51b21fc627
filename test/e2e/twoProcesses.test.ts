import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newProviderMessageId, signProviderRequestHeaders } from '../../src/providers/providerMessages.js';
import { createTestDb, serverUrl, type TestDb } from '../helpers/db.js';
import { bareEnv, freePort, killChildren, NO_DRAIN, runAsNpmStart, scratchDir, STARTUP_MS, waitStatus, type Proc } from '../helpers/process.js';

/**
 * Credit identity between two server processes over one PostgreSQL (`node dist/main.js serve`
 * twice, as two `npm start` would run): the same statement taken by both at once is recorded
 * once, and a statement and the feed bringing the same money at once make one credit of it.
 */

afterAll(killChildren);

const ADMIN_TOKEN = `e2e-two-${randomBytes(12).toString('hex')}`;
const HEADER = 'transactionId,account,amount,currency,receivedAt,payer,reference,bankReference';
const ACCOUNT = '2200150000007101';

describe.runIf(serverUrl)('two server processes on one PostgreSQL', () => {
  let testDb: TestDb;
  const dirs: string[] = [];
  const servers: { base: string; proc: Proc }[] = [];
  let pool: { id: string; key: string; secret: string };

  beforeAll(async () => {
    testDb = await createTestDb();
    const masterKey = randomBytes(32).toString('hex');
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const dataDir = scratchDir(`e2e-two-${i}`);
      dirs.push(dataDir);
      const env = bareEnv({ PORT: String(port), ADMIN_TOKEN, DATA_DIR: dataDir, DATABASE_URL: testDb.url!, MASTER_KEY: masterKey, ...NO_DRAIN });
      const proc = runAsNpmStart(['serve'], env);
      const base = `http://127.0.0.1:${port}`;
      await waitStatus(`${base}/healthz`, proc);
      servers.push({ base, proc });
    }
    const created = await admin(0, 'POST', '/providers', {
      name: 'Two-process pool', kind: 'pool', priority: 10,
      capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }],
      requisites: [{ card: ACCOUNT, holder: 'E2E' }],
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    pool = { id: created.json.result.id, key: created.json.result.key, secret: created.json.result.secret };
  }, 3 * STARTUP_MS);
  afterAll(async () => {
    killChildren();
    await Promise.all(servers.map((s) => s.proc.exit));
    await testDb?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function admin(i: number, method: string, path: string, body?: unknown) {
    const res = await fetch(`${servers[i].base}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  }
  async function upload(i: number, csv: string) {
    const res = await fetch(`${servers[i].base}/admin/v1/providers/${pool.id}/statements`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' }, body: csv,
    });
    return { status: res.status, json: (await res.json()) as any };
  }
  async function feed(i: number, item: Record<string, unknown>) {
    const raw = JSON.stringify({ credits: [item] });
    const res = await fetch(`${servers[i].base}/providers/v1/${pool.id}/credits`, {
      method: 'POST',
      headers: { ...signProviderRequestHeaders(pool.key, pool.secret, newProviderMessageId(), Math.floor(Date.now() / 1000), raw), 'content-type': 'application/json' },
      body: raw,
    });
    return { status: res.status, json: (await res.json()) as any };
  }
  const creditsOfAmount = async (amount: string) =>
    (await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM credits WHERE provider_id = $1 AND amount = $2', [pool.id, amount])).rows[0].n;

  it('the same file taken by both at once is recorded once: one records it, the other answers sameAs', async () => {
    const at = new Date().toISOString();
    const csv = [HEADER, ...Array.from({ length: 2000 }, (_, i) => `s-${i},${ACCOUNT},${(i % 97) + 1}.${String(i % 100).padStart(2, '0')},RUB,${at},P,,BR-${i}`)].join('\n');
    const [a, b] = await Promise.all([upload(0, csv), upload(1, csv)]);
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    expect(b.status, JSON.stringify(b.json)).toBe(200);
    expect(a.json.result.statementId).toBe(b.json.result.statementId);
    expect([a.json.result.sameAs, b.json.result.sameAs].filter((s) => s !== null)).toHaveLength(1);
    const n = (await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM credits WHERE provider_id = $1', [pool.id])).rows[0].n;
    expect(n).toBe(2000);
  }, 60_000);

  it('a statement on one and the feed on the other bringing the same money at once make one credit', async () => {
    const at = new Date().toISOString();
    for (let round = 0; round < 6; round++) {
      const amount = `${5000 + round}.00`;
      const [file, fed] = await Promise.all([
        upload(round % 2, [HEADER, `f-${round},${ACCOUNT},${amount},RUB,${at},P,,`].join('\n')),
        feed((round + 1) % 2, { transactionId: `t-${round}`, account: ACCOUNT, amount, currency: 'RUB', receivedAt: at }),
      ]);
      expect(file.status, JSON.stringify(file.json)).toBe(200);
      expect(fed.status, JSON.stringify(fed.json)).toBe(200);
      expect(await creditsOfAmount(amount), amount).toBe(1);
      expect(file.json.result.duplicates + (fed.json.result.credits[0].duplicate ? 1 : 0)).toBe(1);
    }
  }, 60_000);

  it('the same feed item sent to both at once is one credit, the other answer naming it', async () => {
    const at = new Date().toISOString();
    for (let round = 0; round < 6; round++) {
      const item = { transactionId: `same-${round}`, account: ACCOUNT, amount: `${6000 + round}.00`, currency: 'RUB', receivedAt: at };
      const [x, y] = await Promise.all([feed(0, item), feed(1, item)]);
      const [rx, ry] = [x.json.result.credits[0], y.json.result.credits[0]];
      expect(rx.creditId).toBe(ry.creditId);
      expect([rx.duplicate, ry.duplicate].sort()).toEqual([false, true]);
      expect(await creditsOfAmount(item.amount)).toBe(1);
    }
  }, 60_000);
});
