import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyOfMigratedDataDir, ROOT } from '../helpers/process.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/runtime.js';

/** The command as a person runs it: its refusals change nothing and say why. */
function run(script: string, args: string[], env: Record<string, string>, timeoutMs = 60_000) {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, script), ...args], { cwd: ROOT, env: { ...base, ...env }, encoding: 'utf8', timeout: timeoutMs });
}

/** What a refusal must leave as it was: the rows of the big tables, a digest of the orders, the applied migrations. */
async function stateOf(dataDir: string) {
  const db = await openDatabase(parseConfig({ DATA_DIR: dataDir }));
  try {
    const { rows } = await db.query(
      `SELECT (SELECT count(*)::int FROM orders) AS orders, (SELECT count(*)::int FROM ledger_entries) AS ledger,
              (SELECT count(*)::int FROM merchants) AS merchants, (SELECT count(*)::int FROM outbox_events) AS events,
              (SELECT count(*)::int FROM credits) AS credits,
              (SELECT md5(string_agg(id || status || updated_at::text, ',' ORDER BY seq)) FROM orders) AS digest,
              (SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_migrations) AS migrations`,
    );
    return rows[0];
  } finally {
    await db.close();
  }
}

describe('npm run seed:volume', { timeout: 300_000 }, () => {
  it('fills an empty database, then refuses to write into it again, saying why, and changes nothing; npm run maintain then archives its old callbacks', async () => {
    // A migrated embedded database with nothing in it, as `paygate migrate` leaves a new DATA_DIR.
    const dataDir = await copyOfMigratedDataDir('volume');
    try {
      const first = run('tools/volume/main.ts', ['--orders', '100', '--merchants', '2', '--months', '1', '--credits', '40', '--requisites', '10'], { DATA_DIR: dataDir }, 150_000);
      expect(first.status, first.stderr).toBe(0);
      const printed = JSON.parse(first.stdout.trim().split('\n').at(-1)!);
      expect(printed.orders).toBe(100);
      expect(printed.pool).toMatchObject({ id: expect.stringMatching(/^prv_/), key: expect.stringMatching(/^pvk_/), requisites: 10, credits: 40 });
      expect(first.stderr).toContain('a pool of 10 requisites with 40 credits');
      const before = await stateOf(dataDir);
      expect(before).toMatchObject({ orders: 100, credits: 40 });
      const again = run('tools/volume/main.ts', ['--orders', '100'], { DATA_DIR: dataDir }, 120_000);
      expect(again.status).toBe(1);
      expect(again.stderr).toMatch(/refusing to write into a database that is not empty \(table \w+ holds rows\); nothing was changed/);
      expect(again.stdout).toBe('');
      expect(await stateOf(dataDir)).toEqual(before);

      // npm run maintain on the result: delivered callbacks older than a day leave the hot table for the archive, to the end.
      const maintained = run('tools/maintain.ts', [], { DATA_DIR: dataDir, RETENTION_DAYS: '1' }, 120_000);
      expect(maintained.status, maintained.stderr).toBe(0);
      const summary = JSON.parse(maintained.stdout.trim().split('\n').at(-1)!);
      expect(summary).toMatchObject({ archived: true, retentionDays: 1 });
      expect(summary.retired).toBeGreaterThan(0);
      const after = await stateOf(dataDir);
      expect(after).toMatchObject({ orders: before!.orders, ledger: before!.ledger, digest: before!.digest });
      expect(after!.events).toBe(before!.events - summary.retired);
      const again2 = run('tools/maintain.ts', [], { DATA_DIR: dataDir, RETENTION_DAYS: '1' }, 120_000);
      expect(JSON.parse(again2.stdout.trim().split('\n').at(-1)!)).toMatchObject({ retired: 0 });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('seed:volume -- --help prints what each option does and exits 0, whatever else is given, before opening any database', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paygate-volume-help-'));
    try {
      for (const args of [['--help'], ['--orders', '100', '--credits', '5', '--bogus', '-h']]) {
        const r = run('tools/volume/main.ts', args, { DATA_DIR: join(dir, 'data') });
        expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        expect(r.stdout).toContain('usage: npm run seed:volume -- --orders N');
        for (const option of ['--pool', '--credits C', '--requisites R', '--help']) expect(r.stdout).toContain(option);
        expect(r.stderr).toBe('');
      }
      expect(existsSync(join(dir, 'data'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('seed:volume refuses bad arguments with the usage, before opening any database', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paygate-volume-cmd-'));
    try {
      const r = run('tools/volume/main.ts', ['--orders', 'many'], { DATA_DIR: join(dir, 'data') });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('--orders must be a whole number');
      expect(r.stderr).toContain('usage: npm run seed:volume -- --orders N');
      expect(r.stdout).toBe('');
      expect(existsSync(join(dir, 'data'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
