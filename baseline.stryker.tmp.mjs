import base from './stryker.config.mjs';
export default { ...base, vitest: { configFile: 'test/setup/baseline.tmp.config.ts' }, htmlReporter: { fileName: 'reports/mutation-baseline/index.html' }, jsonReporter: { fileName: 'reports/mutation-baseline/mutation.json' }, thresholds: { high: 90, low: 75, break: null }, tempDirName: '.stryker-tmp-baseline' };
