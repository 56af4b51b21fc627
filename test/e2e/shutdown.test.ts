import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { request, Agent, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/signing.js';
import { bareEnv, copyOfMigratedDataDir, freePort, killChildren, NO_DRAIN, runAsNpmStart, STARTUP_MS, until, waitStatus, type Proc } from '../helpers/process.js';

// Shutdown while work is in flight: no acknowledged order is lost to a SIGTERM, and the drain keeps
// answering while balancers take the instance out of rotation. Each test starts from a copy of the
// run's migrated database (see migratedDataDir): its first start there seeds the demo desk and
// prints it, and the signed calls use that desk.

afterAll(killChildren);

/** The demo desk a first start prints on stderr once it listens (waited for: /healthz may answer first). */
async function demoDesk(p: Proc): Promise<{ key: string; secret: string }> {
  const printed = () => /desk secret:\s+(\S+)/.exec(p.stderr());
  await until('the demo desk printed on stderr', () => printed() !== null, 5_000);
  return { key: /desk key:\s+(shp_[0-9a-z]{26})\b/.exec(p.stderr())![1]!, secret: printed()![1]! };
}

describe('graceful shutdown under load', () => {
  it('SIGTERM while orders are being created loses no order that was answered 201', async () => {
    const dataDir = await copyOfMigratedDataDir('e2e-sigterm');
    try {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      // Without a drain, as SHUTDOWN_DRAIN_SECONDS=0 asks: the listener closes at once.
      const env = bareEnv({ PORT: String(port), DATA_DIR: dataDir, ...NO_DRAIN });
      const first = runAsNpmStart(['serve'], env);
      await waitStatus(`${base}/healthz`, first);
      const { key, secret } = await demoDesk(first);

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

describe('shutdown under load: the drain', () => {
  interface Answer {
    status: number;
    body: unknown;
    error?: string;
  }
  /** A request whose every outcome is recorded: a status and JSON body, or the network error (ECONNRESET, …). */
  async function ask(url: string, init?: RequestInit): Promise<Answer> {
    try {
      const res = await fetch(url, init);
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      return { status: 0, body: null, error: `${e.message}: ${e.cause?.code ?? e.cause?.message ?? ''}` };
    }
  }
  function signedMethods(base: string, desk: { key: string; secret: string }): Promise<Answer> {
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(12).toString('hex');
    const sign = signRequest(desk.secret, ts, nonce, 'GET', '/gw/v1/methods', '');
    return ask(`${base}/gw/v1/methods`, { headers: { 'x-gate-key': desk.key, 'x-gate-ts': ts, 'x-gate-nonce': nonce, 'x-gate-sign': sign } });
  }

  /** One keep-alive connection of its own (node:http, one socket), to see what happens to it. */
  function keepAliveConnection(port: number) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let socket: Socket | null = null;
    let closed = false;
    const get = (path: string) =>
      new Promise<{ status: number; reused: boolean; connection: string | undefined }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, agent }, (res: IncomingMessage) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket, connection: res.headers.connection }));
        });
        req.on('socket', (s: Socket) => {
          if (socket !== s) s.once('close', () => (closed = true));
          socket = s;
        });
        req.on('error', reject);
        req.end();
      });
    return { get, closed: () => closed, destroy: () => agent.destroy() };
  }

  it('after SIGTERM, /readyz answers 503 at once while the listener keeps accepting and serving for SHUTDOWN_DRAIN_SECONDS: a burst is answered in full, then the process exits 0', async () => {
    const dataDir = await copyOfMigratedDataDir('e2e-drain');
    // Long enough that the requests sent once /readyz said 503 (within 2 s) are accepted well before the listener closes.
    const drainSeconds = 4;
    const connections: ReturnType<typeof keepAliveConnection>[] = [];
    try {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const p = runAsNpmStart(['serve'], bareEnv({ PORT: String(port), DATA_DIR: dataDir, SHUTDOWN_DRAIN_SECONDS: String(drainSeconds), SHUTDOWN_GRACE_SECONDS: '10' }));
      await waitStatus(`${base}/readyz`, p);
      const desk = await demoDesk(p);

      // Two keep-alive connections opened before the signal: one carries a request again during
      // the drain, the other stays idle until the listener closes.
      const again = keepAliveConnection(port);
      const idle = keepAliveConnection(port);
      connections.push(again, idle);
      expect((await again.get('/healthz')).status).toBe(200);
      expect((await idle.get('/healthz')).status).toBe(200);

      const signalled = Date.now();
      p.child.kill('SIGTERM');
      // A burst right after the signal: signed calls and liveness checks, each on a connection of its own.
      const burst = Array.from({ length: 48 }, (_, i) => (i % 4 === 3 ? ask(`${base}/healthz`) : signedMethods(base, desk)));

      // /readyz says at once that the drain has begun (a balancer takes the instance out of rotation).
      const readiness: Answer[] = [];
      while (readiness.at(-1)?.status !== 503) {
        if (Date.now() - signalled > 2_000) throw new Error(`/readyz did not answer 503; last answers: ${JSON.stringify(readiness.slice(-3))}`);
        readiness.push(await ask(`${base}/readyz`));
      }
      for (const r of readiness.slice(0, -1)) expect(r.status, JSON.stringify(r)).toBe(200);
      expect(readiness.at(-1)!.body).toMatchObject({ status: 'unavailable', failing: ['shutdown'], checks: { shutdown: 'shutting down' } });
      // The same signal once more, as `npm start` under systemd may deliver it: it must not cut the drain short.
      p.child.kill('SIGTERM');

      // More requests, sent while the drain runs: new connections are still accepted and served.
      const later = Array.from({ length: 24 }, (_, i) => (i % 4 === 3 ? ask(`${base}/healthz`) : signedMethods(base, desk)));
      // A keep-alive connection from before the signal is served, and told to close with the answer.
      const onOld = await again.get('/healthz');
      expect(onOld).toMatchObject({ status: 200, reused: true, connection: 'close' });
      await until('the server closes the connection it answered with Connection: close', again.closed, 5_000);

      const answers = await Promise.all([...burst, ...later]);
      const failed = answers.filter((a) => a.status !== 200);
      expect(failed, JSON.stringify(failed.slice(0, 5))).toEqual([]);
      for (const a of answers) expect((a.body as { status: string }).status).toMatch(/^(ok|ready)$/);

      expect(await p.exit).toBe(0);
      // The drain ran its full length: the repeated SIGTERM did not end it.
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(drainSeconds * 1_000 - 50);
      // The connection idle since before the signal was closed by the server when the listener
      // closed, so it did not hold the shutdown to the end of the grace period (which exits 1).
      await until('the idle keep-alive connection is closed', idle.closed, 5_000);
      const log = p.stdout();
      expect(log).toContain(`"drainMs":${drainSeconds * 1_000}`);
      expect(log.indexOf('"msg":"shutting down"')).toBeLessThan(log.indexOf('"msg":"closing the listener"'));
      expect(log.indexOf('"msg":"closing the listener"')).toBeLessThan(log.indexOf('"msg":"stopped"'));
      await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    } finally {
      for (const c of connections) c.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 2 * STARTUP_MS);

  it('SIGINT drains too; a second SIGINT (Ctrl-C again) ends the drain at once and the process exits 0', async () => {
    const dataDir = await copyOfMigratedDataDir('e2e-sigint');
    try {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const p = runAsNpmStart(['serve'], bareEnv({ PORT: String(port), DATA_DIR: dataDir, SHUTDOWN_DRAIN_SECONDS: '600' }));
      await waitStatus(`${base}/readyz`, p);
      p.child.kill('SIGINT');
      await waitStatus(`${base}/readyz`, p, 503);
      // Draining: still serving.
      expect((await ask(`${base}/healthz`)).status).toBe(200);
      const second = Date.now();
      p.child.kill('SIGINT');
      expect(await p.exit).toBe(0);
      expect(Date.now() - second).toBeLessThan(30_000);
      expect(p.stdout()).toMatch(/"msg":"second SIGINT; ending the drain now"/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 2 * STARTUP_MS);
});
