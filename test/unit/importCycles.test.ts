import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports of every module, type-only ones included (they still tie the modules together). */
function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of files(SRC)) {
    const text = readFileSync(f, 'utf8');
    const deps = [...text.matchAll(/(?:import|export)[^'"]*?from\s+'(\.[^']+)'/g)].map((m) => relative(SRC, resolve(dirname(f), m[1].replace(/\.js$/, '.ts'))));
    g.set(relative(SRC, f), deps);
  }
  return g;
}

function cycles(g: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string) => {
    state.set(n, 'visiting');
    stack.push(n);
    for (const d of g.get(n) ?? []) {
      if (state.get(d) === 'visiting') found.push([...stack.slice(stack.indexOf(d)), d]);
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of g.keys()) if (!state.has(n)) visit(n);
  return found;
}

describe('module structure', () => {
  const g = graph();

  it('has no import cycle', () => {
    // The graph is read right: a few edges that must be there.
    expect(g.get('services/appeals.ts')).toContain('services/orderActions.ts');
    expect(g.get('providers/cascade.ts')).toContain('providers/registry.ts');
    expect(cycles(g).map((c) => c.join(' → '))).toEqual([]);
  });
});
