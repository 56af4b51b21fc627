import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { oncePerRun } from './runOnce.js';

/**
 * The real server as a child process, spoken to over real sockets: one plain node process, as
 * `npm start` runs it, so its pid is the server's and signals reach it.
 */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const STARTUP_MS = 60_000;

/**
 * The drain after SIGTERM (SHUTDOWN_DRAIN_SECONDS, 5 s by default) adds its seconds to every stop;
 * the tests about something else set it to 0, and the drain has tests of its own (shutdown.test.ts).
 */
export const NO_DRAIN = { SHUTDOWN_DRAIN_SECONDS: '0' };

/** Polls `check` until it holds, failing after `ms`. */
export async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The environment of a machine where nothing of Paygate is configured. */
export function bareEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (/^(PORT|HOST|DATA_DIR|DATABASE_URL|REDIS_URL|ADMIN_TOKEN|MASTER_KEY|PUBLIC_BASE_URL|PUBLIC_URL|CALLBACK_.*|CABINET_.*|OFFICE_.*|SEED_DEMO|LOG_LEVEL|FX_.*|METRICS_.*|SHUTDOWN_.*|NODE_OPTIONS|VITEST.*)$/.test(k)) delete env[k];
  }
  return { ...env, ...extra };
}

export { freePort } from './ports.js';

export interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

const children = new Set<ChildProcess>();
/** Process groups led by a child that starts the server below it: killed whole, even after the leader exited. */
const groups = new Set<number>();

/**
 * The server exactly as `npm start` runs it: `node dist/main.js` with the arguments and no loader,
 * from the plain JavaScript that `npm start`'s prestart (here the suite's global setup) made.
 */
export function runAsNpmStart(args: string[], env: NodeJS.ProcessEnv): Proc {
  return track(spawn(process.execPath, ['dist/main.js', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/**
 * `npm start` itself, prestart included, through the npm on PATH: its pid is npm's, and the server
 * is a process below it. `--silent` keeps npm's banner out of the server's JSON log on stdout.
 */
export function runNpmStart(args: string[], env: NodeJS.ProcessEnv): Proc {
  return track(spawn('npm', ['start', '--silent', ...(args.length ? ['--', ...args] : [])], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }), true);
}

/**
 * The server as the child of a parent that never reaps it (a shell that forks it, then execs into
 * `sleep`): killed, it stays a zombie, as under a supervisor that is slow to wait for its children.
 * `serverPid` is the server's pid; the returned process is the parent's.
 */
export function runUnreaped(args: string[], env: NodeJS.ProcessEnv): Proc & { serverPid: Promise<number> } {
  const script = `"${process.execPath}" dist/main.js "$@" & echo "server pid $!" >&2; exec sleep 3600`;
  const p = track(spawn('/bin/sh', ['-c', script, 'sh', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }), true);
  const serverPid = new Promise<number>((resolve, reject) => {
    const look = () => {
      const m = /server pid (\d+)/.exec(p.stderr());
      if (m) return resolve(Number(m[1]));
      if (p.child.exitCode !== null) return reject(new Error(`the parent exited:\n${p.stderr()}`));
      setTimeout(look, 20);
    };
    look();
  });
  return { ...p, serverPid };
}

function track(child: ChildProcess, group = false): Proc {
  children.add(child);
  if (group && child.pid) groups.add(child.pid);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => (children.delete(child), resolve(code))));
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Waits until `url` answers `status`; fails at once if the process exits first. */
export async function waitStatus(url: string, p: Proc, status = 200): Promise<void> {
  const deadline = Date.now() + STARTUP_MS;
  let exited = false;
  void p.exit.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`process exited before it was ready:\n${p.stdout()}\n${p.stderr()}`);
    try {
      if ((await fetch(url)).status === status) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${status} from ${url} within ${STARTUP_MS} ms:\n${p.stdout()}\n${p.stderr()}`);
}

export async function stop(p: Proc): Promise<number | null> {
  p.child.kill('SIGTERM');
  return p.exit;
}

/**
 * Every child still running: killed when a suite ends, whatever its tests did. Children that start
 * the server below them (npm, the never-reaping parent) lead a process group of their own, and the
 * whole group is killed.
 */
export function killChildren(): void {
  for (const c of children) c.kill('SIGKILL');
  for (const g of groups) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      // Nothing of it left.
    }
  }
  groups.clear();
}

/** What `paygate migrate` did on an empty DATA_DIR, and the directory it left. */
export interface MigratedDataDir {
  dir: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

let migrated: Promise<MigratedDataDir> | null = null;

/**
 * An embedded database as `paygate migrate` leaves an empty DATA_DIR: initialised and migrated,
 * with no master key, no operator token and no demo desk yet, so a server started on a copy of it
 * does everything a first start does except create the database (about 5 CPU-seconds). Made once
 * per `vitest run` (see oncePerRun); never started on itself: tests get copies
 * (`copyOfMigratedDataDir`).
 */
export function migratedDataDir(): Promise<MigratedDataDir> {
  migrated ??= (async () => {
    const base = await oncePerRun(inject('runDir'), 'migrated', async (base) => {
      const p = runAsNpmStart(['migrate'], bareEnv({ DATA_DIR: join(base, 'data') }));
      const code = await p.exit;
      writeFileSync(join(base, 'result.json'), JSON.stringify({ code, stdout: p.stdout(), stderr: p.stderr() }));
    });
    return { dir: join(base, 'data'), ...(JSON.parse(readFileSync(join(base, 'result.json'), 'utf8')) as Omit<MigratedDataDir, 'dir'>) };
  })();
  return migrated;
}

/** A new empty directory under the run's directory (in memory where there is /dev/shm; see globalSetup.ts). */
export function scratchDir(name: string): string {
  return mkdtempSync(join(inject('runDir'), `${name}-`));
}

/** A data directory of its own for one test, holding what `paygate migrate` made (see `migratedDataDir`). */
export async function copyOfMigratedDataDir(name: string): Promise<string> {
  const m = await migratedDataDir();
  if (m.code !== 0) throw new Error(`paygate migrate failed (exit ${m.code}):\n${m.stdout}\n${m.stderr}`);
  const dir = scratchDir(name);
  cpSync(m.dir, dir, { recursive: true });
  return dir;
}

/** The operator API of a running server, called as deployment tooling calls it: status and parsed JSON. */
export function adminApi(base: string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${base}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
}
