import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createTestDb, serverUrl, type TestDb } from '../helpers/db.js';
import { bareEnv, copyOfMigratedDataDir, freePort, NO_DRAIN, runAsNpmStart, scratchDir, waitStatus, type Proc } from '../helpers/process.js';

/**
 * A Paygate process for the PHP suites: `node dist/main.js serve` as `npm start` runs it, on the
 * embedded database (a copy of the run's migrated one) or, with DATABASE_URL, on a throwaway
 * PostgreSQL database (and Redis with REDIS_URL), callbacks allowed to loopback, and a sandbox
 * Classic desk provisioned through the operator API as deployment tooling would.
 */

/** Whether `php` (with curl) and `phpunit` can run here; CI must have them. */
export function phpAvailable(): { php: boolean; phpunit: boolean } {
  const php = spawnSync('php', ['-r', 'exit(extension_loaded("curl") ? 0 : 3);']);
  const phpunit = spawnSync('phpunit', ['--version']);
  return { php: php.status === 0, phpunit: phpunit.status === 0 };
}

export interface PhpGateway {
  url: string;
  adminToken: string;
  proc: Proc;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** A sandbox Classic desk (Sbp and C2c, RUB at 91.8) of a new merchant. */
  provisionDesk(desk?: Record<string, unknown>): Promise<{ key: string; secret: string; id: string; merchantId: string }>;
  close(): Promise<void>;
}

export async function startPhpGateway(name: string): Promise<PhpGateway> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const adminToken = `php-${randomBytes(12).toString('hex')}`;
  let testDb: TestDb | null = null;
  let dataDir: string;
  const env: Record<string, string> = {
    PORT: String(port),
    ADMIN_TOKEN: adminToken,
    PUBLIC_URL: url,
    CALLBACK_ALLOWLIST: '127.0.0.1',
    SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    ...NO_DRAIN,
  };
  if (serverUrl) {
    testDb = await createTestDb();
    dataDir = scratchDir(name);
    Object.assign(env, { DATA_DIR: dataDir, DATABASE_URL: testDb.url!, MASTER_KEY: randomBytes(32).toString('hex') });
    if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
  } else {
    dataDir = await copyOfMigratedDataDir(name);
    env.DATA_DIR = dataDir;
  }
  const proc = runAsNpmStart(['serve'], bareEnv(env));
  await waitStatus(`${url}/readyz`, proc);

  async function admin(method: string, path: string, body?: unknown) {
    const res = await fetch(`${url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  }

  return {
    url,
    adminToken,
    proc,
    admin,
    async provisionDesk(desk = {}) {
      for (const [path, body] of [
        ['/currencies/RUB', { enabled: true, spreadPercent: '0' }],
        ['/rates/RUB', { rate: '91.8' }],
      ] as const) {
        const r = await admin('PUT', path, body);
        if (r.status !== 200) throw new Error(`PUT ${path}: ${r.status} ${JSON.stringify(r.json)}`);
      }
      const m = await admin('POST', '/merchants', { name: 'PHP shop', sandbox: true });
      if (m.status !== 201) throw new Error(`merchant: ${m.status} ${JSON.stringify(m.json)}`);
      const d = await admin('POST', `/merchants/${m.json.result.id}/desks`, {
        method: 'Classic', rails: ['Sbp', 'C2c'], currencies: ['RUB'], minUsd: '0', maxUsd: '0', callbackUrl: null, tariffId: null, ...desk,
      });
      if (d.status !== 201) throw new Error(`desk: ${d.status} ${JSON.stringify(d.json)}`);
      return { key: d.json.result.key, secret: d.json.result.secret, id: d.json.result.id, merchantId: m.json.result.id };
    },
    async close() {
      proc.child.kill('SIGTERM');
      await proc.exit;
      await testDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
