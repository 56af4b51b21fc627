import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/signing.js';
import { bareEnv, freePort, killChildren, runAsNpmStart, STARTUP_MS, waitStatus } from '../helpers/process.js';

// The process contract an operator relies on: one process per embedded database, an exit 0 on
// SIGTERM, health and metrics where the README says, --help that starts nothing.

afterAll(killChildren);

// A first start initialises the embedded database (several seconds); the start itself is the
// subject of start.test.ts. Here each test starts from a copy of one data directory that a first
// start made (database migrated, master key kept, demo desk seeded), so the processes under test
// start in a moment.
let template: string;
let demo: { key: string; secret: string };

beforeAll(async () => {
  template = mkdtempSync(join(tmpdir(), 'paygate-e2e-template-'));
  const port = await freePort();
  const p = runAsNpmStart(['serve'], bareEnv({ PORT: String(port), DATA_DIR: template }));
  await waitStatus(`http://127.0.0.1:${port}/readyz`, p);
  demo = { key: /desk key:\s+(shp_[0-9a-z]{26})\b/.exec(p.stderr())![1]!, secret: /desk secret:\s+(\S+)/.exec(p.stderr())![1]! };
  p.child.kill('SIGTERM');
  expect(await p.exit).toBe(0);
}, STARTUP_MS + 10_000);
afterAll(() => rmSync(template, { recursive: true, force: true }));

/** A data directory of its own for one test, holding what the first start made. */
function copyOfTemplate(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `paygate-e2e-${name}-`));
  cpSync(template, dir, { recursive: true });
  return dir;
}

describe('one embedded database, one process', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = copyOfTemplate('lock');
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('a second process on the same DATA_DIR refuses, naming it and the running pid; a kill -9 leaves no lock behind', async () => {
    const port = await freePort();
    const metricsPort = await freePort();
    const first = runAsNpmStart(['serve'], bareEnv({ PORT: String(port), DATA_DIR: dataDir, METRICS_PORT: String(metricsPort) }));
    await waitStatus(`http://127.0.0.1:${port}/readyz`, first);

    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(await ready.json()).toMatchObject({ status: 'ready', failing: [], checks: { database: 'ok', migrations: 'ok', redis: 'not configured' } });
    // Metrics only on their own port.
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^paygate_/m);

    const second = runAsNpmStart(['serve'], bareEnv({ PORT: String(await freePort()), DATA_DIR: dataDir }));
    const code = await second.exit;
    expect(code).not.toBe(0);
    expect(second.stderr()).toContain(`DATA_DIR ${dataDir}`);
    expect(second.stderr()).toContain(`pid ${first.child.pid}`);
    expect(second.stderr()).not.toMatch(/\n\s+at /);

    first.child.kill('SIGKILL');
    await first.exit;
    const third = runAsNpmStart(['serve'], bareEnv({ PORT: String(port), DATA_DIR: dataDir }));
    await waitStatus(`http://127.0.0.1:${port}/healthz`, third);
    third.child.kill('SIGTERM');
    expect(await third.exit).toBe(0);
  }, 3 * STARTUP_MS);
});

describe('graceful shutdown', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s: the process stops accepting, releases DATA_DIR and exits 0', async (signal) => {
    const dataDir = copyOfTemplate('term');
    try {
      const port = await freePort();
      const p = runAsNpmStart(['serve'], bareEnv({ PORT: String(port), DATA_DIR: dataDir, SHUTDOWN_GRACE_SECONDS: '5' }));
      await waitStatus(`http://127.0.0.1:${port}/readyz`, p);
      // Log lines leave in batches, yet a request's line shows within about a second while the server runs.
      const asked = Date.now();
      while (!/"route":"\/readyz"/.test(p.stdout()) && Date.now() - asked < 5_000) await new Promise((r) => setTimeout(r, 50));
      expect(p.stdout()).toMatch(/"route":"\/readyz"/);
      // Requests in flight when the signal arrives are answered.
      const inFlight = Array.from({ length: 20 }, () => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status));
      p.child.kill(signal);
      const statuses = await Promise.allSettled(inFlight);
      for (const s of statuses) if (s.status === 'fulfilled') expect([200, 503]).toContain(s.value);
      expect(await p.exit).toBe(0);
      expect(p.stdout()).toMatch(/"msg":"stopped"/);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      // Nothing left holding DATA_DIR: the lock file is gone (the next start needs no takeover).
      expect(existsSync(join(dataDir, 'paygate.lock'))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 2 * STARTUP_MS);
});

describe('command line', () => {
  it('--help prints the commands and starts nothing', async () => {
    const port = await freePort();
    const p = runAsNpmStart(['--help'], bareEnv({ PORT: String(port), DATA_DIR: '/nonexistent/never-created' }));
    expect(await p.exit).toBe(0);
    expect(p.stdout()).toMatch(/serve \[--role api\|worker\|all\]/);
    expect(p.stdout()).toMatch(/migrate/);
    const q = runAsNpmStart(['serve', '--help'], bareEnv({ PORT: String(port) }));
    expect(await q.exit).toBe(0);
    expect(q.stdout()).toMatch(/Usage: paygate/);
  }, STARTUP_MS);

  it('a bad CALLBACK_ALLOWLIST names the variable', async () => {
    const p = runAsNpmStart(['serve'], bareEnv({ CALLBACK_ALLOWLIST: '10.0.0.0/99', DATA_DIR: '/nonexistent/never-created' }));
    expect(await p.exit).not.toBe(0);
    expect(p.stderr()).toMatch(/^paygate: CALLBACK_ALLOWLIST: /m);
  }, STARTUP_MS);
});

describe('graceful shutdown under load', () => {
  it('SIGTERM while orders are being created loses no order that was answered 201', async () => {
    const dataDir = copyOfTemplate('sigterm');
    try {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const env = bareEnv({ PORT: String(port), DATA_DIR: dataDir });
      const first = runAsNpmStart(['serve'], env);
      await waitStatus(`${base}/healthz`, first);
      const { key, secret } = demo;

      const create = async (i: number) => {
        const body = JSON.stringify({ amount: 100 + i, rail: 'Sbp', orderRef: `sigterm-${i}`, notifyUrl: 'https://93.184.215.14/cb' });
        const ts = String(Math.floor(Date.now() / 1000));
        const nonce = randomBytes(12).toString('hex');
        const headers = { 'content-type': 'application/json', 'x-gate-key': key, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': signRequest(secret, ts, nonce, 'POST', '/gw/v1/orders', body) };
        try {
          const res = await fetch(`${base}/gw/v1/orders`, { method: 'POST', headers, body });
          return { status: res.status, body: res.status === 201 ? ((await res.json()) as { result: { id: string } }) : null };
        } catch {
          return { status: 0, body: null };
        }
      };
      // A burst of creates; SIGTERM as soon as the first is acknowledged, with the rest in flight.
      let signalled = false;
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          create(i).then((r) => {
            if (r.status === 201 && !signalled) {
              signalled = true;
              first.child.kill('SIGTERM');
            }
            return r;
          }),
        ),
      );
      expect(await first.exit).toBe(0);
      const acknowledged = results.filter((r) => r.status === 201).map((r) => r.body!.result.id);
      expect(acknowledged.length).toBeGreaterThan(0);
      // Whatever was not acknowledged was refused or cut off, never half-answered.
      for (const r of results) expect([0, 201, 429, 503]).toContain(r.status);

      const second = runAsNpmStart(['serve'], env);
      await waitStatus(`${base}/healthz`, second);
      for (const id of acknowledged) {
        const ts = String(Math.floor(Date.now() / 1000));
        const nonce = randomBytes(12).toString('hex');
        const path = `/gw/v1/orders/${id}`;
        const res = await fetch(`${base}${path}`, { headers: { 'x-gate-key': key, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': signRequest(secret, ts, nonce, 'GET', path, '') } });
        expect(res.status, id).toBe(200);
        expect(((await res.json()) as { result: { id: string; status: string } }).result).toMatchObject({ id, status: 'Created' });
      }
      second.child.kill('SIGTERM');
      expect(await second.exit).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 3 * STARTUP_MS);
});
