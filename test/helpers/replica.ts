import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { eventually } from './eventually.js';
import { freePort } from './ports.js';

const run = promisify(execFile);

/**
 * A PostgreSQL streaming replica of the test server (DATABASE_URL), made for one test file and
 * removed after it: `pg_basebackup -R` into a temporary directory, then a second `postgres` on a
 * free port of the loopback address, run as the `postgres` OS user when the tests run as root
 * (PostgreSQL refuses to run as root). The primary must accept replication connections from
 * 127.0.0.1 (`wal_level` replica or logical, `max_wal_senders` above 0, a `replication` line in
 * pg_hba.conf); CI's script sees to the last.
 */
export interface Replica {
  port: number;
  /** The same database as `primaryUrl` names, on the replica. */
  urlOf(primaryUrl: string): string;
  /** A statement on the replica's `postgres` database, as the superuser. */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Resolves once the replica has replayed everything the primary had written when it was called. */
  caughtUp(): Promise<void>;
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the replica's server at once, as a crash would. */
  stop(): Promise<void>;
  /** Stops it if it runs and removes its directory. */
  remove(): Promise<void>;
}

/** Where the server's binaries are: PG_BINDIR, else Debian's directory of the primary's major version. */
async function binDir(primaryUrl: string): Promise<string> {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR;
  const c = new pg.Client({ connectionString: primaryUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    return `/usr/lib/postgresql/${Math.floor(Number(rows[0]!.v) / 10000)}/bin`;
  } finally {
    await c.end();
  }
}

/** Null when a replica can be made here, else why not (the binaries are missing). */
export async function replicaUnavailable(primaryUrl: string | null): Promise<string | null> {
  if (!primaryUrl) return 'needs DATABASE_URL (a PostgreSQL server to replicate)';
  const dir = await binDir(primaryUrl);
  for (const bin of ['pg_basebackup', 'pg_ctl', 'postgres']) {
    if (!existsSync(join(dir, bin))) return `${join(dir, bin)} not found (install the PostgreSQL server package of the primary's version, or set PG_BINDIR)`;
  }
  return null;
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a server binary as the `postgres` OS user when we are root, else as ourselves. */
async function runPg(bin: string, args: string[]): Promise<string> {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  try {
    const { stdout } = await run(cmd, argv, { timeout: 180_000 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${bin.split('/').pop()} failed: ${(e.stderr || e.message).trim()}`);
  }
}

async function uidOf(user: string): Promise<{ uid: number; gid: number }> {
  const [{ stdout: u }, { stdout: g }] = await Promise.all([run('id', ['-u', user]), run('id', ['-g', user])]);
  return { uid: Number(u.trim()), gid: Number(g.trim()) };
}

export async function startReplica(primaryUrl: string): Promise<Replica> {
  const bin = await binDir(primaryUrl);
  const primary = new URL(primaryUrl);
  const admin = new pg.Client({ connectionString: primaryUrl });
  await admin.connect();
  // A hot standby needs these at least as high as its primary's.
  const settings: Record<string, string> = {};
  try {
    for (const name of ['wal_level', 'max_wal_senders', 'max_connections', 'max_worker_processes', 'max_prepared_transactions', 'max_locks_per_transaction']) {
      settings[name] = (await admin.query<{ v: string }>(`SELECT current_setting('${name}') AS v`)).rows[0]!.v;
    }
  } finally {
    await admin.end();
  }
  if (settings.wal_level === 'minimal' || settings.max_wal_senders === '0') {
    throw new Error(`the primary cannot stream to a replica: wal_level=${settings.wal_level}, max_wal_senders=${settings.max_wal_senders} (set wal_level=replica and max_wal_senders>0, which needs a restart)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'paygate-replica-'));
  if (asRoot) {
    const { uid, gid } = await uidOf('postgres');
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  let running = false;
  const pgCtl = (...args: string[]) => runPg(join(bin, 'pg_ctl'), ['-D', data, ...args]);
  const remove = async () => {
    if (running) await pgCtl('stop', '-m', 'immediate', '-w').catch(() => {});
    running = false;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // A fast checkpoint: the default spreads it over minutes. -R writes standby.signal and primary_conninfo.
    await runPg(join(bin, 'pg_basebackup'), ['-d', primaryUrl, '-D', data, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']).catch((err: Error) => {
      if (/pg_hba\.conf/.test(err.message)) {
        throw new Error(`${err.message}\nThe primary refuses replication connections from ${primary.hostname}: add "host replication all 127.0.0.1/32 trust" to its pg_hba.conf and reload it (SELECT pg_reload_conf()).`);
      }
      throw err;
    });
    // The backup holds the primary's data directory only; Debian keeps the configuration elsewhere.
    const conf = [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'hot_standby = on',
      'hot_standby_feedback = on',
      'shared_buffers = 16MB',
      'fsync = off',
      ...['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction'].map((n) => `${n} = ${settings[n]}`),
      "log_min_messages = 'warning'",
    ];
    writeFileSync(join(data, 'postgresql.conf'), conf.join('\n') + '\n');
    writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    if (asRoot) {
      const { uid, gid } = await uidOf('postgres');
      for (const f of ['postgresql.conf', 'pg_hba.conf']) chownSync(join(data, f), uid, gid);
    }
    await pgCtl('start', '-w', '-t', '120', '-l', join(dir, 'server.log'));
    running = true;
  } catch (err) {
    await remove();
    throw err;
  }

  const urlOf = (primaryDbUrl: string) => {
    const u = new URL(primaryDbUrl);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString();
  };
  const sql = async <T,>(text: string, params: unknown[] = []): Promise<T[]> => {
    const u = new URL(urlOf(primaryUrl));
    u.pathname = '/postgres';
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    try {
      return (await c.query(text, params)).rows as T[];
    } finally {
      await c.end();
    }
  };
  const replica: Replica = {
    port,
    urlOf,
    sql,
    async caughtUp() {
      const c = new pg.Client({ connectionString: primaryUrl });
      await c.connect();
      const lsn = (await c.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
      await c.end();
      await eventually('the replica replays what the primary wrote', async () => (await sql<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn]))[0]!.ok, { withinMs: 60_000, everyMs: 50 });
    },
    async pauseReplay() {
      await sql('SELECT pg_wal_replay_pause()');
      await eventually('replay paused', async () => (await sql<{ s: string }>('SELECT pg_get_wal_replay_pause_state() AS s'))[0]!.s === 'paused', { withinMs: 30_000, everyMs: 50 });
    },
    async resumeReplay() {
      await sql('SELECT pg_wal_replay_resume()');
    },
    async stop() {
      await pgCtl('stop', '-m', 'immediate', '-w');
      running = false;
    },
    remove,
  };
  // Streaming, not just started: the WAL receiver is connected.
  await eventually('the replica streams from the primary', async () => (await sql('SELECT 1 FROM pg_stat_wal_receiver WHERE status = $1', ['streaming'])).length === 1, { withinMs: 60_000, everyMs: 100 });
  return replica;
}
