import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first: the two forks start on them and fill in with the
 * short files, so neither is left with a long file at the end while the other has finished. The
 * process suites spend most of their time waiting on the servers they start; the rest follow by
 * their last duration (vitest's cache), or by size where there is none. The large statement comes
 * second: it needs no database, so one fork works on it while the first process suite waits for
 * the run's migrated DATA_DIR (one `paygate migrate`, on one core), which every process suite needs
 * before it can start a server.
 */
const LONGEST_FIRST = [
  'test/e2e/process.test.ts',
  'test/unit/statements/large.test.ts',
  'test/e2e/shutdown.test.ts',
  'test/e2e/start.test.ts',
  'test/e2e/readme.test.ts',
  'test/integration/reconciliation/uploadRobustness.test.ts',
  'test/e2e/uploadRobustness.test.ts',
  'test/integration/cabinet.test.ts',
  'test/sdk/package.test.ts',
  'test/integration/officeAdmin.test.ts',
];

/**
 * Unlike vitest's own order, failures of an earlier run do not come first: the cache under
 * node_modules is shared by every run in the checkout, so that order changed with whatever ran last.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const path = (f: TestSpecification) => relative(root, f.moduleId);
    const key = (f: TestSpecification) => `${f.project.name}:${path(f)}`;
    const listed = (f: TestSpecification) => {
      const i = LONGEST_FIRST.indexOf(path(f));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    const duration = (f: TestSpecification) => this.ctx.cache.getFileTestResults(key(f))?.duration;
    const size = (f: TestSpecification) => this.ctx.cache.getFileStats(key(f))?.size ?? 0;
    return [...files].sort((a, b) => {
      if (listed(a) !== listed(b)) return listed(a) - listed(b);
      const [da, db] = [duration(a), duration(b)];
      if (da !== undefined && db !== undefined) return db - da;
      // A file not run before goes first, the larger first.
      if (da === undefined && db === undefined) return size(b) - size(a);
      return da === undefined ? -1 : 1;
    });
  }
}

export default defineConfig({
  resolve: {
    // Tests run the SDK from its TypeScript source, as the root tsconfig's "paygate-source" condition does.
    alias: [{ find: /^@paygate\/sdk$/, replacement: fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)) }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files share a worker process (imports are made once per process, the migrated database
    // template once per run); every file still gets its own databases and app instances.
    poolOptions: { forks: { isolate: false, minForks: 2, maxForks: 2 } },
    sequence: { sequencer: LongestFirst },
  },
});
