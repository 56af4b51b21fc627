import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files share a worker process (imports and the migrated database template are made
    // once per process); every file still gets its own databases and app instances.
    poolOptions: { forks: { isolate: false, minForks: 2, maxForks: 2 } },
  },
});
