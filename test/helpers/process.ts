import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * The real server as a child process, spoken to over real sockets: one plain node process, as
 * `npm start` runs it, so its pid is the server's and signals reach it.
 */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const STARTUP_MS = 60_000;

/** The environment of a machine where nothing of Paygate is configured. */
export function bareEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (/^(PORT|HOST|DATA_DIR|DATABASE_URL|REDIS_URL|ADMIN_TOKEN|MASTER_KEY|PUBLIC_BASE_URL|CALLBACK_.*|CABINET_.*|OFFICE_.*|SEED_DEMO|LOG_LEVEL|FX_.*|METRICS_.*|SHUTDOWN_.*|NODE_OPTIONS|VITEST.*)$/.test(k)) delete env[k];
  }
  return { ...env, ...extra };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

const children = new Set<ChildProcess>();

/**
 * The server exactly as `npm start` runs it: `node dist/main.js` with the arguments and no loader,
 * from the plain JavaScript that `npm start`'s prestart (here the suite's global setup) made.
 */
export function runAsNpmStart(args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(process.execPath, ['dist/main.js', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
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
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no ${status} from ${url} within ${STARTUP_MS} ms:\n${p.stdout()}\n${p.stderr()}`);
}

export async function stop(p: Proc): Promise<number | null> {
  p.child.kill('SIGTERM');
  return p.exit;
}

/** Every child still running: killed when a suite ends, whatever its tests did. */
export function killChildren(): void {
  for (const c of children) c.kill('SIGKILL');
}
