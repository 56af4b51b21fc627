import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every import in src/ against layers.json: each file is in one room, and imports only its own
 * room and the rooms that room may import. A wrong import fails here, naming the file, the import
 * and the rule it breaks.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

interface Room {
  name: string;
  paths: string[];
  owns: string;
  may: string[];
  typeOnly?: string[];
  never?: Record<string, string>;
}

const { rooms } = JSON.parse(readFileSync(join(ROOT, 'layers.json'), 'utf8')) as { rooms: Room[] };

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The room of a path under src/: the longest path of any room that names it. */
export function roomOf(path: string, all: readonly Room[] = rooms): Room | null {
  let best: { room: Room; length: number } | null = null;
  for (const room of all) {
    for (const p of room.paths) {
      const matches = p.endsWith('/') ? path.startsWith(p) : path === p;
      if (matches && (best === null || p.length > best.length)) best = { room, length: p.length };
    }
  }
  return best?.room ?? null;
}

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Relative imports and re-exports of one file, with whether each is type-only. */
function importsOf(file: string, text: string): Import[] {
  const out: Import[] = [];
  for (const m of text.matchAll(/^\s*(import|export)(\s+type)?\b([^;]*?)\bfrom\s+'(\.[^']+)'/gms)) {
    const to = relative(SRC, resolve(dirname(file), m[4]!.replace(/\.js$/, '.ts')));
    // `import { type A, type B }` is type-only too.
    const names = /\{([^}]*)\}/.exec(m[3] ?? '')?.[1];
    const allTyped = names !== undefined && names.split(',').filter((n) => n.trim() !== '').every((n) => n.trim().startsWith('type '));
    out.push({ from: relative(SRC, file), to, typeOnly: m[2] !== undefined || allTyped });
  }
  return out;
}

/** Why an import breaks the rules, or null when it may stand. */
export function breach(imp: Import, all: readonly Room[] = rooms): string | null {
  const from = roomOf(imp.from, all);
  const to = roomOf(imp.to, all);
  if (!from || !to) return null; // files outside every room are reported by their own test
  if (from.name === to.name || from.may.includes(to.name)) return null;
  if (from.typeOnly?.includes(to.name)) return imp.typeOnly ? null : `${from.name} may import only types from ${to.name}`;
  return from.never?.[to.name] ? `${from.name} never imports ${to.name}: ${from.never[to.name]}` : `${from.name} may not import ${to.name}`;
}

const sources = files(SRC).map((f) => ({ path: relative(SRC, f), imports: importsOf(f, readFileSync(f, 'utf8')) }));

describe('layers.json', () => {
  it('names every room once, and every room it refers to exists', () => {
    const names = rooms.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const r of rooms) {
      for (const n of [...r.may, ...(r.typeOnly ?? []), ...Object.keys(r.never ?? {})]) expect(names, `${r.name} refers to ${n}`).toContain(n);
      for (const n of Object.keys(r.never ?? {})) expect(r.may, `${r.name} both may and never import ${n}`).not.toContain(n);
      expect(r.owns.length, `${r.name} says what it owns`).toBeGreaterThan(10);
    }
  });

  it('puts every source file in a room', () => {
    expect(sources.filter((s) => roomOf(s.path) === null).map((s) => s.path)).toEqual([]);
  });

  it('is read right: the room of a file is its closest path, and a forbidden import is caught', () => {
    expect(roomOf('schemas/admin.ts')?.name).toBe('schemas');
    expect(roomOf('http/routes/admin.ts')?.name).toBe('http');
    expect(roomOf('workers/loop.ts')?.name).toBe('wiring');
    expect(roomOf('main.ts')?.name).toBe('main');
    expect(breach({ from: 'web/cabinet/routes.ts', to: 'store/orders.ts', typeOnly: true })).toMatch(/web never imports store/);
    expect(breach({ from: 'http/routes/admin.ts', to: 'web/layout.ts', typeOnly: false })).toMatch(/peers/);
    expect(breach({ from: 'context.ts', to: 'store/db.ts', typeOnly: false })).toMatch(/only types/);
    expect(breach({ from: 'context.ts', to: 'store/db.ts', typeOnly: true })).toBeNull();
    expect(breach({ from: 'services/orders.ts', to: 'store/orders.ts', typeOnly: false })).toBeNull();
    // The import reader sees type-only imports in both spellings, and re-exports.
    const read = importsOf(join(SRC, 'x.ts'), "import type { A } from './store/a.js';\nimport { type B, type C } from './store/b.js';\nimport { D, type E } from './store/c.js';\nexport { F } from './store/d.js';");
    expect(read.map((i) => [i.to, i.typeOnly])).toEqual([['store/a.ts', true], ['store/b.ts', true], ['store/c.ts', false], ['store/d.ts', false]]);
  });

  it('ARCHITECTURE.md shows every room', () => {
    const doc = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    for (const r of rooms) for (const p of r.paths) expect(doc, `${r.name}: ${p}`).toContain(p);
  });

  it('holds for every import in src/', () => {
    const broken = sources.flatMap((s) => s.imports.map((i) => ({ i, why: breach(i) }))).filter((b) => b.why !== null);
    expect(broken.map((b) => `${b.i.from} → ${b.i.to}: ${b.why}`)).toEqual([]);
  });
});
