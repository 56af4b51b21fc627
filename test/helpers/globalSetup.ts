import { execFileSync } from 'node:child_process';
import { ROOT } from './process.js';

/**
 * Once before any test file: src/ turned into plain JavaScript under dist/, as `npm start`'s
 * prestart does, so the process-level suites start the server exactly as `npm start` runs it.
 */
export default function setup(): void {
  execFileSync(process.execPath, ['tools/transpile.mjs'], { cwd: ROOT, stdio: 'inherit' });
}
