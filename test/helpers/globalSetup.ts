import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

// Not imported from process.ts: that module uses the test API, which global setup has not.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

declare module 'vitest' {
  export interface ProvidedContext {
    /** A directory of this `vitest run`, shared by its test processes and removed at its end. */
    runDir: string;
  }
}

/**
 * Where the run's directory goes: memory (/dev/shm) where there is one. The process suites copy
 * and remove embedded databases of 40 MB there many times, and a server's first start writes and
 * syncs its database; on a disk that is a second or more each, under load several (a copy in
 * memory takes a tenth of a second). Nothing they test depends on the disk under DATA_DIR.
 */
function scratchBase(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/**
 * Once before any test file: src/ turned into plain JavaScript under dist/, as `npm start`'s
 * prestart does, so the process-level suites start the server exactly as `npm start` runs it; and
 * a directory for what the run's test processes make and share (see `migratedDataDir`), removed
 * with everything in it at the end.
 */
export default function setup(project: TestProject): () => void {
  execFileSync(process.execPath, ['tools/transpile.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const runDir = mkdtempSync(join(scratchBase(), 'paygate-test-run-'));
  project.provide('runDir', runDir);
  return () => rmSync(runDir, { recursive: true, force: true });
}
