import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareEnv, copyOfMigratedDataDir, freePort, killChildren, runAsNpmStart, STARTUP_MS, waitStatus, type Proc } from '../helpers/process.js';

// The README's quick start, run as a newcomer would paste it: the commands are read from the
// README itself, with only the placeholders it asks the reader to fill in (key, secret, token,
// order id) and the ports (the README's 8080 and 3000 may be taken here) replaced.

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

function section(title: string): string {
  const start = README.indexOf(`## ${title}`);
  expect(start, title).toBeGreaterThan(-1);
  const end = README.indexOf('\n## ', start + 3);
  return README.slice(start, end < 0 ? undefined : end);
}

const blocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

const sh = (script: string, env: NodeJS.ProcessEnv = {}) =>
  new Promise<string>((resolve, reject) =>
    execFile('bash', ['-c', script], { timeout: 20_000, env: { ...process.env, ...env } }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))),
  );

async function until<T>(what: string, probe: () => T | null | Promise<T | null>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterAll(killChildren);

describe('the README quick start, as written', () => {
  let dataDir: string;
  let base: string;
  let gateway: Proc;
  let receiver: ChildProcess;
  let received = '';
  let port: number;
  let receiverPort: number;
  const ports = (s: string) => s.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`).replaceAll('127.0.0.1:3000', `127.0.0.1:${receiverPort}`).replace(/listen\(3000\)/, `listen(${receiverPort})`);

  beforeAll(async () => {
    // What the quick start shows comes from the first start on a DATA_DIR; its database is the
    // run's migrated one (creating it is start.test.ts's subject), so the first start here prints the
    // token and the demo desk as on an empty DATA_DIR.
    dataDir = await copyOfMigratedDataDir('readme');
    port = await freePort();
    receiverPort = await freePort();
    base = `http://127.0.0.1:${port}`;
    const [terminals] = blocks(section('A first order and its callback'));
    // The gateway as terminal 1 starts it: the environment the README names, nothing else.
    const start = /^(\w+)=(\S+) npm start$/m.exec(terminals!);
    expect(start, terminals).not.toBeNull();
    gateway = runAsNpmStart(['serve'], bareEnv({ PORT: String(port), DATA_DIR: dataDir, [start![1]!]: start![2]! }));
    const receiverLine = terminals!.split('\n').find((l) => l.startsWith('node -e '));
    expect(receiverLine).toBeDefined();
    receiver = spawn('bash', ['-c', ports(receiverLine!)], { stdio: ['ignore', 'pipe', 'pipe'] });
    receiver.stdout!.on('data', (c: Buffer) => (received += c.toString()));
    // Ready once the banner is printed (/healthz answers as soon as the port listens, a moment before).
    await waitStatus(`${base}/readyz`, gateway);
  }, STARTUP_MS + 10_000);

  afterAll(() => {
    receiver?.kill();
    killChildren();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('names the cabinet and the back office, and both answer', async () => {
    const quick = section('Quick start');
    expect(quick).toContain('http://127.0.0.1:8080/cabinet');
    expect(quick).toContain('http://127.0.0.1:8080/office');
    for (const path of ['/cabinet', '/office']) {
      const res = await fetch(`${base}${path}`, { redirect: 'follow' });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
    }
  });

  it('the first operator is created with the printed token as the quick start shows', async () => {
    const token = /ADMIN_TOKEN=(\S+)/.exec(gateway.stderr())![1]!;
    const [create] = blocks(section('Quick start')).filter((b) => b.includes('/admin/v1/operators'));
    const answer = JSON.parse(await sh(ports(create!.replace(/^\s+/gm, '')), { ADMIN_TOKEN: token }));
    expect(answer).toMatchObject({ status: 'ok', result: { email: 'ops@example.com', role: 'admin' } });
  });

  it('the signed call creates an order, a second run creates another, and the simulated payment calls back', async () => {
    const out = gateway.stderr();
    const key = /desk key:\s+(shp_[0-9a-z]{26})\b/.exec(out)![1]!;
    const secret = /desk secret:\s+(\S+)/.exec(out)![1]!;
    const token = /ADMIN_TOKEN=(\S+)/.exec(out)![1]!;
    const [, create, simulate] = blocks(section('A first order and its callback'));
    const script = ports(create!.replace("KEY='shp_…' SECRET='…'", `KEY='${key}' SECRET='${secret}'`));
    const first = JSON.parse(await sh(script));
    expect(first, JSON.stringify(first)).toMatchObject({ status: "ok", result: { status: "Created" } });
    // The README promises a fresh orderRef per run: a run in the next second makes a new order.
    const read = await fetch(`${base}/admin/v1/orders/${first.result.id}`, { headers: { authorization: `Bearer ${token}` } });
    const ref = ((await read.json()) as { result: { orderRef: string } }).result.orderRef;
    expect(ref).toMatch(/^inv-\d{10}$/);
    await until('the next second', () => (Math.floor(Date.now() / 1000) > Number(ref.slice(4)) ? true : null));
    const second = JSON.parse(await sh(script));
    expect(second.result.id).not.toBe(first.result.id);

    const id = first.result.id as string;
    const paid = JSON.parse(await sh(ports(simulate!.replace('ord_…', id)), { BASE: base, ADMIN_TOKEN: token }));
    expect(paid).toMatchObject({ status: 'ok' });
    const line = await until('the callback reaching the receiver', () => received.split('\n').find((l) => l.includes(id)) ?? null);
    expect(line).toMatch(/^evt_\S+ \{/);
    expect(JSON.parse(line.slice(line.indexOf(' ') + 1))).toMatchObject({ event: 'order.completed', id, status: 'Completed' });
  }, 90_000);
});
