import { createHash } from 'node:crypto';
import pg from 'pg';
import QueryStream from 'pg-query-stream';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';

/** What a statement needs: a pool, a transaction, or the embedded database. */
export interface Queryable {
  query<T = Record<string, any>>(sql: string, params?: readonly unknown[]): Promise<{ rows: T[]; rowCount: number }>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/**
 * A long read that sees the database as it was at its first statement until it closes (a read-only
 * REPEATABLE READ transaction), on a connection of its own.
 */
export interface Snapshot {
  query<T = Record<string, any>>(sql: string, params?: readonly unknown[]): Promise<{ rows: T[]; rowCount: number }>;
  /**
   * A statement's rows through a cursor (`pg-query-stream`), fetched `batch` at a time and only as
   * the caller iterates: the server sends no row before it is wanted. One at a time per snapshot.
   */
  rows<T = Record<string, any>>(sql: string, params: readonly unknown[], batch: number): AsyncIterable<T>;
  /** Ends the read and closes its connection, a cursor still open included; the server rolls it back. */
  close(): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'pg' | 'pglite';
  /**
   * The server only: opens a `Snapshot` on a connection outside the pool (named `application_name`
   * for pg_stat_activity), so a read that lasts as long as its client takes to download it never
   * holds a connection that requests wait for. The embedded database has one connection, which a
   * long read must not hold: it has no such method, and such reads page by key instead.
   */
  openSnapshot?(applicationName: string): Promise<Snapshot>;
  /** Runs fn in one transaction: commit when it resolves, roll back when it throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls onNotify for every NOTIFY on the channel until the returned function is called. On the
   * server this holds one connection of its own; onLost is called if that connection drops, and
   * the caller may listen again later.
   */
  listen(channel: string, onNotify: () => void, onLost?: (err: Error) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** Embedded database only: a copy of the whole data directory, which `openPglite` can start from. */
  dumpDataDir?(): Promise<Blob>;
}

// Both adapters return the same JavaScript values: numeric as exact strings (money never
// passes through a binary float), bigint counters as numbers, timestamptz as Date.
const NUMERIC = 1700;
const INT8 = 20;

pg.types.setTypeParser(NUMERIC, (v: string) => v);
pg.types.setTypeParser(INT8, (v: string) => Number(v));

/**
 * Statements with parameters run as named (prepared) statements: each connection parses and plans
 * a statement once and then only binds values. Names come from the statement text; past
 * `PREPARED_MAX` distinct texts the rest run unnamed, so generated SQL cannot grow every
 * connection's memory without bound.
 */
const PREPARED_MAX = 500;
const preparedNames = new Map<string, string>();

function statement(sql: string, params: readonly unknown[] | undefined): string | pg.QueryConfig {
  if (!params || params.length === 0) return sql;
  let name = preparedNames.get(sql);
  if (name === undefined) {
    if (preparedNames.size >= PREPARED_MAX) return { text: sql, values: params as unknown[] };
    name = `pg_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    preparedNames.set(sql, name);
  }
  return { name, text: sql, values: params as unknown[] };
}

/**
 * `applicationName` names the pool's connections in pg_stat_activity; `connectTimeoutMs` bounds
 * how long a statement, or a snapshot, waits for a new connection (none by default: the primary is awaited).
 */
export function openPg(url: string, opts: { max?: number; applicationName?: string; connectTimeoutMs?: number; onPoolWait?: (seconds: number) => void } = {}): Db {
  // Without JIT compilation unless the URL's own `options` say otherwise: every statement of the
  // service is an index read or a bounded batch, and a plan the planner misjudges as costly would
  // otherwise spend seconds compiling (5.9 s of a 7.8 s report at 10,000,000 orders).
  const jit = /[?&]options=/.test(url) ? {} : { options: '-c jit=off' };
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10, application_name: opts.applicationName, connectionTimeoutMillis: opts.connectTimeoutMs, ...jit });
  // An idle client that errors (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  if (opts.onPoolWait) timePoolWaits(pool, opts.onPoolWait);
  const db: Db = {
    kind: 'pg',
    async query(sql, params) {
      const r = await pool.query(statement(sql, params) as pg.QueryConfig);
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    },
    async exec(sql) {
      await pool.query(sql);
    },
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // A transaction is one connection, which runs one statement at a time: statements sent at
        // once (reads under `Promise.all`) go to it one after another, in the order given, instead of
        // being handed to the driver while another runs.
        const inTurn = oneAtATime();
        const q: Queryable = {
          query: (sql, params) =>
            inTurn(async () => {
              const r = await client.query(statement(sql, params) as pg.QueryConfig);
              return { rows: r.rows, rowCount: r.rowCount ?? 0 };
            }),
          exec: (sql) =>
            inTurn(async () => {
              await client.query(sql);
            }),
        };
        const out = await fn(q);
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async listen(channel, onNotify, onLost) {
      // A client outside the pool: a listening connection must stay the same session.
      const client = new pg.Client({ connectionString: url });
      let closed = false;
      client.on('notification', (m) => {
        if (m.channel === channel) onNotify();
      });
      client.on('error', (err) => {
        if (closed) return;
        closed = true;
        client.end().catch(() => {});
        onLost?.(err);
      });
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      return async () => {
        if (closed) return;
        closed = true;
        await client.end().catch(() => {});
      };
    },
    async openSnapshot(applicationName) {
      const client = new pg.Client({ connectionString: url, application_name: applicationName, connectionTimeoutMillis: opts.connectTimeoutMs, ...jit });
      // A dropped connection fails the statement or cursor that needed it; nothing else listens.
      client.on('error', () => {});
      await client.connect();
      let cursor: QueryStream | null = null;
      let closed = false;
      const close = async () => {
        if (closed) return;
        closed = true;
        cursor?.destroy();
        // Ending the connection is the rollback: nothing waits for a cursor's fetch in flight.
        await client.end().catch(() => {});
      };
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      } catch (err) {
        await close();
        throw err;
      }
      return {
        async query(sql, params) {
          const r = await client.query(sql, params as unknown[] | undefined);
          return { rows: r.rows, rowCount: r.rowCount ?? 0 };
        },
        rows<T>(sql: string, params: readonly unknown[], batch: number): AsyncIterable<T> {
          cursor = client.query(new QueryStream(sql, params as unknown[], { batchSize: batch, highWaterMark: batch }));
          return cursor as AsyncIterable<T>;
        },
        close,
      };
    },
    async close() {
      await pool.end();
    },
  };
  return db;
}

/** Runs the tasks given to it one after another, each once the one before has settled. */
function oneAtATime(): <T>(run: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (run) => {
    const next = last.then(run, run);
    last = next.catch(() => {});
    return next;
  };
}

/**
 * Reports how long each connection took to come out of the pool (opening a new one included):
 * `pool.query` and `tx` both take theirs through `connect`, with a callback or as a promise.
 */
function timePoolWaits(pool: pg.Pool, report: (seconds: number) => void): void {
  const connect = pool.connect.bind(pool) as (cb?: (err: Error | undefined, client?: pg.PoolClient, done?: (release?: unknown) => void) => void) => unknown;
  (pool as { connect: unknown }).connect = (cb?: (err: Error | undefined, client?: pg.PoolClient, done?: (release?: unknown) => void) => void) => {
    const started = performance.now();
    const took = () => report((performance.now() - started) / 1000);
    if (cb) {
      return connect((err, client, done) => {
        if (!err) took();
        cb(err, client, done);
      });
    }
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      took();
      return client;
    });
  };
}

/**
 * A value as an SQL literal of unknown type (PostgreSQL gives it the type its place in the
 * statement asks for, as it does a bound parameter's text), or null when it has no safe form here.
 * Standard-conforming strings (on by default, and set so at open) make a doubled quote the only
 * escape; a NUL cannot be part of a statement's text at all.
 */
export function sqlLiteral(v: unknown): string | null {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return v.includes('\0') ? null : `'${v.replaceAll("'", "''")}'`;
  if (typeof v === 'number') return Number.isFinite(v) ? `'${v}'` : null;
  if (typeof v === 'bigint') return `'${v}'`;
  if (typeof v === 'boolean') return v ? "'true'" : "'false'";
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : `'${v.toISOString()}'`;
  return null;
}

/** Embedded PostgreSQL. It has one connection, so transactions run one after another. */
export async function openPglite(dataDir: string | undefined, opts: { loadDataDir?: Blob } = {}): Promise<Db> {
  const lite = await PGlite.create({
    dataDir,
    loadDataDir: opts.loadDataDir,
    parsers: {
      [pgliteTypes.NUMERIC]: (v: string) => v,
      [pgliteTypes.INT8]: (v: string) => Number(v),
    },
  });
  // The literal form of `sqlLiteral` relies on it (it is PostgreSQL's default).
  await lite.exec('SET standard_conforming_strings = on');
  const wrap = (r: { rows: any[]; affectedRows?: number }) => ({
    rows: r.rows,
    rowCount: r.affectedRows || r.rows.length,
  });
  // Statement text → its name, once its PREPARE has run (a promise, so concurrent first uses share it).
  const prepared = new Map<string, Promise<string>>();
  let named = 0;
  type Session = Pick<PGlite, 'query' | 'exec'>;
  /**
   * PGlite plans every statement anew and has no named statements in its API (planning them once
   * doubled the embedded benchmark's read ratios, see bench/README.md). So a statement with parameters
   * is `PREPARE`d once, by name, and run as `EXECUTE name(…)` with its values written as SQL
   * literals (`sqlLiteral`). A value that has no safe literal form, or a statement past
   * `PREPARED_MAX`, runs with bound parameters as before.
   */
  async function run(session: Session, sql: string, params: readonly unknown[] | undefined) {
    if (!params || params.length === 0) return wrap(await session.query(sql));
    const literals = params.map(sqlLiteral);
    let name = prepared.get(sql);
    if (literals.includes(null) || (name === undefined && prepared.size >= PREPARED_MAX)) return wrap(await session.query(sql, params as unknown[]));
    if (name === undefined) {
      const fresh = `pgl_${++named}`;
      // A prepared statement outlives a rolled-back transaction; a PREPARE that fails is forgotten.
      name = session.exec(`PREPARE ${fresh} AS ${sql}`).then(() => fresh);
      prepared.set(sql, name);
      name.catch(() => prepared.delete(sql));
    }
    const [result] = await session.exec(`EXECUTE ${await name}(${literals.join(', ')})`);
    return wrap(result!);
  }
  return {
    kind: 'pglite',
    async query(sql, params) {
      return run(lite, sql, params);
    },
    async exec(sql) {
      await lite.exec(sql);
    },
    async tx(fn) {
      return lite.transaction(async (t) => {
        const q: Queryable = {
          async query(sql, params) {
            return run(t, sql, params);
          },
          async exec(sql) {
            await t.exec(sql);
          },
        };
        return fn(q);
      });
    },
    async listen(channel, onNotify) {
      const stop = await lite.listen(channel, () => onNotify());
      return async () => {
        if (!lite.closed) await stop();
      };
    },
    async close() {
      await lite.close();
    },
    async dumpDataDir() {
      return lite.dumpDataDir('none');
    },
  };
}
