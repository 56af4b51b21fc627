import { closeSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The embedded database is one process's: a second one would write to files the first holds in memory. */
export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string, readonly pid: number, readonly since: string) {
    super(`DATA_DIR ${dataDir} is in use by another Paygate process (pid ${pid}, since ${since}); stop it first, or give this one another DATA_DIR or a DATABASE_URL`);
  }
}

export interface DataDirLock {
  release(): void;
}

const LOCK_FILE = 'paygate.lock';

/** What the lock file holds: the pid, and what tells the process that wrote it from a later one given the same pid. */
export interface LockHolder {
  pid: number;
  since?: string;
  /** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks after boot (Linux). */
  startTicks?: string;
  /** /proc/sys/kernel/random/boot_id when the lock was taken (Linux). */
  bootId?: string;
}

/** A process as /proc/<pid>/stat shows it. */
export interface ProcStat {
  /** R, S, D, T, t, Z (exited, not yet reaped by its parent), X (being removed), … */
  state: string;
  startTicks: string;
}

/**
 * Parses /proc/<pid>/stat. Field 2, the command name, is in parentheses and may itself hold spaces
 * and parentheses, so the fields are counted from the last ')'.
 */
export function parseProcStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text.slice(close + 1).trim().split(/\s+/);
  // fields[0] is field 3 (state); field 22 (starttime) is 19 further on.
  const state = fields[0];
  const startTicks = fields[19];
  if (!state || !/^[A-Za-z]$/.test(state) || !startTicks || !/^\d+$/.test(startTicks)) return null;
  return { state, startTicks };
}

/** /proc/<pid>/stat parsed, or null where there is no procfs (macOS) or it hides the process (hidepid). */
export function procStat(pid: number): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process that wrote a lock still runs. `kill(pid, 0)` alone is not enough: a process
 * killed with -9 stays a zombie until its parent reaps it (its files, sockets and database are
 * already closed, yet kill(pid, 0) still succeeds), and after a restart of the machine or the
 * container its pid may belong to another process. Where /proc shows the pid, a zombie or dying
 * process, another boot or another start time means the holder is gone.
 */
export function holderAlive(holder: LockHolder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // ESRCH: no such process. EPERM: it exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(holder.pid);
  // No /proc to ask: trust kill(pid, 0).
  if (!stat) return true;
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
  const boot = bootId();
  if (holder.bootId && boot && holder.bootId !== boot) return false;
  if (holder.startTicks && holder.startTicks !== stat.startTicks) return false;
  return true;
}

/** The lock file's holder and the file's inode, or null when the file is gone. */
function readLock(file: string): { holder: LockHolder | null; ino: number } | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const ino = fstatSync(fd).ino;
    let holder: LockHolder | null = null;
    try {
      const parsed = JSON.parse(readFileSync(fd, 'utf8')) as Partial<LockHolder>;
      if (typeof parsed.pid === 'number') holder = parsed as LockHolder;
    } catch {
      // Empty or half-written: its writer died between create and write, or is writing now.
    }
    return { holder, ino };
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes a stale lock file, but only the one judged stale: it is first renamed aside (atomic), and
 * if what was moved is another file (a process that took the stale lock over between our read and
 * the rename), that one is put back.
 */
function removeStale(file: string, ino: number, pid: number): void {
  const aside = `${file}.stale-${pid}`;
  try {
    renameSync(file, aside);
  } catch {
    // Someone else removed it first.
    return;
  }
  try {
    if (statSync(aside).ino !== ino) {
      try {
        linkSync(aside, file);
      } catch {
        // A third process has created the lock meanwhile; it holds DATA_DIR now.
      }
    }
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Takes DATA_DIR for this process: a lock file created exclusively, holding our pid, start time and
 * boot. A lock whose process is gone (killed with -9, even while still a zombie; machine or
 * container restarted, even if the pid now belongs to another process) is stale and taken over, so
 * it never blocks the next start. Node has no flock() without a native addon, hence the checks.
 */
export function lockDataDir(dataDir: string, pid = process.pid): DataDirLock {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK_FILE);
  for (let tries = 0; tries < 5; tries++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const seen = readLock(file);
      if (!seen) continue;
      const other = seen.holder;
      if (other && other.pid !== pid && holderAlive(other)) throw new DataDirInUseError(dir, other.pid, String(other.since ?? 'unknown'));
      if (!other && tries === 0) {
        // Give a writer that has just created the file a moment to fill it in.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
        continue;
      }
      removeStale(file, seen.ino, pid);
      continue;
    }
    const holder: LockHolder = { pid, since: new Date().toISOString(), startTicks: procStat(pid)?.startTicks, bootId: bootId() };
    writeSync(fd, JSON.stringify(holder) + '\n');
    closeSync(fd);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      try {
        const now = JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown };
        if (now.pid === pid) unlinkSync(file);
      } catch {
        // Already gone.
      }
    };
    process.once('exit', release);
    return { release };
  }
  throw new Error(`could not take the lock ${file}`);
}
