import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests the team backend's mutation run (test/setup/stryker-postgres.config.mjs) runs
 * against each mutant: the unit tests that drive src/state/postgres/ against a real PostgreSQL,
 * one cluster per worker process for the whole run (SCHEDCTL_TEST_PG_ONCE, test/helpers/postgres.ts).
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    globalSetup: ['./test/setup/own-tmpdir.ts'],
    include: [
      'test/unit/state-backend-contract.test.ts',
      'test/unit/state-postgres-*.test.ts',
      'test/unit/state-migration-postgres.test.ts',
      'test/unit/state-refusals.test.ts',
    ],
    env: { SCHEDCTL_TEST_PG_ONCE: '1' },
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
