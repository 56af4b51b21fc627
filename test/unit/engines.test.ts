import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * Every installed package runs on the Node.js versions package.json promises (its lowest one
 * included): `npm ci` on a Node 20 server must not warn that a dependency needs something newer.
 */

const ROOT = new URL('../..', import.meta.url).pathname;
const ours = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };

function packages(dir: string): { name: string; version: string; node?: string }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    if (n.startsWith('.')) return [];
    const p = join(dir, n);
    if (n.startsWith('@')) return packages(p);
    const file = join(p, 'package.json');
    if (!existsSync(file)) return [];
    const j = JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string; engines?: { node?: string } };
    return [{ name: j.name, version: j.version, node: j.engines?.node }, ...packages(join(p, 'node_modules'))];
  });
}

describe('Node.js versions', () => {
  it('every dependency supports the lowest Node.js version package.json names', () => {
    const lowest = semver.minVersion(ours.engines.node)!.version;
    expect(semver.major(lowest)).toBe(20);
    const installed = packages(join(ROOT, 'node_modules'));
    expect(installed.length).toBeGreaterThan(100);
    const refusing = installed.filter((p) => p.node !== undefined && !semver.satisfies(lowest, p.node, { includePrerelease: true }));
    expect(refusing.map((p) => `${p.name}@${p.version} needs node ${p.node}`)).toEqual([]);
  });

  it('the README names the same version', () => {
    const lowest = semver.minVersion(ours.engines.node)!;
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`Node.js ${lowest.major}.${lowest.minor} or newer`);
  });
});
