import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests Stryker runs against each mutant (`npm run test:mutation`): the fast unit tests
 * only. Left out: the two files that spawn worker processes (state-parallel,
 * rate-budget-processes). Their workers run an esbuild bundle in another process, which never
 * sees Stryker's active mutant, so they can kill nothing and would only add seconds to every run.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    // Temporary files under one directory per run, removed at its end (the file says why).
    globalSetup: ['./test/setup/own-tmpdir.ts'],
    include: ['test/unit/**/*.test.ts'],
    exclude: [
      'test/unit/state-parallel.test.ts',
      'test/unit/rate-budget-processes.test.ts',
      // The PostgreSQL test harness: servers and processes of its own, and no src/ code to kill mutants in.
      'test/unit/test-postgres.test.ts',
      // These start a PostgreSQL cluster in beforeAll (~2 s), which every mutant run covering the
      // stores would pay; the PostgreSQL backend is not mutated (stryker.config.mjs).
      'test/unit/state-backend-contract.test.ts',
      'test/unit/state-postgres-connect.test.ts',
      'test/unit/state-migration-postgres.test.ts',
      'test/unit/state-postgres-leads.test.ts',
      'test/unit/state-postgres-steps.test.ts',
      'node_modules/**',
      // Stryker needs every test green before it starts: MUTATION_EXCLUDE=glob,glob sets aside a
      // file that is red for reasons of its own (say so when reporting the scores).
      ...(process.env.MUTATION_EXCLUDE?.split(',').filter(Boolean) ?? []),
    ],
    // One module graph per worker, as in the main config (vitest.config.ts): without it every mutant's run re-imported
    // each test file's src/ modules (chrono-node and luxon among them) before the first test.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
