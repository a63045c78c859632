// `npm run demo`: the routed booking end to end against a local sandbox. No account, no key
// setup, no network: an in-process sandbox on a free port, the built CLI as a subprocess (the
// way a script runs it), then the four API requests it made and the booked meeting.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const bold = (s) => (color ? `\x1b[1m${s}\x1b[22m` : s);
const dim = (s) => (color ? `\x1b[2m${s}\x1b[22m` : s);
const green = (s) => (color ? `\x1b[32m${s}\x1b[39m` : s);
const say = (line = '') => process.stdout.write(`${line}\n`);

if (!existsSync(join(root, 'dist/cli.cjs')) || !existsSync(join(root, 'dist/esm/sandbox.mjs'))) {
  say(dim('dist/ is missing: building first (node scripts/build.mjs)'));
  const built = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const { startSandbox } = await import(join(root, 'dist/esm/sandbox.mjs'));
const sandbox = await startSandbox({ port: 0, rateLimit: 0 });
const configDir = mkdtempSync(join(tmpdir(), 'schedctl-demo-'));
let exitCode = 1;
try {
  exitCode = await demo();
} catch (error) {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  await sandbox.close();
  rmSync(configDir, { recursive: true, force: true });
}
process.exit(exitCode);

async function demo() {
  const lead = { email: 'ada@acme.example', company: 'Acme', region: 'emea' };
  const args = [
    'route',
    '--trigger',
    'Inbound demo request',
    '--email',
    lead.email,
    '--field',
    `company=${lead.company}`,
    '--field',
    `region=${lead.region}`,
    '--slot',
    'first',
    '--yes',
    '--json',
    '--tz',
    'UTC',
  ];
  say(bold('schedctl demo: a routed booking against a local sandbox'));
  say(dim(`sandbox ${sandbox.baseUrl} (in-process, seeded workspace, demo key in the environment only)`));
  say();
  say(`Lead: ${lead.email}, company ${lead.company}, region ${lead.region}`);
  say(`Run:  schedctl ${args.map(quote).join(' ')}`);
  say();

  const run = await runCli(args, {
    ...process.env,
    SCHEDCTL_BASE_URL: sandbox.baseUrl,
    SCHEDCTL_API_KEY: sandbox.keys.full,
    SCHEDCTL_CONFIG_DIR: configDir,
    SCHEDCTL_NO_INPUT: '1',
    NO_COLOR: '1',
  });
  if (run.code !== 0) {
    say(`schedctl exited ${run.code}`);
    process.stderr.write(run.stderr);
    process.stdout.write(run.stdout);
    return run.code ?? 1;
  }
  const doc = JSON.parse(run.stdout);
  const state = await (await fetch(`${sandbox.baseUrl}/_sandbox/state`)).json();
  const reservation = state.reservations.find((r) => r.id === doc.reservationId);
  const returned = [
    `the triggers and their form fields; "${doc.trigger.name}" is ${doc.trigger.id}`,
    `workflow run ${doc.executionId}, outcome ${doc.outcome.type}: book through link ${doc.schedulingLinkId}`,
    `reservation ${doc.reservationId}${reservation ? ` (held until ${reservation.expiresAt})` : ''}; first free time ${doc.startTime}`,
    `meeting ${doc.meeting?.id} (${doc.meeting?.status})`,
  ];
  say(bold(`The API requests schedctl made (${state.requests.length}):`));
  state.requests.forEach((r, i) => {
    say(`  ${i + 1}. ${r.method.padEnd(4)} ${r.path}  ${r.status === null ? 'no answer' : green(String(r.status))}`);
    if (returned[i]) say(dim(`     returned ${returned[i]}`));
  });
  const m = doc.meeting;
  say();
  say(bold('Booked:'));
  say(`  ${m.title}`);
  say(`  ${m.date} (UTC), ${m.duration} min, ${m.conferencingType}${m.meetingLink ? ` ${m.meetingLink}` : ''}`);
  say(`  lead ${m.personEmail}; linked to workflow run ${doc.executionId}`);
  say();
  // Runnable as printed in a fresh clone: `node bin/schedctl.js` there is the checkout's own CLI at
  // the CLI's own start-up cost (`npx schedctl` adds npm's start, 1.7-4 s a call), and the
  // sandbox's profile makes the wizard work without a key (test/e2e/readme-recipes.test.ts).
  say(dim('Next: try it by hand, step by step, in this checkout:'));
  say(dim('  node bin/schedctl.js sandbox --profile sandbox   # terminal 1: a sandbox on 127.0.0.1:4010'));
  say(dim('  node bin/schedctl.js --profile sandbox route     # terminal 2: the routed booking wizard'));
  return 0;
}

function runCli(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin/schedctl.js'), ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function quote(word) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
