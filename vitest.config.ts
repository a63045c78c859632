import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/faults/**', 'node_modules/**'],
    // End-to-end tests spawn the CLI and a sandbox; two cores, so keep parallelism modest.
    pool: 'forks',
    maxWorkers: 2,
    // A worker runs file after file without a fresh module graph each time: the suite mocks no
    // module and stubs no global, and loading src/ and the helpers once per worker, not once per
    // file, saved about 40 s of CPU in a full run (244 s instead of 283 s, user + sys).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
