import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes DATA_DIR for this process: a lock file created exclusively, holding our pid. A lock whose
 * process is gone (killed with -9, machine restarted) is stale and taken over, so it never blocks
 * the next start.
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
      let holder: { pid?: unknown; since?: unknown } = {};
      try {
        holder = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        // Empty or half-written: its writer died between create and write, or is writing now.
      }
      const other = typeof holder.pid === 'number' ? holder.pid : null;
      if (other !== null && other !== pid && alive(other)) throw new DataDirInUseError(dir, other, String(holder.since ?? 'unknown'));
      if (other === null && tries === 0) {
        // Give a writer that has just created the file a moment to fill it in.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
        continue;
      }
      try {
        unlinkSync(file);
      } catch {
        // Someone else removed it first; try again.
      }
      continue;
    }
    writeSync(fd, JSON.stringify({ pid, since: new Date().toISOString() }) + '\n');
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
