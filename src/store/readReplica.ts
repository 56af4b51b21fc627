/**
 * The database long reads go to (`ctx.readDb`): a PostgreSQL streaming replica of the primary
 * (DATABASE_READ_URL) while it keeps up, the primary otherwise. Merchant statements, exports, the
 * reconciliation day report and the dashboards read here; every write goes through `ctx.db`, and
 * a transaction opened here is read-only on either side, so nothing written here can land anywhere.
 *
 * How far behind the replica is, is measured on the replica itself at most every
 * `REPLICA_CHECK_MS` (the answer is kept in between) and decides where the next reads go: beyond
 * `maxLagSeconds`, unreachable, or no standby at all, they go to the primary until a later check
 * finds it well again. Each switch is logged once and counted. A read that finds the replica gone
 * (a refused or dropped connection, a server shutting down, a statement cancelled by a conflict
 * with recovery) is read again from the primary, so a replica going down never fails a request.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Metrics } from '../metrics.js';
import type { Db, Queryable, Snapshot } from './db.js';

/** The replica's lag is measured at most this often; reads in between go where the last measure said. */
export const REPLICA_CHECK_MS = 5_000;

/** A connection to the replica that cannot be made in this long counts as the replica being unreachable. */
export const REPLICA_CONNECT_TIMEOUT_MS = 2_000;

/**
 * Measured on the replica. `replayed_all`: everything received has been replayed, and a WAL
 * receiver is running (without one nothing arrives, and "all replayed" says nothing about the
 * primary), so an idle primary is no lag however old its last transaction. Otherwise the lag is
 * the age of the last transaction replayed, by the replica's clock. `pg_stat_wal_receiver` shows
 * its row (the `pid` at least) to any role.
 */
const LAG_SQL = `SELECT pg_is_in_recovery() AS standby,
        COALESCE(pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn(), false)
          AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver) AS replayed_all,
        EXTRACT(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 AS behind_seconds`;

interface LagRow {
  standby: boolean;
  replayed_all: boolean;
  behind_seconds: number | null;
}

/** Where reads go now, and why. */
export interface ReadRoute {
  target: 'replica' | 'primary';
  /** Why reads go to the primary; null while they go to the replica. */
  reason: string | null;
  /** The last measured lag in seconds; null when it could not be measured. */
  lagSeconds: number | null;
}

export interface ReadReplicaDb extends Db {
  /** Where the next read goes, measuring the lag first if the last measure is older than `REPLICA_CHECK_MS`. */
  route(): Promise<ReadRoute>;
}

/**
 * The replica is not the place for this read (the replica or its connection is going away, or
 * recovery cancelled the statement): the same read is tried on the primary. Other errors (a bad
 * statement, bad data) would fail there too and are thrown as they are.
 */
export function replicaFault(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  // No SQLSTATE at all: the socket, not the server (refused, reset, timed out, terminated).
  if (!/^[0-9A-Z]{5}$/.test(code)) return true;
  // Connection exceptions, operator intervention (shutdown, database dropped), insufficient
  // resources (too many connections), a database not (yet) on the replica, and the serialization
  // failure that a conflict with recovery cancels a statement with.
  return /^(08|57P|53)/.test(code) || code === '3D000' || code === '40001';
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 200);

/**
 * `replica` is the pool of DATABASE_READ_URL (opened with a connect timeout); `primary` is
 * `ctx.db`, which the caller keeps and closes. `close` closes the replica's pool only.
 */
export function openReadReplica(primary: Db, replica: Db, opts: { maxLagSeconds: number; clock: Clock; log: Logger; metrics: Metrics }): ReadReplicaDb {
  const { clock, log, metrics } = opts;
  let route: ReadRoute = { target: 'primary', reason: 'not measured yet', lagSeconds: null };
  let measuredAt = Number.NEGATIVE_INFINITY;
  let measuring: Promise<void> | null = null;
  // Nothing logged until the first measure: the first one says where reads start.
  let announced = false;

  function settle(next: ReadRoute): void {
    measuredAt = clock.now();
    const switched = next.target !== route.target || !announced;
    route = next;
    metrics.readReplicaLag.set(next.lagSeconds ?? -1);
    if (!switched) return;
    announced = true;
    metrics.readReplicaInUse.set(next.target === 'replica' ? 1 : 0);
    metrics.readReplicaSwitches.inc({ to: next.target });
    if (next.target === 'replica') log.info({ lagSeconds: next.lagSeconds }, 'reports read from the read replica');
    else log.warn({ reason: next.reason, lagSeconds: next.lagSeconds }, 'reports read from the primary: the read replica is not usable');
  }

  async function measure(): Promise<void> {
    let row: LagRow | undefined;
    try {
      row = (await replica.query<LagRow>(LAG_SQL)).rows[0];
    } catch (err) {
      return settle({ target: 'primary', reason: `unreachable: ${describe(err)}`, lagSeconds: null });
    }
    if (!row?.standby) return settle({ target: 'primary', reason: 'not a standby (not in recovery): it may have been promoted', lagSeconds: null });
    if (row.replayed_all) return settle({ target: 'replica', reason: null, lagSeconds: 0 });
    if (row.behind_seconds === null) return settle({ target: 'primary', reason: 'lag unknown: nothing replayed since it started', lagSeconds: null });
    const lag = Math.max(0, row.behind_seconds);
    if (lag > opts.maxLagSeconds) return settle({ target: 'primary', reason: `lag ${lag.toFixed(1)} s is beyond ${opts.maxLagSeconds} s`, lagSeconds: lag });
    settle({ target: 'replica', reason: null, lagSeconds: lag });
  }

  async function current(): Promise<ReadRoute> {
    if (clock.now() - measuredAt >= REPLICA_CHECK_MS) {
      // Reads arriving together share one measure.
      measuring ??= measure().finally(() => {
        measuring = null;
      });
      await measuring;
    }
    return route;
  }

  /**
   * A read on the replica failed for the replica's sake: the primary until the next measure. A
   * statement cancelled by a conflict with recovery says nothing about the next one and switches nothing.
   */
  function fault(err: unknown): void {
    if ((err as { code?: unknown })?.code === '40001') return;
    settle({ target: 'primary', reason: `unreachable: ${describe(err)}`, lagSeconds: null });
  }

  async function onEither<T>(read: (db: Db) => Promise<T>): Promise<T> {
    if ((await current()).target === 'primary') return read(primary);
    try {
      return await read(replica);
    } catch (err) {
      if (!replicaFault(err)) throw err;
      fault(err);
      return read(primary);
    }
  }

  /** A transaction that can only read, on whichever side `db` is (a standby's are read-only anyway). */
  const readOnlyTx = <T>(db: Db, fn: (q: Queryable) => Promise<T>) =>
    db.tx(async (q) => {
      await q.query('SET TRANSACTION READ ONLY');
      return fn(q);
    });

  return {
    kind: 'pg',
    route: current,
    query: (sql, params) => onEither((db) => db.query(sql, params)),
    exec: (sql) => onEither((db) => db.exec(sql)),
    tx: (fn) => onEither((db) => readOnlyTx(db, fn)),
    async openSnapshot(applicationName: string): Promise<Snapshot> {
      // A snapshot that fails once it is open is not moved: its rows so far came from one side.
      return onEither((db) => db.openSnapshot!(applicationName));
    },
    // Notifications are raised on the primary.
    listen: (channel, onNotify, onLost) => primary.listen(channel, onNotify, onLost),
    close: () => replica.close(),
  };
}
