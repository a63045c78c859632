// The short check of an installed package (`npm run test:installed -- --node 24 --quick`): the
// full end-to-end suite runs against the installed tarball once, on the engines floor (Node 22);
// on another Node, this proves in a few seconds that the same package starts and works there.
// Run by scripts/test-installed.mjs on that Node, with the installed bin and prefix:
//   node installed-quick.mjs <bin> <prefix>
// Checks: `--version` names package.json's version and this Node; `--help` lists the commands; `sandbox --port 0 --json`
// prints its one JSON line; the package's `schedctl/sandbox` export starts an embedded sandbox
// that a routed booking (`route … --json`, the demo's) books against. Exit 0, or 1 naming the check.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [bin, prefix] = process.argv.slice(2);
const configDir = mkdtempSync(join(tmpdir(), 'schedctl-quick-'));
const env = { ...process.env, SCHEDCTL_CONFIG_DIR: configDir, SCHEDCTL_NO_INPUT: '1', NO_COLOR: '1', TZ: 'UTC' };

/** Runs the installed bin to its end; `until` ends it early once stdout holds what it needs. */
function cli(args, { until, extraEnv = {} } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      if (until?.(stdout)) child.kill('SIGINT');
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The JSON document a command printed, or undefined when it printed none. */
function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function check(name, ok, detail) {
  if (!ok) throw new Error(`${name}: ${detail}`);
  console.log(`ok  ${name}`);
}

try {
  const pkgJson = createRequire(join(prefix, 'package.json')).resolve('schedctl/package.json');
  const { version } = JSON.parse(readFileSync(pkgJson, 'utf8'));
  const v = await cli(['--version']);
  check(
    '--version',
    // `schedctl 0.2.0 (Node.js v24…, linux-x64)`: the version, and the Node it runs on (this one).
    v.code === 0 && v.stdout.trim().startsWith(`schedctl ${version} (Node.js ${process.version},`),
    `exit ${v.code}, ${JSON.stringify(v.stdout)} (want "schedctl ${version} (Node.js ${process.version}, …)")`,
  );

  const help = await cli(['--help']);
  check(
    '--help',
    help.code === 0 && /\broute\b/.test(help.stdout) && /\bsandbox\b/.test(help.stdout),
    `exit ${help.code}: ${help.stderr}`,
  );

  const line = (out) => out.includes('\n');
  const sb = await cli(['sandbox', '--port', '0', '--json'], { until: line });
  const first = sb.stdout.split('\n')[0] ?? '';
  const doc = parsed(first);
  check(
    'sandbox --port 0 --json',
    typeof doc?.baseUrl === 'string' && doc.keys?.full,
    `printed ${JSON.stringify(first)}; stderr ${sb.stderr}`,
  );

  const exported = createRequire(join(prefix, 'package.json')).resolve('schedctl/sandbox');
  const { startSandbox } = await import(pathToFileURL(exported).href);
  const sandbox = await startSandbox({ port: 0, rateLimit: 0 });
  try {
    const route = await cli(
      [
        'route',
        '--trigger',
        'Inbound demo request',
        '--email',
        'ada@acme.example',
        '--field',
        'company=Acme',
        '--field',
        'region=emea',
        '--slot',
        'first',
        '--yes',
        '--json',
      ],
      { extraEnv: { SCHEDCTL_BASE_URL: sandbox.baseUrl, SCHEDCTL_API_KEY: sandbox.keys.full } },
    );
    const booked = parsed(route.stdout);
    check(
      'route against the embedded sandbox',
      route.code === 0 && booked?.meeting?.id,
      `exit ${route.code}: ${route.stderr}`,
    );
  } finally {
    await sandbox.close();
  }
} catch (error) {
  console.error(`installed package check failed on Node ${process.version}: ${error.message}`);
  process.exitCode = 1;
} finally {
  rmSync(configDir, { recursive: true, force: true });
}
