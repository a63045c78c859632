// `npm test`: the build, then the whole vitest suite (it runs the built CLI); its output streams
// as it runs. The static checks (lint, the type check) are `npm run check`, which CI runs before
// this (.ci/run). Exit: the build's failure, else the suite's code.
// Usage: npm test [-- <vitest arguments, e.g. a test file>]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (args) => spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

const built = run([`${root}/scripts/build.mjs`]);
if (built !== 0) process.exit(built);
process.exit(run([`${root}/node_modules/vitest/vitest.mjs`, 'run', ...process.argv.slice(2)]));
