import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
    // Test files share a worker process (imports and the migrated database template are made
    // once per process); every file still gets its own databases and app instances.
    poolOptions: { forks: { isolate: false, minForks: 2, maxForks: 2 } },
  },
});
