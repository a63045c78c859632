// Runs the end-to-end suite against the package as users get it: `npm pack`, install the
// tarball into an empty prefix (no dev dependencies, no sources), and point the tests'
// CLI runner at the installed bin (SCHEDCTL_TEST_BIN). Usage: npm run test:installed
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'schedctl-installed-'));
try {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const prefix = join(work, 'prefix');
  execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', join(work, packed.filename)], {
    stdio: 'inherit',
  });
  // The link npm puts on PATH (what `npx schedctl` runs), not the file behind it: the bin
  // must find package.json, bin/package.json and dist/ through that link.
  const bin = join(prefix, 'node_modules/.bin/schedctl');
  console.log(`testing the installed package: ${bin}`);
  const r = spawnSync('npx', ['vitest', 'run', 'test/e2e', ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, SCHEDCTL_TEST_BIN: bin },
  });
  process.exitCode = r.status ?? 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
