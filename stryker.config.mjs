/**
 * Mutation testing of the domain and the state store (`npm run test:mutation`): does a unit test
 * fail when the code is changed? Stryker mutates src/domain, src/state, src/config/target.ts and paths.ts and runs the fast
 * unit tests (test/setup/vitest.mutation.config.ts) against each mutant, only the tests that
 * cover it (perTest). `break` fails the run below 75% overall; scripts/mutation-core.mjs then
 * holds the booking core (booking and the state files it relies on) to 90% from the JSON report.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  // related: false: Stryker names each mutant's test files itself (perTest coverage); vitest's
  // search for the files related to the mutated one only added to every run.
  vitest: { configFile: 'test/setup/vitest.mutation.config.ts', related: false },
  // Incremental, with the baseline in the repository: a run re-tests the mutants whose code or
  // covering tests changed since the baseline and reuses every other result, so CI's run takes
  // minutes, not the ~37 of a full one; the scores (and scripts/mutation-core.mjs) count every
  // mutant, reused ones included. `npm run test:mutation` updates the file: commit it with the
  // change. `npx stryker run --force` re-tests everything (docs/development.md, "What CI runs").
  incremental: true,
  incrementalFile: 'test/mutation/incremental.json',
  mutate: [
    'src/domain/**/*.ts',
    'src/state/**/*.ts',
    // Which key, URL and workspace name a command uses: the ledger's identity starts here.
    'src/config/target.ts',
    // Where the config directory (profiles and ledger) is.
    'src/config/paths.ts',
    // How a key and a URL are shown: never a secret.
    'src/config/mask.ts',
    // Types only: nothing to mutate.
    '!src/domain/route/types.ts',
    '!src/domain/smoke/types.ts',
    // The lead lock is about waiting and time: each of its mutants would rerun seconds-long lock
    // tests (7+ minutes of CI for a module outside the core); its behaviour is proved by the unit
    // tests of test/unit/state-lead-lock.test.ts and the e2e tests of test/e2e/lead-ledger.test.ts.
    '!src/state/lead-lock.ts',
    // The team state's backend talks to a real PostgreSQL: each mutant would start one. It is
    // proved by the backend contract suite (test/unit/state-backend-contract.test.ts, the same
    // tests as the local files) and the end-to-end tests of test/e2e/team-state*.test.ts.
    '!src/state/postgres/**',
  ],
  // Mutants that only change how long a lock wait pauses (never its outcome) are reported as
  // Ignored, with the reason: see test/setup/stryker-equivalent.mjs.
  appendPlugins: ['./test/setup/stryker-equivalent.mjs'],
  ignorers: ['schedctl-equivalent'],
  coverageAnalysis: 'perTest',
  // Static mutants (module-level code: constant tables, patterns) run every unit test each: 286 of
  // them (8% of the mutants) took ~68% of the run, past CI's budget, once the time grammar's
  // tables arrived. They are reported as Ignored; the per-test mutants are what the scores count.
  ignoreStatic: true,
  concurrency: 2,
  reporters: ['html', 'json', 'clear-text', 'progress'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 75, break: 75 },
  // Not needed to run the unit tests: keeps the sandbox copy small.
  ignorePatterns: [
    'dist',
    'reports',
    'coverage',
    '.tmp',
    'test/e2e',
    'test/perf',
    'test/faults',
    'test/reliability',
    'test/sandbox',
    'test/mutation',
  ],
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  timeoutMS: 10_000,
};
