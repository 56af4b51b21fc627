import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';

/** The command as a person runs it: its refusals change nothing and say why. */
function run(script: string, args: string[], env: Record<string, string>) {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, script), ...args], { cwd: ROOT, env: { ...base, ...env }, encoding: 'utf8', timeout: 60_000 });
}

describe('npm run seed:volume', { timeout: 90_000 }, () => {
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
