// Turns src/ into plain JavaScript under dist/ for `npm start`, in well under a second: esbuild
// strips the types file by file (no bundling, no type check; `npm run build` is the checked build
// and `npm run typecheck` the check). The server then runs on plain Node, without a TypeScript
// loader in the process.
//
// dist/ is updated in place, never emptied first: a file whose content changed is written beside
// its place and renamed over it (atomic), an unchanged one is left alone, and only then are files
// that no longer come from src/ removed. A server starting from dist/ while this runs (another
// `npm start`, a test suite) never finds it missing or a file half-written.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

const walk = (dir, out = []) => {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (err.code === 'ENOENT') return out;
    throw err;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
};

const entryPoints = walk('src').filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
const { outputFiles } = await build({ entryPoints, outdir: 'dist', outbase: 'src', format: 'esm', platform: 'node', target: 'node20', bundle: false, write: false, logLevel: 'warning' });

/** dist/ as it must be: relative path → content. */
const wanted = new Map(outputFiles.map((f) => [relative('dist', f.path), Buffer.from(f.contents)]));
for (const f of walk('src/store/migrations')) wanted.set(relative('src', f), readFileSync(f));

const same = (file, content) => {
  try {
    return readFileSync(file).equals(content);
  } catch {
    return false;
  }
};
for (const [rel, content] of wanted) {
  const file = join('dist', rel);
  if (same(file, content)) continue;
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, content);
  renameSync(temp, file);
}
const keep = new Set([...wanted.keys()].map((rel) => resolve('dist', rel)));
const running = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};
for (const file of walk('dist')) {
  if (keep.has(resolve(file))) continue;
  // Another transpile running at this moment writes its files beside their places first.
  const writer = /\.(\d+)\.tmp$/.exec(file);
  if (writer && Number(writer[1]) !== process.pid && running(Number(writer[1]))) continue;
  rmSync(file, { force: true });
}
// Folders left empty by that (a source folder moved or removed).
const pruneEmpty = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) pruneEmpty(join(dir, e.name));
  if (dir !== 'dist' && readdirSync(dir).length === 0) rmSync(dir, { recursive: true, force: true });
};
pruneEmpty('dist');
