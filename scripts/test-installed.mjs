// Runs the end-to-end suite against the package as users get it: `npm pack`, install the
// tarball into an empty prefix (no dev dependencies, no sources), and point the tests'
// CLI runner at the installed bin (SCHEDCTL_TEST_BIN).
// Usage: npm run test:installed [-- --node 24] [--quick] [vitest arguments]
// --node N runs the suite (and so every CLI it starts: the tests spawn process.execPath) on
// Node N, taken from the npm registry's node-<platform>-<arch> package into the temporary
// directory and put first on PATH; without it, on the Node running this script.
// --quick runs, instead of the suite, the installed package's short check on that Node
// (scripts/installed-quick.mjs: a few seconds): CI runs the suite on Node 22 and this on 24.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const nodeAt = args.indexOf('--node');
const nodeVersion = nodeAt >= 0 ? args.splice(nodeAt, 2)[1] : undefined;
const quickAt = args.indexOf('--quick');
const quick = quickAt >= 0 && args.splice(quickAt, 1).length === 1;
if (nodeAt >= 0 && !/^\d+$/.test(nodeVersion ?? '')) {
  console.error('usage: test-installed.mjs [--node MAJOR] [vitest arguments]');
  process.exit(2);
}
const npmInstall = (prefix, spec) =>
  execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', spec], {
    stdio: 'inherit',
  });
/** The package's own limit (docs/development.md): the packed tarball is at most 500 kB (npm's kB, 1,000 bytes). */
const TARBALL_LIMIT_KB = 500;

const work = mkdtempSync(join(tmpdir(), 'schedctl-installed-'));
try {
  let node = process.execPath;
  if (nodeVersion) {
    const pkg = `node-${process.platform}-${process.arch}`;
    npmInstall(join(work, 'node'), `${pkg}@${nodeVersion}`);
    node = join(work, 'node/node_modules', pkg, 'bin/node');
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    if (!version.startsWith(`v${nodeVersion}.`)) throw new Error(`${pkg}@${nodeVersion} runs ${version}`);
  }
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const tarball = join(work, packed.filename);
  const kb = statSync(tarball).size / 1000;
  if (kb > TARBALL_LIMIT_KB) throw new Error(`the packed tarball is ${kb.toFixed(0)} kB, over ${TARBALL_LIMIT_KB} kB`);
  const prefix = join(work, 'prefix');
  // Installing it runs no script of its own, so npm has nothing to warn about.
  const installed = spawnSync(
    'npm',
    ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', '--foreground-scripts', tarball],
    { encoding: 'utf8' },
  );
  process.stderr.write(installed.stderr);
  if (installed.status !== 0) throw new Error(`npm install of the tarball failed: ${installed.stderr}`);
  if (/script/i.test(installed.stderr)) throw new Error(`npm install of the tarball warned: ${installed.stderr}`);
  // The link npm puts on PATH (what `npx schedctl` runs), not the file behind it: the bin
  // must find package.json, bin/package.json and dist/ through that link.
  const bin = join(prefix, 'node_modules/.bin/schedctl');
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  console.log(`testing the installed package on Node ${version}${quick ? ' (the short check)' : ''}: ${bin}`);
  const suite = quick
    ? [join(root, 'scripts/installed-quick.mjs'), bin, prefix]
    : [join(root, 'node_modules/vitest/vitest.mjs'), 'run', 'test/e2e', ...args];
  const r = spawnSync(node, suite, {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      SCHEDCTL_TEST_BIN: bin,
      SCHEDCTL_TEST_TARBALL: tarball,
      // Anything started as plain `node` runs on the same Node as the suite.
      PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`,
    },
  });
  process.exitCode = r.status ?? 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
