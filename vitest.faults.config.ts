import { defineConfig } from 'vitest/config';

// The fault campaign (`npm run test:faults`): one long, seeded test; kept out of the default run.
export default defineConfig({
  test: {
    // Temporary files under one directory per run, removed at its end (the file says why).
    globalSetup: ['./test/setup/own-tmpdir.ts'],
    include: ['test/faults/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
