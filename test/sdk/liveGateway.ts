import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createTestDb, serverUrl, type TestDb } from '../helpers/db.js';
import { bareEnv, copyOfMigratedDataDir, freePort, NO_DRAIN, runAsNpmStart, scratchDir, stop, waitStatus, type Proc } from '../helpers/process.js';

/**
 * Paygate as a real process (`node dist/main.js serve`, as `npm start` runs it) for the SDKs of
 * other languages, with a sandbox merchant and a Classic desk set up through the operator API.
 * On PostgreSQL (and Redis) when DATABASE_URL (and REDIS_URL) are set, so CI runs the same tests
 * on both databases; on its own embedded database otherwise.
 */
export interface LiveGateway {
  url: string;
  adminToken: string;
  key: string;
  secret: string;
  deskId: string;
  merchantId: string;
  proc: Proc;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

const REDIS_URL = process.env.REDIS_URL;

export async function startLiveGateway(name: string, o: { deskCallbackUrl?: string | null } = {}): Promise<LiveGateway> {
  const adminToken = `sdk-${name}-${randomBytes(12).toString('hex')}`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let testDb: TestDb | null = null;
  let dataDir: string;
  if (serverUrl) {
    testDb = await createTestDb();
    dataDir = scratchDir(`sdk-${name}`);
  } else {
    dataDir = await copyOfMigratedDataDir(`sdk-${name}`);
  }
  const env = bareEnv({
    PORT: String(port),
    ADMIN_TOKEN: adminToken,
    DATA_DIR: dataDir,
    MASTER_KEY: randomBytes(32).toString('hex'),
    PUBLIC_URL: url,
    // The tests' receivers listen on loopback, which the callback URL rules otherwise refuse.
    CALLBACK_ALLOWLIST: '127.0.0.1',
    SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    ...NO_DRAIN,
    ...(testDb?.url ? { DATABASE_URL: testDb.url } : {}),
    ...(testDb?.url && REDIS_URL ? { REDIS_URL } : {}),
  });
  const proc = runAsNpmStart(['serve'], env);
  await waitStatus(`${url}/healthz`, proc);

  async function admin(method: string, path: string, body?: unknown) {
    const res = await fetch(`${url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  }
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await admin(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json.result;
  };
  await must('PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
  await must('PUT', '/rates/RUB', { rate: '91.8' });
  const merchant = await must('POST', '/merchants', { name: `SDK ${name}`, sandbox: true });
  const desk = await must('POST', `/merchants/${merchant.id}/desks`, {
    method: 'Classic',
    rails: ['Sbp', 'C2c'],
    currencies: ['RUB'],
    minUsd: '0',
    maxUsd: '0',
    // A loopback port nobody listens on unless the test says otherwise: deliveries fail and are retried, harmlessly.
    callbackUrl: o.deskCallbackUrl === undefined ? `http://127.0.0.1:${await freePort()}/callbacks` : o.deskCallbackUrl,
    tariffId: null,
  });
  return {
    url,
    adminToken,
    key: desk.key,
    secret: desk.secret,
    deskId: desk.id,
    merchantId: merchant.id,
    proc,
    admin,
    async close() {
      await stop(proc);
      await testDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const PYTEST_CHECK = ['-c', 'import sys, pytest; assert sys.version_info >= (3, 10), sys.version'];

/**
 * The Python the SDK's tests run with: `python3` on the PATH when it has pytest, else Debian's
 * `/usr/bin/python3` (where `python3-pytest` installs), which a PATH led by another Python hides.
 */
export const PYTHON: string = ['python3', '/usr/bin/python3'].find((cmd) => spawnSync(cmd, PYTEST_CHECK, { encoding: 'utf8' }).status === 0) ?? 'python3';

/** Whether `PYTHON -m pytest` works here; in CI its absence is a failure, locally a reason to skip. */
export function pythonWithPytest(): { ok: true } | { ok: false; why: string } {
  const r = spawnSync(PYTHON, PYTEST_CHECK, { encoding: 'utf8' });
  if (r.error) return { ok: false, why: `python3 is not installed (${r.error.message})` };
  if (r.status !== 0) return { ok: false, why: `python3 3.10+ with pytest is needed: ${r.stderr.trim().split('\n').pop()}` };
  return { ok: true };
}

export const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
