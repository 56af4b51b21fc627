import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killChildren, ROOT, STARTUP_MS } from '../helpers/process.js';
import { IN_CI, PYTHON, pythonWithPytest, startLiveGateway, type LiveGateway } from './liveGateway.js';

// The Python SDK's own tests (packages/sdk-python/tests): the offline ones against their fakes, and
// the live scenarios against a real Paygate process started here, on PostgreSQL when DATABASE_URL is set.

const SDK = join(ROOT, 'packages/sdk-python');
const python = pythonWithPytest();

afterAll(killChildren);

function pytest(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ['-m', 'pytest', '-p', 'no:cacheprovider', '-p', 'no:benchmark', '-rs', '--tb=short', ...args], {
      cwd: SDK,
      env: { ...process.env, PYTHONPATH: join(SDK, 'src'), PYTHONDONTWRITEBYTECODE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('python3 with pytest', () => {
  it.runIf(IN_CI)('is installed where CI runs', () => {
    expect(python.ok, python.ok ? '' : python.why).toBe(true);
  });
});

const pip = spawnSync(PYTHON, ['-m', 'pip', '--version'], { encoding: 'utf8' });

describe.runIf(python.ok && pip.status === 0)('Python SDK package', () => {
  it('installs as its README says (pip install ./packages/sdk-python), typed, with no dependency', () => {
    // A copy is built, so the build leaves nothing in the repository.
    const work = mkdtempSync(join(tmpdir(), 'paygate-python-'));
    try {
      const source = join(work, 'sdk-python');
      cpSync(SDK, source, { recursive: true, filter: (f) => !/(__pycache__|\.pytest_cache|\.egg-info|\/build)$/.test(f) });
      const target = join(work, 'site');
      // With setuptools and wheel installed (Debian's python3-setuptools, python3-wheel) the build needs no package index.
      const local = spawnSync(PYTHON, ['-c', 'import setuptools, wheel'], { encoding: 'utf8' }).status === 0;
      const args = ['-m', 'pip', 'install', '--no-deps', '--disable-pip-version-check', ...(local ? ['--no-build-isolation'] : []), '--target', target, source];
      const install = spawnSync(PYTHON, args, { encoding: 'utf8', timeout: 240_000 });
      expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);
      expect(existsSync(join(target, 'paygate', 'py.typed'))).toBe(true);
      const use = spawnSync(PYTHON, ['-c', 'import paygate, sys; print(paygate.__file__); print(paygate.sign_request("sk_test_9f8e7d6c5b4a", "1763700000", "n0nce-0002", "GET", "/gw/v1/rates", b""))'], {
        encoding: 'utf8',
        cwd: work,
        env: { ...process.env, PYTHONPATH: target },
      });
      expect(use.status, use.stderr).toBe(0);
      expect(use.stdout).toContain(join(target, 'paygate'));
      expect(use.stdout).toContain('1da997e5a4ab6b9b0cc011e63ea12df327f40727c91c461e0197e64560d746e3');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 300_000);
});

describe.runIf(python.ok)('Python SDK', () => {
  let gw: LiveGateway;
  beforeAll(async () => {
    gw = await startLiveGateway('python');
  }, STARTUP_MS * 2);
  afterAll(async () => {
    await gw?.close();
  });

  it('passes its offline tests (vectors, verification, retries, errors against fakes)', async () => {
    const r = await pytest(['tests/test_offline.py'], { PAYGATE_URL: '' });
    expect(r.code, r.output).toBe(0);
    expect(r.output).not.toMatch(/skipped/);
  }, 120_000);

  it('passes its live scenarios against a real Paygate', async () => {
    const r = await pytest(['tests/test_live.py'], {
      PAYGATE_URL: gw.url,
      PAYGATE_KEY: gw.key,
      PAYGATE_SECRET: gw.secret,
      PAYGATE_CALLBACK_HOST: '127.0.0.1',
    });
    expect(r.code, r.output).toBe(0);
    // Every live scenario ran: none skipped for a setting the run forgot.
    expect(r.output).not.toMatch(/skipped/);
    expect(r.output).toMatch(/\b\d+ passed/);
  }, 300_000);
});
