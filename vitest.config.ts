import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { measureSlowness } from './test/helpers/slowness.js';

// How much slower than a quiet 2-core machine the CLI starts here, now (test/helpers/slowness.ts):
// the timeouts below grow with it, and every worker's helpers scale their own bounds by it.
const bin = process.env.SCHEDCTL_TEST_BIN ?? fileURLToPath(new URL('./bin/schedctl.js', import.meta.url));
const slowness = measureSlowness(bin);
process.env.SCHEDCTL_TEST_SLOWNESS = String(slowness);

export default defineConfig({
  test: {
    // Temporary files under one directory per run, removed at its end (the file says why).
    globalSetup: ['./test/setup/own-tmpdir.ts'],
    include: ['test/**/*.test.ts'],
    exclude: ['test/faults/**', 'node_modules/**'],
    pool: 'forks',
    // Two workers a core: an end-to-end test spends much of its time waiting on a child process,
    // a timeout or a lock, and another worker's CPU fills that wait. On this 2-core machine the
    // suite took 232 s with 2 workers, 204 s with 3 and 185 s with 4 (CPU ~345 s in each case).
    maxWorkers: Math.min(8, Math.max(2, availableParallelism() * 2)),
    // A worker runs file after file without a fresh module graph each time: the suite mocks no
    // module and stubs no global, and loading src/ and the helpers once per worker, not once per
    // file, saved about 40 s of CPU in a full run (244 s instead of 283 s, user + sys).
    isolate: false,
    // 30 s on a quiet machine; a test with a longer bound of its own scales it (`scaled`), or has
    // none (timeout 0) where every wait in it is bounded already.
    testTimeout: 30_000 * slowness,
    hookTimeout: 30_000 * slowness,
  },
});
