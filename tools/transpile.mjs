// Turns src/ into plain JavaScript under dist/ for `npm start`, in well under a second: esbuild
// strips the types file by file (no bundling, no type check; `npm run build` is the checked build
// and `npm run typecheck` the check). The server then runs on plain Node, without a TypeScript
// loader in the process.
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const files = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) files.push(p);
  }
};
walk('src');
rmSync('dist', { recursive: true, force: true });
await build({ entryPoints: files, outdir: 'dist', outbase: 'src', format: 'esm', platform: 'node', target: 'node20', bundle: false, logLevel: 'warning' });
cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true });
