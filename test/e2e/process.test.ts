import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareEnv, copyOfMigratedDataDir, freePort, killChildren, NO_DRAIN, runAsNpmStart, runUnreaped, STARTUP_MS, until, waitStatus } from '../helpers/process.js';

// The process contract an operator relies on: one process per embedded database, an exit 0 on
// SIGTERM, health and metrics where the README says, --help that starts nothing. Shutdown under
// load and the drain are in shutdown.test.ts.

afterAll(killChildren);

/** The state letter of /proc/<pid>/stat (Z: exited, not yet reaped), or null once the pid is gone. */
function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

// A first start initialises the embedded database (several seconds); the start itself is the
// subject of start.test.ts. Here each test starts from a copy of the run's migrated database
// (see migratedDataDir), so the processes under test start in a moment.

describe('one embedded database, one process', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await copyOfMigratedDataDir('e2e-lock');
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('a second process on the same DATA_DIR refuses, naming it and the running pid; a kill -9 leaves no lock behind', async () => {
    const port = await freePort();
    const metricsPort = await freePort();
    const first = runAsNpmStart(['serve'], bareEnv({ PORT: String(port), DATA_DIR: dataDir, METRICS_PORT: String(metricsPort), ...NO_DRAIN }));
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
    const third = runAsNpmStart(['serve'], bareEnv({ PORT: String(port), DATA_DIR: dataDir, ...NO_DRAIN }));
    await waitStatus(`http://127.0.0.1:${port}/healthz`, third);
    third.child.kill('SIGTERM');
    expect(await third.exit).toBe(0);
  }, 3 * STARTUP_MS);

  it.skipIf(!existsSync('/proc/self/stat'))('a process killed with -9 and not yet reaped (a zombie) does not hold DATA_DIR: a start at once takes it over', async () => {
    const port = await freePort();
    const env = bareEnv({ PORT: String(port), DATA_DIR: dataDir, ...NO_DRAIN });
    // Under a parent that never reaps it, the killed server stays a zombie for as long as the
    // test needs; under a real supervisor that lasts a moment, the moment a restart came too soon.
    const first = runUnreaped(['serve'], env);
    const server = await first.serverPid;
    await waitStatus(`http://127.0.0.1:${port}/healthz`, first);
    expect(JSON.parse(readFileSync(join(dataDir, 'paygate.lock'), 'utf8'))).toMatchObject({ pid: server });

    process.kill(server, 'SIGKILL');
    await until(`pid ${server} is a zombie`, () => procState(server) === 'Z');
    // kill(pid, 0) still finds it: the check it alone made would refuse this start.
    expect(() => process.kill(server, 0)).not.toThrow();

    const next = runAsNpmStart(['serve'], env);
    await waitStatus(`http://127.0.0.1:${port}/healthz`, next);
    expect(procState(server)).toBe('Z');
    expect(JSON.parse(readFileSync(join(dataDir, 'paygate.lock'), 'utf8'))).toMatchObject({ pid: next.child.pid });
    next.child.kill('SIGTERM');
    expect(await next.exit).toBe(0);
    first.child.kill('SIGKILL');
    await first.exit;
  }, 2 * STARTUP_MS);
});

describe('graceful shutdown', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s: the process stops accepting, releases DATA_DIR and exits 0', async (signal) => {
    const dataDir = await copyOfMigratedDataDir('e2e-term');
    try {
      const port = await freePort();
      const p = runAsNpmStart(['serve'], bareEnv({ PORT: String(port), DATA_DIR: dataDir, SHUTDOWN_GRACE_SECONDS: '5', ...NO_DRAIN }));
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
