import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What is published: @paygate/sdk compiled by tsc to ESM with declarations, no runtime dependencies.
// It is packed once, as its README says (packing builds dist/ with tsc first), and installed from
// the tarball into a project of its own; the tests read what was packed and installed.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PKG = join(ROOT, 'packages/sdk');

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });

const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));

let work: string;
let packed: { filename: string; files: { path: string }[] };
/** The project that installed the tarball, and the package's compiled files there. */
let project: string;
let out: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'paygate-sdk-install-'));
  [packed] = JSON.parse(npm(['pack', '-w', '@paygate/sdk', '--pack-destination', work, '--json'], ROOT)) as (typeof packed)[];
  project = join(work, 'shop');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', type: 'module', private: true }));
  // No registry is needed: the SDK depends on nothing.
  npm(['install', '--offline', join(work, packed.filename)], project);
  out = join(project, 'node_modules/@paygate/sdk/dist');
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('@paygate/sdk package', () => {
  it('has no runtime dependencies and exports ESM with type declarations and the paygate bin', () => {
    const pkg = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('@paygate/sdk');
    expect(pkg.type).toBe('module');
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.exports['.']).toMatchObject({ types: './dist/index.d.ts', default: './dist/index.js' });
    expect(pkg.bin).toEqual({ paygate: './dist/cli.js' });
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(root.workspaces).toEqual(['packages/*']);
    for (const f of ['index.js', 'index.d.ts', 'client.d.ts', 'types.d.ts', 'generated/openapi.d.ts', 'cli.js']) expect(existsSync(join(out, f)), f).toBe(true);
    expect(readFileSync(join(out, 'cli.js'), 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    // dist/ is the compile of src/ as it is now: a module and its declarations for every source, nothing left from an older one.
    const sources = walk(join(PKG, 'src'))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => relative(join(PKG, 'src'), f).slice(0, -'.ts'.length));
    const paths = packed.files.map((f) => f.path);
    expect(paths.filter((p) => p.startsWith('dist/') && p.endsWith('.js')).map((p) => p.slice('dist/'.length, -'.js'.length)).sort()).toEqual([...sources].sort());
    for (const s of sources) expect(paths, s).toContain(`dist/${s}.d.ts`);
  });

  it('the compiled module exports Paygate, verifyCallback and PaygateError by name', async () => {
    const m = await import(pathToFileURL(join(out, 'index.js')).href);
    expect(typeof m.Paygate).toBe('function');
    expect(typeof m.verifyCallback).toBe('function');
    expect(typeof m.PaygateError).toBe('function');
    expect(new m.PaygateError({ status: 404, code: 'ORDER_NOT_FOUND' })).toBeInstanceOf(Error);
    // Only Node's own modules are imported.
    for (const f of ['index.js', 'client.js', 'verify.js', 'signing.js', 'listen.js', 'cli.js', 'adapters.js', 'errors.js']) {
      const imports = [...readFileSync(join(out, f), 'utf8').matchAll(/from '([^']+)'/g)].map((x) => x[1]);
      for (const i of imports) expect(i, `${f} imports ${i}`).toMatch(/^(node:|\.\/)/);
    }
  });

  it('the compiled bin prints its usage', () => {
    const text = execFileSync(process.execPath, [join(out, 'cli.js'), 'listen', '--help'], { encoding: 'utf8' });
    expect(text).toContain('paygate listen --base-url URL --key KEY --secret SECRET --forward-to URL');
  });

  it('installs as its README says: packed from the repository, then installed from the tarball into a project of its own', () => {
    const readme = readFileSync(join(PKG, 'README.md'), 'utf8');
    expect(readme).toContain('npm pack -w @paygate/sdk --pack-destination /tmp');
    expect(packed.filename).toBe('paygate-sdk-0.1.0.tgz');
    expect(packed.files.map((f) => f.path)).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/cli.js', 'README.md']));
    const used = execFileSync(process.execPath, ['--input-type=module', '-e', "import { Paygate, verifyCallback, PaygateError } from '@paygate/sdk'; console.log([typeof Paygate, typeof verifyCallback, typeof PaygateError].join(','));"], { cwd: project, encoding: 'utf8' });
    expect(used.trim()).toBe('function,function,function');
    const usage = execFileSync(join(project, 'node_modules/.bin/paygate'), ['listen', '--help'], { cwd: project, encoding: 'utf8' });
    expect(usage).toContain('paygate listen --base-url URL');
  });
});
