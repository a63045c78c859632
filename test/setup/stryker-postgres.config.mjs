/**
 * Mutation testing of the team backend (src/state/postgres/), beside CI: `npx stryker run
 * test/setup/stryker-postgres.config.mjs`. Its tests start a real PostgreSQL (one per worker
 * for the run, test/setup/vitest.mutation-postgres.config.ts); too slow for CI's budget, its
 * score is reported in the notes (docs/development.md, "Mutation testing").
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
import base from '../../stryker.config.mjs';

export default {
  ...base,
  vitest: { configFile: 'test/setup/vitest.mutation-postgres.config.ts', related: false },
  incremental: false,
  mutate: ['src/state/postgres/**/*.ts', '!src/state/postgres/pgpass.d.ts'],
  htmlReporter: { fileName: 'reports/mutation-postgres/index.html' },
  jsonReporter: { fileName: 'reports/mutation-postgres/mutation.json' },
  thresholds: { high: 90, low: 75, break: null },
  timeoutMS: 20_000,
};
