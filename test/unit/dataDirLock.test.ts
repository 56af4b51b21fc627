import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, holderAlive, lockDataDir, parseProcStat, procStat } from '../../src/store/dataDirLock.js';

describe('parseProcStat', () => {
  it('reads the state and the start time, counting fields from the last parenthesis of the command name', () => {
    const tail = '8999 8999 5527 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 48810 3133440 382 18446744073709551615';
    expect(parseProcStat(`4242 (node) S ${tail}`)).toEqual({ state: 'S', startTicks: '48810' });
    // A command name may hold spaces and parentheses of its own.
    expect(parseProcStat(`4242 (my (odd) name) Z ${tail}`)).toEqual({ state: 'Z', startTicks: '48810' });
    expect(parseProcStat(`4242 (x) X ${tail}\n`)).toEqual({ state: 'X', startTicks: '48810' });
  });

  it('answers null to anything else', () => {
    expect(parseProcStat('')).toBeNull();
    expect(parseProcStat('4242 node S 1 2 3')).toBeNull();
    expect(parseProcStat('4242 (node) S 1 2 3')).toBeNull();
  });
});

// A real zombie: a child of `sh` (a `cat` reading the test's pipe) that exits once `sh` has turned
// into `sleep` by exec, which never waits for it. Linux only: elsewhere there is no /proc to read,
// and kill(pid, 0) decides alone.
describe.skipIf(!existsSync('/proc/self/stat'))('holderAlive and the lock, with real processes', () => {
  let parent: ChildProcess;
  let zombie: number;
  let dir: string;

  beforeAll(async () => {
    parent = spawn('/bin/sh', ['-c', 'exec 3<&0; cat <&3 >/dev/null & echo $!; exec sleep 600'], { stdio: ['pipe', 'pipe', 'ignore'] });
    zombie = await new Promise<number>((resolve) => parent.stdout!.once('data', (c: Buffer) => resolve(Number(c.toString().trim()))));
    const until = async (what: string, check: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await until('sh has become sleep', () => readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim() === 'sleep');
    parent.stdin!.end();
    await until(`pid ${zombie} is a zombie`, () => procStat(zombie)?.state === 'Z');
  });
  afterAll(() => {
    parent.kill('SIGKILL');
  });
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const lockFile = (holder: object) => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-lock-'));
    writeFileSync(join(dir, 'paygate.lock'), JSON.stringify(holder) + '\n');
    return dir;
  };

  it('a zombie is gone, though kill(pid, 0) still finds it', () => {
    expect(() => process.kill(zombie, 0)).not.toThrow();
    expect(holderAlive({ pid: zombie })).toBe(false);
    expect(holderAlive({ pid: zombie, startTicks: procStat(zombie)!.startTicks })).toBe(false);
  });

  it('a running process with its own start time is alive; one with another start time (a reused pid) or from another boot is gone', () => {
    const running = parent.pid!;
    const start = procStat(running)!.startTicks;
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    expect(holderAlive({ pid: running })).toBe(true);
    expect(holderAlive({ pid: running, startTicks: start, bootId: boot })).toBe(true);
    expect(holderAlive({ pid: running, startTicks: String(Number(start) + 1), bootId: boot })).toBe(false);
    expect(holderAlive({ pid: running, startTicks: start, bootId: 'another-boot' })).toBe(false);
  });

  it('a pid that no longer exists is gone', async () => {
    const short = spawn('true');
    await new Promise((r) => short.once('exit', r));
    expect(holderAlive({ pid: short.pid! })).toBe(false);
  });

  it('a lock held by a zombie is taken over; one held by a running process is refused', () => {
    const taken = lockDataDir(lockFile({ pid: zombie, since: '2020-01-01T00:00:00.000Z' }));
    const mine = JSON.parse(readFileSync(join(dir, 'paygate.lock'), 'utf8'));
    expect(mine).toMatchObject({ pid: process.pid, startTicks: procStat(process.pid)!.startTicks });
    taken.release();
    expect(existsSync(join(dir, 'paygate.lock'))).toBe(false);

    const running = parent.pid!;
    expect(() => lockDataDir(lockFile({ pid: running, since: 'then', startTicks: procStat(running)!.startTicks }))).toThrow(DataDirInUseError);
    expect(JSON.parse(readFileSync(join(dir, 'paygate.lock'), 'utf8'))).toMatchObject({ pid: running });
  });

  it('a lock naming a running process that started at another time (its pid reused) is taken over', () => {
    const running = parent.pid!;
    const taken = lockDataDir(lockFile({ pid: running, since: 'then', startTicks: '1' }));
    expect(JSON.parse(readFileSync(join(dir, 'paygate.lock'), 'utf8'))).toMatchObject({ pid: process.pid });
    taken.release();
  });
});
