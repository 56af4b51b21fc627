import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, Paygate } from '@paygate/sdk';
import { admin, createHarness, provisionDesk, type DeskCreds, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// `npm run listen` as a developer runs it, against a gateway on a real socket, forwarding to a
// receiver on 127.0.0.1 (which the gateway's own callback URL rules would refuse).

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let h: Harness;
let rx: Receiver;
let desk: DeskCreds;
let baseUrl: string;
let pg: Paygate;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  h = await createHarness();
  h.clock.set(Date.now());
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  rx = await startReceiver();
  desk = await provisionDesk(h.app, { desk: { callbackUrl: 'https://merchant.example/paygate/callbacks' } });
  pg = new Paygate({ baseUrl, key: desk.key, secret: desk.secret });
  dir = mkdtempSync(join(tmpdir(), 'paygate-listen-'));
});
afterAll(async () => {
  for (const c of children) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await rx?.close();
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

function runListen(...extra: string[]): Run {
  const args = ['run', '--silent', 'listen', '--', '--base-url', baseUrl, '--key', desk.key, '--secret', desk.secret, '--forward-to', `${rx.url}/hooks/paygate`, '--state', join(dir, 'state.json'), ...extra];
  // Its own process group, so stopping it stops npm and the tsx process under it.
  const child = spawn('npm', args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, exited };
}

async function waitFor(what: string, cond: () => boolean, ms = 20_000) {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function completedOrder(ref: string): Promise<string> {
  const o = await pg.orders.create({ amount: 918, rail: 'Sbp', orderRef: ref });
  expect((await admin(h.app, 'POST', `/orders/${o.id}/simulate-payment`)).statusCode).toBe(200);
  return o.id;
}

const lastFeedEvent = async () => {
  let last;
  for await (const e of pg.events()) last = e;
  return last!;
};

describe('npm run listen', () => {
  it('forwards a completed order event exactly as the gateway would send it, and a restart does not forward it again', async () => {
    const orderId = await completedOrder('listen-1');
    const fed = await lastFeedEvent();
    rx.respond(() => ({ status: 200, body: 'thanks' }));

    const first = runListen('--interval-ms', '200');
    await waitFor('the forwarded event', () => rx.hits.length >= 1);
    await waitFor('the printed line', () => first.out().includes('-> 200 thanks'));
    const hit = rx.hits[0];
    expect(hit.path).toBe('/hooks/paygate');
    expect(hit.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(hit.headers['user-agent']).toBe('Paygate/1.0 Callback');
    expect(hit.headers['x-gate-event-id']).toBe(fed.id);
    expect(hit.body.equals(Buffer.from(fed.body, 'utf8'))).toBe(true);
    expect(JSON.parse(hit.body.toString())).toMatchObject({ event: 'order.completed', id: orderId, orderRef: 'listen-1' });
    const ts = hit.headers['x-gate-ts'] as string;
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(60);
    // Verified independently of the SDK: HMAC-SHA256 with the desk secret over {ts}.{eventId}.{raw body}.
    const expected = createHmac('sha256', desk.secret).update(Buffer.concat([Buffer.from(`${ts}.${fed.id}.`), hit.body])).digest('hex');
    expect(hit.headers['x-gate-sign']).toBe(expected);
    expect(first.out()).toContain(`${fed.id}  order.completed  ${orderId}  -> 200 thanks`);
    await waitFor('the state file', () => {
      try {
        return JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).lastEventId === fed.id;
      } catch {
        return false;
      }
    });

    // Stopped like Ctrl-C, then started again.
    process.kill(-first.child.pid!, 'SIGINT');
    await first.exited;
    const second = runListen('--once');
    expect(await second.exited).toBe(0);
    expect(second.out()).toContain(`after ${fed.id}`);
    expect(rx.hits).toHaveLength(1);

    // A restart resumes after the remembered event: only what is new is forwarded.
    const next = await completedOrder('listen-2');
    const third = runListen('--once');
    expect(await third.exited).toBe(0);
    expect(rx.hits).toHaveLength(2);
    expect(JSON.parse(rx.hits[1].body.toString()).id).toBe(next);
    expect(third.out()).toContain(`-> 200 thanks`);

    // --since replays from a chosen event; a non-200 answer is printed and not retried.
    rx.respond(() => ({ status: 500, body: 'boom' }));
    const replay = runListen('--once', '--since', fed.id);
    expect(await replay.exited).toBe(0);
    expect(rx.hits).toHaveLength(3);
    expect(replay.out()).toMatch(/-> 500 boom/);
  }, 120_000); // four CLI starts (npm, tsx) on a busy machine

  it('keeps an event it could not hand to the local server for the next poll', async () => {
    const statePath = join(dir, 'unreachable.json');
    const closed = await startReceiver();
    await closed.close(); // nothing listens on this port any more
    const lines: string[] = [];
    const common = { baseUrl, key: desk.key, secret: desk.secret, statePath, log: (l: string) => void lines.push(l) };
    await expect(listen({ ...common, forwardTo: `${closed.url}/hook`, once: true })).rejects.toThrow(/not reachable/);
    expect(lines.some((l) => l.includes('not delivered'))).toBe(true);
    expect(() => readFileSync(statePath)).toThrow();

    // Following the feed: the backlog arrives once the server is up, in order, then it stops on abort.
    const before = rx.hits.length;
    rx.respond(() => ({ status: 200, body: 'ok' }));
    const stop = new AbortController();
    const run = listen({ ...common, forwardTo: `${rx.url}/follow`, intervalMs: 50, signal: stop.signal });
    const total = [];
    for await (const e of pg.events()) total.push(e.id);
    await waitFor('the backlog', () => rx.hits.length - before === total.length);
    const later = await completedOrder('listen-3');
    await waitFor('the new event', () => rx.hits.some((r) => r.path === '/follow' && r.body.includes(later)));
    stop.abort();
    const result = await run;
    expect(result.forwarded).toBe(total.length + 1);
    expect(rx.hits.slice(before).map((r) => r.headers['x-gate-event-id'])).toEqual([...total, result.lastEventId]);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).lastEventId).toBe(result.lastEventId);
  }, 60_000);
});
