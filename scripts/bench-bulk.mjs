// npm run bench:bulk: bulk work at the rate-limit floor (issue 17). Public tools only: Node, the
// built CLI (bin/schedctl.js) run as users run it, and the package's sandbox export, started
// in-process at its default limit of 30 requests per minute per key (fixed 60 s windows).
// SCHEDCTL_RATE is unset in every measured run: the CLI's default budget (30 per minute).
//
//   (a) route --from: 40 leads             (1 + 3 × 40 = 121 requests)
//   (b) reschedule --from: 60 moves        (60 requests; 30 rows by meeting id, 30 by email)
//   (c) 40 parallel `triggers ls --json` processes on one key and one config dir
//   (d) a 10,000-row route --from --dry-run: time and peak RSS
//
// The floor of n requests at 30 per minute, the first 30 free (an unused window): the last
// one may go floor((n - 1) / 30) minutes after the first. Ratio = wall time / floor. Each of
// (a)-(c) gets a fresh sandbox (a fresh server window) and a fresh config dir (a fresh budget).
//
// (b) needs 60 meetings first. They are booked through schedctl (so its local record knows the
// leads, for the rows that name a lead by email) on a preparation sandbox with the limit off,
// which writes its state to a file; the measured sandbox then starts on the same port from that
// file with the limit on. The preparation's requests are neither timed nor counted.
//
// Takes about 7 minutes. Exit 1 when a run fails or the sandbox answered any 429.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const rssHook = join(root, 'scripts/bench-rss.mjs');
const RATE = 30;
const TRIGGER = 'Inbound demo request';

const temps = [];
const tmp = (prefix) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

if (!existsSync(join(root, 'dist/cli.cjs')))
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
// The built package as it is now (bin/, dist/, package.json: what `npm pack` ships), copied
// aside: a rebuild in the work tree during these minutes must not change the CLI under test.
const pkg = tmp('schedctl-bench-bulk-pkg-');
for (const part of ['bin', 'dist', 'package.json']) cpSync(join(root, part), join(pkg, part), { recursive: true });
const bin = join(pkg, 'bin/schedctl.js');
const { startSandbox } = await import(join(pkg, 'dist/esm/sandbox.mjs'));

/** The environment of a user's shell pointed at `sandbox`, with the default rate budget. */
function envFor(sandbox, configDir, extra = {}) {
  return {
    PATH: process.env.PATH ?? '',
    HOME: configDir,
    SCHEDCTL_CONFIG_DIR: configDir,
    SCHEDCTL_BASE_URL: sandbox.baseUrl,
    SCHEDCTL_API_KEY: sandbox.keys.full,
    NO_COLOR: '1',
    TZ: 'UTC',
    ...extra,
  };
}

/** One CLI process: exit code, wall ms, output. `wrap` runs it under another program (/usr/bin/time). */
function cli(args, env, { input, wrap } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const [cmd, argv] = wrap
      ? [wrap[0], [...wrap.slice(1), process.execPath, bin, ...args]]
      : [process.execPath, [bin, ...args]];
    const child = spawn(cmd, argv, { env, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let fd3 = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdio[3].on('data', (d) => (fd3 += d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, ms: Number(process.hrtime.bigint() - started) / 1e6, stdout, stderr, fd3 }),
    );
    child.stdin.end(input ?? '');
  });
}

async function sandboxState(sandbox) {
  return (await fetch(`${sandbox.baseUrl}/_sandbox/state`)).json();
}

const floorSeconds = (requests) => (requests <= 0 ? 0 : Math.floor((requests - 1) / RATE) * 60);
const fmt = (ms) =>
  ms >= 60_000
    ? `${Math.floor(ms / 60_000)} min ${((ms % 60_000) / 1000).toFixed(1)} s`
    : `${(ms / 1000).toFixed(1)} s`;
const statusesOf = (stdout) =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{"row"'))
    .reduce((acc, l) => {
      const s = JSON.parse(l).status;
      acc[s] = (acc[s] ?? 0) + 1;
      return acc;
    }, {});

const results = [];
let failed = false;
function report(what, { requests, ms, tooMany, exits, note }) {
  const floor = floorSeconds(requests);
  const ratio = floor > 0 ? ms / 1000 / floor : Number.NaN;
  results.push({
    what,
    requests: String(requests),
    floor: fmt(floor * 1000),
    wall: fmt(ms),
    ratio: Number.isFinite(ratio) ? `${ratio.toFixed(3)}x` : '-',
    '429s': String(tooMany),
    exit: exits,
  });
  if (note) console.log(`    ${note}`);
  if (tooMany > 0) failed = true;
}
const say = (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

const leadLines = (prefix, n) => {
  const regions = ['emea', 'americas', 'apac'];
  return Array.from({ length: n }, (_, i) => `${prefix}${i + 1}@acme.example,Acme,${regions[i % 3]}`);
};

try {
  // (d) first: the quickest, and it needs no window of its own (one request).
  {
    const sandbox = await startSandbox();
    const dir = tmp('schedctl-bench-bulk-d-');
    const file = join(dir, 'big.csv');
    writeFileSync(
      file,
      `email,company,region,team_size,slot\n${Array.from({ length: 10_000 }, (_, i) => `big${i + 1}@acme.example,Acme ${i},${['emea', 'americas', 'apac'][i % 3]},11-50,first`).join('\n')}\n`,
    );
    const timeV = existsSync('/usr/bin/time') ? ['/usr/bin/time', '-v'] : undefined;
    say(
      `(d) 10,000-row route --from --dry-run (peak RSS via ${timeV ? '/usr/bin/time -v' : 'process.resourceUsage() in a preload'})`,
    );
    const env = envFor(sandbox, dir, timeV ? {} : { NODE_OPTIONS: `--import ${rssHook}` });
    const r = await cli(['route', '--from', file, '--trigger', TRIGGER, '--dry-run', '--json'], env, { wrap: timeV });
    let rssKb = Number.NaN;
    if (timeV) rssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1]);
    else rssKb = Number(r.fd3.trim());
    let plan = '';
    try {
      const doc = JSON.parse(r.stdout);
      plan = `plan: ${doc.plan.rows} rows, ${doc.plan.valid} valid, ${doc.plan.requests} requests, at least ${doc.plan.minDurationSeconds} s at ${doc.ratePerMinute}/min`;
    } catch {
      plan = `unreadable output: ${r.stdout.slice(0, 200)} ${r.stderr.slice(0, 400)}`;
    }
    if (r.code !== 0) failed = true;
    say(`    exit ${r.code}, wall ${fmt(r.ms)}, peak RSS ${(rssKb / 1024).toFixed(1)} MB; ${plan}`);
    results.push({
      what: '(d) 10,000-row --dry-run',
      requests: String((await sandboxState(sandbox)).requests.length),
      floor: '-',
      wall: fmt(r.ms),
      ratio: '-',
      '429s': '0',
      exit: `${r.code}; peak RSS ${(rssKb / 1024).toFixed(1)} MB`,
    });
    await sandbox.close();
  }

  // (c) 40 parallel one-request processes on one key.
  {
    const sandbox = await startSandbox();
    const dir = tmp('schedctl-bench-bulk-c-');
    say('(c) 40 parallel `triggers ls --json` on one key and one config dir');
    const env = envFor(sandbox, dir);
    const started = process.hrtime.bigint();
    const runs = await Promise.all(Array.from({ length: 40 }, () => cli(['triggers', 'ls', '--json'], env)));
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const state = await sandboxState(sandbox);
    const codes = runs.map((r) => r.code);
    const waited = runs.filter((r) => /waiting for the rate budget/.test(r.stderr)).length;
    if (codes.some((c) => c !== 0)) failed = true;
    const counts = new Map();
    for (const c of codes) counts.set(c, (counts.get(c) ?? 0) + 1);
    const byCode = [...counts].map(([c, n]) => `${n}× exit ${c}`).join(', ');
    say(`    exit codes: [${codes.join(' ')}]; ${waited} processes waited for the budget`);
    report('(c) 40 parallel triggers ls', {
      requests: state.requests.length,
      ms,
      tooMany: state.requests.filter((q) => q.status === 429).length,
      exits: byCode,
    });
    await sandbox.close();
  }

  // (b) 60 moves.
  {
    const dir = tmp('schedctl-bench-bulk-b-');
    const stateFile = join(dir, 'sandbox-state.json');
    say('(b) preparing 60 meetings through schedctl on a sandbox with the limit off (not measured)');
    const prep = await startSandbox({ rateLimit: 0, stateFile });
    const port = Number(new URL(prep.baseUrl).port);
    const prepEnv = envFor(prep, dir, { SCHEDCTL_RATE: '0' });
    const leads = join(dir, 'prep.csv');
    writeFileSync(leads, `email,company,region\n${leadLines('move', 60).join('\n')}\n`);
    const booked = await cli(['route', '--from', leads, '--trigger', TRIGGER, '--json'], prepEnv);
    if (booked.code !== 0) throw new Error(`preparation failed: exit ${booked.code}\n${booked.stderr}`);
    const rows = booked.stdout
      .split('\n')
      .filter((l) => l.startsWith('{"row"'))
      .map((l) => JSON.parse(l));
    // Free times of each link's host, far from the booked ones; one distinct time per meeting.
    const free = {};
    for (const [region, link] of [
      ['emea', 'sales-emea'],
      ['americas', 'sales-americas'],
      ['apac', 'sales-apac'],
    ]) {
      const s = await cli(['slots', link, '--days', '21', '--json'], prepEnv);
      if (s.code !== 0) throw new Error(`slots ${link} failed: ${s.stderr}`);
      free[region] = JSON.parse(s.stdout).slots.slice(-20);
    }
    const regions = ['emea', 'americas', 'apac'];
    const moves = rows.map((r, i) => {
      const start = free[regions[i % 3]].shift();
      return i < 30 ? `${r.meetingId},,${start}` : `,${r.key},${start}`;
    });
    const movesFile = join(dir, 'moves.csv');
    writeFileSync(movesFile, `meeting,email,start\n${moves.join('\n')}\n`);
    await prep.close();

    const sandbox = await startSandbox({ port, stateFile });
    say(`(b) reschedule --from: 60 rows on ${sandbox.baseUrl} at ${RATE}/min`);
    const r = await cli(['reschedule', '--from', movesFile, '--json'], envFor(sandbox, dir));
    const state = await sandboxState(sandbox);
    if (r.code !== 0) failed = true;
    report('(b) reschedule --from, 60 rows', {
      requests: state.requests.length,
      ms: r.ms,
      tooMany: state.requests.filter((q) => q.status === 429).length,
      exits: `exit ${r.code}; ${JSON.stringify(statusesOf(r.stdout))}`,
      note: r.code !== 0 ? r.stderr.slice(0, 500) : undefined,
    });
    await sandbox.close();
  }

  // (a) 40 routed bookings.
  {
    const sandbox = await startSandbox();
    const dir = tmp('schedctl-bench-bulk-a-');
    const file = join(dir, 'leads.csv');
    writeFileSync(file, `email,company,region\n${leadLines('lead', 40).join('\n')}\n`);
    say(`(a) route --from: 40 rows on ${sandbox.baseUrl} at ${RATE}/min`);
    const r = await cli(['route', '--from', file, '--trigger', TRIGGER, '--json'], envFor(sandbox, dir));
    const state = await sandboxState(sandbox);
    if (r.code !== 0) failed = true;
    report('(a) route --from, 40 rows', {
      requests: state.requests.length,
      ms: r.ms,
      tooMany: state.requests.filter((q) => q.status === 429).length,
      exits: `exit ${r.code}; ${JSON.stringify(statusesOf(r.stdout))}`,
      note: r.code !== 0 ? r.stderr.slice(0, 500) : undefined,
    });
    await sandbox.close();
  }
} finally {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
}

const cols = ['what', 'requests', 'floor', 'wall', 'ratio', '429s', 'exit'];
const width = (k) => Math.max(k.length, ...results.map((r) => String(r[k]).length));
const line = (r) => cols.map((k) => String(r[k]).padEnd(width(k))).join('  ');
console.log(
  `\nschedctl bench:bulk (Node ${process.version}; sandbox limit ${RATE}/min per key; default client budget; floor = floor((requests - 1) / ${RATE}) min)\n`,
);
console.log(line(Object.fromEntries(cols.map((k) => [k, k]))));
for (const r of results) console.log(line(r));
process.exitCode = failed ? 1 : 0;
