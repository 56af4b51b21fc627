import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What is published: @paygate/sdk compiled by tsc to ESM with declarations, no runtime dependencies.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PKG = join(ROOT, 'packages/sdk');
let out: string;

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'paygate-sdk-dist-'));
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(PKG, 'tsconfig.json'), '--outDir', out], { stdio: 'pipe' });
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

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
});
