import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/signing.js';
import { bareEnv, copyOfMigratedDataDir, freePort, killChildren, migratedDataDir, runAsNpmStart, runNpmStart, scratchDir, STARTUP_MS, stop, waitStatus, type Proc } from '../helpers/process.js';

// A newcomer's first run: `npm start` with nothing configured, the embedded database under DATA_DIR.
// The process is the real one, spoken to over real sockets.

const waitHealthy = (base: string, p: Proc) => waitStatus(`${base}/healthz`, p);

function signedGet(base: string, key: string, secret: string, path: string, nonce = randomBytes(12).toString('hex')) {
  const ts = String(Math.floor(Date.now() / 1000));
  const sign = signRequest(secret, ts, nonce, 'GET', path, '');
  return fetch(`${base}${path}`, { headers: { 'X-Gate-Key': key, 'X-Gate-Ts': ts, 'X-Gate-Nonce': nonce, 'X-Gate-Sign': sign } });
}

afterAll(killChildren);

describe('first start, restart and refusal of the real process', () => {
  let dataDir: string;
  let port: number;
  let base: string;
  let first: Proc;
  let deskKey: string;
  let deskSecret: string;
  let adminToken: string;
  const nonceBeforeRestart = `before-restart-${randomBytes(6).toString('hex')}`;

  // The first start is `npm start` itself, prestart included, through the npm on PATH, on an empty
  // DATA_DIR: first's pid is npm's, the server a process below it.
  beforeAll(async () => {
    dataDir = scratchDir('e2e-first');
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    first = runNpmStart([], bareEnv({ PORT: String(port), DATA_DIR: dataDir }));
    // Ready once the banner is printed (/healthz answers as soon as the port listens, a moment before).
    await waitStatus(`${base}/readyz`, first);
  }, STARTUP_MS + 10_000);

  afterAll(() => {
    killChildren();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the operator token and the demo desk once, on stderr, never into the JSON log on stdout', () => {
    const out = first.stderr();
    const token = /ADMIN_TOKEN=(\S+)/.exec(out);
    const key = /desk key:\s+(shp_[0-9a-z]{26})\b/.exec(out);
    const secret = /desk secret:\s+(\S+)/.exec(out);
    expect(token, out).not.toBeNull();
    expect(key, out).not.toBeNull();
    expect(secret, out).not.toBeNull();
    adminToken = token![1];
    deskKey = key![1];
    deskSecret = secret![1];
    expect(out.match(/ADMIN_TOKEN=/g)).toHaveLength(1);
    // The curl line is ready to paste: it names this very port.
    expect(out).toContain(`curl -s ${base}/gw/v1/methods`);
    expect(first.stderr()).not.toMatch(/error/i);
    expect(first.stdout()).not.toContain(adminToken);
    expect(first.stdout()).not.toContain(deskSecret);
    for (const line of first.stdout().split('\n').filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
  });

  it('the generated master key is kept in DATA_DIR, readable by the owner only', () => {
    expect(statSync(join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
  });

  it('the demo desk answers a signed GET /gw/v1/methods over HTTP: Classic with Sbp and C2c', async () => {
    const res = await signedGet(base, deskKey, deskSecret, '/gw/v1/methods', nonceBeforeRestart);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.status).toBe('ok');
    expect(body.traceId).toBe(res.headers.get('x-trace-id'));
    expect(body.result).toMatchObject({ method: 'Classic', available: true, reason: null });
    expect(body.result.rails.map((r: { rail: string }) => r.rail)).toEqual(['Sbp', 'C2c']);
    expect(body.result.rails[0].currencies).toEqual([{ code: 'RUB', min: 0, max: 0 }]);
  });

  it('the printed call, pasted into a shell, gets an ok answer', async (t) => {
    try {
      for (const tool of ['openssl', 'sha256sum', 'curl']) execFileSync('bash', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      t.skip();
    }
    const out = first.stderr();
    const start = out.indexOf('A signed call, ready to paste:');
    expect(start).toBeGreaterThan(-1);
    const script = out
      .slice(start)
      .split('\n')
      .slice(1)
      .filter((l) => l.startsWith('  '))
      .join('\n');
    const answer = await new Promise<string>((resolve, reject) =>
      execFile('bash', ['-c', script], { timeout: 15_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
    expect(JSON.parse(answer)).toMatchObject({ status: 'ok', result: { method: 'Classic', available: true } });
  });

  it('the demo rates are there: RUB is priceable', async () => {
    const res = await signedGet(base, deskKey, deskSecret, '/gw/v1/rates');
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).result.rates).toEqual([{ code: 'RUB', rate: '91.80000000', priceable: true }]);
  });

  it('the printed operator token works on the operator API; another does not', async () => {
    const put = (token: string) =>
      fetch(`${base}/admin/v1/currencies/RUB`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ enabled: true, spreadPercent: '0' }),
      });
    const ok = await put(adminToken);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).result).toMatchObject({ code: 'RUB', enabled: true, spreadPercent: '0.0000' });
    const refused = await put('adm_not-the-token-at-all');
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as any).fault.code).toBe('ADMIN_AUTH_FAILED');
  });

  it('`npm start` itself: SIGTERM to the npm process stops the server, npm waits for it through the drain and exits 0, and the port and DATA_DIR are free', async () => {
    // The first start runs with the default drain (5 s): npm must wait for the server through it, not leave it running behind.
    const server = (JSON.parse(readFileSync(join(dataDir, 'paygate.lock'), 'utf8')) as { pid: number }).pid;
    expect(server).not.toBe(first.child.pid);
    // No shell between npm and the server (Linux shows it in /proc): npm's copy of the signal reaches the server itself.
    if (existsSync(`/proc/${server}/stat`)) {
      const stat = readFileSync(`/proc/${server}/stat`, 'utf8');
      expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])).toBe(first.child.pid);
    }

    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    expect(first.stdout()).toMatch(/"msg":"stopped"/);
    // npm exited after the server did: it is gone, and nothing holds the port or DATA_DIR.
    expect(() => process.kill(server, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    await new Promise<void>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => s.close(() => resolve()));
    });
    expect(existsSync(join(dataDir, 'paygate.lock'))).toBe(false);
  }, STARTUP_MS + 20_000);

  it('a restart on the same DATA_DIR prints nothing new and keeps keys, token and nonce memory', async () => {
    // The test above stopped the first start (stop gives an exited process's code again); this restart skips the drain.
    expect(await stop(first)).toBe(0);
    const second = runAsNpmStart(['serve'], bareEnv({ PORT: String(port), DATA_DIR: dataDir, SHUTDOWN_DRAIN_SECONDS: '0' }));
    await waitHealthy(base, second);
    expect(second.stderr()).not.toContain('ADMIN_TOKEN=');
    expect(second.stderr()).not.toContain('desk key:');
    expect(second.stderr()).not.toContain('desk secret:');

    const again = await signedGet(base, deskKey, deskSecret, '/gw/v1/methods');
    expect(again.status).toBe(200);
    expect(((await again.json()) as any).result.method).toBe('Classic');

    const replay = await signedGet(base, deskKey, deskSecret, '/gw/v1/methods', nonceBeforeRestart);
    expect(replay.status).toBe(409);
    expect(((await replay.json()) as any).fault.code).toBe('REPLAY_DETECTED');

    const adminRes = await fetch(`${base}/admin/v1/rates/RUB`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ rate: '92' }),
    });
    expect(adminRes.status).toBe(200);
    expect(await stop(second)).toBe(0);
  }, STARTUP_MS + 20_000);

  it('a bad PORT stops the start with a message naming PORT and a non-zero exit', async () => {
    const p = runAsNpmStart(['serve'], bareEnv({ PORT: 'abc', DATA_DIR: dataDir }));
    const code = await p.exit;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(p.stderr()).toMatch(/PORT/);
    expect(p.stderr()).not.toMatch(/\n\s+at /); // a message, not a stack trace
  }, 30_000);

  it('`migrate` on a fresh DATA_DIR applies the schema, then reports it up to date', async () => {
    // The run's migrated database is made by `migrate` on an empty DATA_DIR (see migratedDataDir);
    // what that run printed is checked here, and `migrate` again on a copy of what it left.
    const a = await migratedDataDir();
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/^applied: 0001_init\.sql/m);
    const dir = await copyOfMigratedDataDir('e2e-migrate');
    try {
      const b = runAsNpmStart(['migrate'], bareEnv({ DATA_DIR: dir }));
      expect(await b.exit, b.stderr()).toBe(0);
      expect(b.stdout()).toMatch(/schema is up to date/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
