// npm run bench:ledger: what a command costs as the ledger grows. For each size N (default 0,
// 10000, 100000, 1000000 past meetings, with one attempt per three meetings, a fire per three of
// the last 90 days' meetings (older ones are pruned as new ones are written) and a move per ten),
// a config directory is seeded straight into its tables, then each command runs BENCH_RUNS times
// (default 15) against an embedded sandbox without a rate limit; the table gives the median wall
// time and peak RSS, and their ratio to the first size (paired run by run). With
// BENCH_STATE_URL=postgres://… the same on a team state: a database per size beside that one
// (`<name>_n<size>`, made anew: the role needs CREATEDB), paired run by run as on local state.
//   node scripts/bench-ledger.mjs [sizes, e.g. 0,100000]
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const SIZES = (process.argv[2]?.startsWith('--') ? '' : (process.argv[2] ?? '0,10000,100000,1000000'))
  .split(',')
  .map(Number);
const STATE_URL = process.env.BENCH_STATE_URL;
const bin = join(root, 'bin/schedctl.js');
const rssHook = join(root, 'scripts/bench-rss.mjs');
const TRIGGER = 'Inbound demo request';

if (!existsSync(join(root, 'dist/cli.cjs')))
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
const { startSandbox } = await import(join(root, 'dist/esm/sandbox.mjs'));

/** Seeds in a process of its own: this one serves the sandbox, whose event loop a long seed would block. */
function seedElsewhere(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], {
      stdio: 'inherit',
      env: process.env,
    });
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`seeding exited ${code}`))));
  });
}
const pg = STATE_URL ? createRequire(import.meta.url)('pg') : undefined;
/** A sandbox per size: the sizes' meetings never compete for one host's times. */
const sandboxes = [];

/** One schedctl run: wall ms and peak RSS (MB), or a failure with what it printed. */
function cli(env, args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', rssHook, bin, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let rss = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.stdio[3].on('data', (d) => (rss += d));
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) return reject(new Error(`schedctl ${args.join(' ')} exited ${code}\n${out}\n${err}`));
      resolve({ ms, rssMb: Number(rss.trim()) / 1024, out });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The team database of size n: BENCH_STATE_URL's server, a database of its own (dropped and made anew). */
async function teamDatabase(n) {
  const url = new URL(STATE_URL);
  const name = `${url.pathname.slice(1) || 'schedctl'}_n${n}`;
  const c = new pg.Client({ connectionString: STATE_URL });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS "${name}"`);
  await c.query(`CREATE DATABASE "${name}"`);
  await c.end();
  url.pathname = `/${name}`;
  return url.toString();
}

async function setUp(n) {
  const dir = mkdtempSync(join(tmpdir(), `schedctl-ledger-${n}-`));
  const stateUrl = pg ? await teamDatabase(n) : undefined;
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    SCHEDCTL_CONFIG_DIR: dir,
    NO_COLOR: '1',
    ...(stateUrl ? { SCHEDCTL_STATE_URL: stateUrl } : {}),
  };
  const add = ['profile', 'add', 'bench', '--default', '--key-stdin', '--no-verify', '--rate', '100000'];
  const sandbox = await startSandbox({ rateLimit: 0 });
  sandboxes.push(sandbox);
  execFileSync(process.execPath, [bin, ...add, '--base-url', sandbox.baseUrl], {
    env,
    input: sandbox.keys.full,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  // Real bookings first: the tables exist, and a meeting the sandbox knows (to move) is on record.
  await cli(env, [...routeArgs('first@bench.example')]);
  const offered = JSON.parse((await cli(env, ['slots', 'intro-call', '--json', '--days', '14'])).out);
  const meeting = JSON.parse(
    (
      await cli(env, [
        'book',
        'intro-call',
        '--start',
        offered.slots.at(-1),
        '--reservation',
        offered.reservationId,
        '--email',
        'kept@bench.example',
        '--json',
      ])
    ).out,
    // The booking result document (docs/json-output.md): the API's Meeting is its `meeting`.
  ).meeting;
  const workspace = await workspaceOf(dir, stateUrl);
  const t0 = Date.now();
  // In a process of its own: this one serves the sandbox, whose event loop a long seed would block.
  if (n > 0)
    await seedElsewhere(
      pg
        ? ['--seed-team', stateUrl, workspace, String(n)]
        : ['--seed-local', join(dir, 'ledger.db'), workspace, String(n)],
    );
  const seedSeconds = (Date.now() - t0) / 1000;
  // Moves go back and forth between its time and another its host is free at (found by trying,
  // from the last times offered: routes take the first ones).
  let other;
  for (const candidate of offered.slots.slice(-40, -1).reverse()) {
    const moved = await cli(env, ['reschedule', meeting.id, '--start', candidate, '--json']).catch(() => undefined);
    if (moved) {
      other = candidate;
      break;
    }
  }
  if (!other) throw new Error('no time to move the meeting to');
  return { env, meeting, free: [meeting.date, other], seedSeconds };
}

async function workspaceOf(dir, stateUrl) {
  if (pg) {
    const c = new pg.Client({ connectionString: stateUrl });
    await c.connect();
    const r = await c.query('SELECT workspace FROM schedctl_meetings LIMIT 1');
    await c.end();
    return r.rows[0].workspace;
  }
  const db = new DatabaseSync(join(dir, 'ledger.db'), { readOnly: true });
  const w = db.prepare('SELECT workspace FROM schedctl_meetings LIMIT 1').get().workspace;
  db.close();
  return w;
}

/** N past meetings, their attempts (one per three), fires (one per three) and moves (one per ten): rows as schedctl writes them. */
function* records(workspace, n) {
  const now = Date.now();
  const leads = Math.max(1, Math.floor(n / 3));
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    const email = `past${i % leads}@seed.example`;
    const start = now - (i + 2) * 3_600_000;
    const date = new Date(start).toISOString();
    const meeting = {
      id,
      eventId: '11111111-1111-4111-8111-111111111111',
      title: 'Intro call',
      status: 'scheduled',
      date,
      duration: 30,
      meetingLink: null,
      conferencingType: 'zoom',
      location: null,
      personEmail: email,
      additionalAttendees: [],
      cancellationReason: null,
      createdAt: date,
      updatedAt: date,
      scope: workspace,
      source: 'booked',
      recordedAt: date,
      event: 'intro-call',
      bookedBy: 'seed@bench',
      history: i % 10 === 0 ? [{ from: date, to: date, at: date, by: 'seed@bench' }] : [],
    };
    yield [
      'meetings',
      [
        workspace,
        id,
        email,
        start,
        start + 1_800_000,
        'scheduled',
        null,
        'intro-call',
        meeting.eventId,
        JSON.stringify(meeting),
      ],
    ];
    if (i % 3 === 0) {
      const attempt = {
        id: randomUUID(),
        scope: workspace,
        event: 'intro-call',
        reservationId: randomUUID(),
        workflowExecutionId: null,
        personEmail: email,
        startTime: date,
        attemptedAt: date,
        outcome: 'booked',
        meetingId: id,
        sentAt: date,
        updatedAt: date,
      };
      yield [
        'attempts',
        [
          attempt.id,
          workspace,
          email,
          attempt.reservationId,
          null,
          id,
          'booked',
          1,
          start,
          start,
          JSON.stringify(attempt),
        ],
      ];
      const fire = {
        id: randomUUID(),
        scope: workspace,
        triggerId: 't-seed',
        personEmail: email,
        answersKey: 'k',
        preparedAt: date,
        state: 'answered',
        executionId: randomUUID(),
        outcomeType: 'scheduler',
      };
      // Fires over 90 days old are pruned as each new one is written: a ledger in use holds none.
      if (now - start < 90 * 86_400_000)
        yield [
          'fires',
          [fire.id, workspace, email, 't-seed', 'answered', fire.executionId, start, JSON.stringify(fire)],
        ];
    }
  }
}

const COLUMNS = {
  meetings: 'workspace, id, lead, start_ms, over_ms, status, trigger_id, event, event_id, body',
  attempts: 'id, workspace, lead, reservation_id, execution_id, meeting_id, outcome, sent, start_ms, touched_ms, body',
  fires: 'id, workspace, lead, trigger_id, state, execution_id, prepared_ms, body',
};
const insertSql = (table, rows = 1) => {
  const n = COLUMNS[table].split(',').length;
  const one = `(${Array.from({ length: n }, () => '?').join(', ')})`;
  return `INSERT INTO schedctl_${table} (${COLUMNS[table]}) VALUES ${Array.from({ length: rows }, () => one).join(', ')}`;
};

function seedLocal(path, workspace, n) {
  const db = new DatabaseSync(path);
  const stmts = Object.fromEntries(Object.keys(COLUMNS).map((t) => [t, db.prepare(insertSql(t))]));
  db.exec('BEGIN');
  for (const [table, values] of records(workspace, n)) stmts[table].run(...values);
  db.exec('COMMIT');
  db.close();
}

async function seedTeam(url, workspace, n) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const batch = { meetings: [], attempts: [], fires: [] };
  const flush = async (table) => {
    const rows = batch[table];
    if (!rows.length) return;
    let k = 0;
    const text = insertSql(table, rows.length).replace(/\?/g, () => `$${++k}`);
    await c.query(text, rows.flat());
    batch[table] = [];
  };
  await c.query('BEGIN');
  for (const [table, values] of records(workspace, n)) {
    batch[table].push(values);
    if (batch[table].length >= 500) await flush(table);
  }
  for (const t of Object.keys(batch)) await flush(t);
  await c.query('COMMIT');
  await c.query('ANALYZE');
  await c.end();
}

const routeArgs = (email) => [
  'route',
  '--trigger',
  TRIGGER,
  '--email',
  email,
  '--field',
  'company=Acme',
  '--field',
  'region=emea',
  '--slot',
  'first',
  '--yes',
  '--json',
  '--days',
  '14',
];

/** Each measured command: its argv for run i (a new lead where it books). */
function commands(s) {
  let flip = 0;
  const nextFree = () => s.free[flip++ % 2];
  return {
    'route (new lead)': (i) => [
      'route',
      '--trigger',
      TRIGGER,
      '--email',
      `new${i}-${randomUUID().slice(0, 8)}@bench.example`,
      '--field',
      'company=Acme',
      '--field',
      'region=emea',
      '--slot',
      'first',
      '--yes',
      '--json',
      '--days',
      '14',
    ],
    // A new lead booked with a time and reservation from a `slots` call made just before (not timed).
    book: async (i) => {
      const offered = JSON.parse((await cli(s.env, ['slots', 'intro-call', '--json', '--days', '14'])).out);
      return [
        'book',
        'intro-call',
        '--start',
        offered.slots[0],
        '--reservation',
        offered.reservationId,
        '--email',
        `book${i}-${randomUUID().slice(0, 8)}@bench.example`,
        '--json',
      ];
    },
    'reschedule <id>': () => ['reschedule', s.meeting.id, '--start', nextFree(), '--json'],
    'reschedule --email': () => ['reschedule', '--email', 'kept@bench.example', '--start', nextFree(), '--json'],
    'meetings ls --email': () => ['meetings', 'ls', '--email', 'past1@seed.example', '--all', '--json'],
    'meetings ls': () => ['meetings', 'ls', '--json'],
  };
}

if (process.argv[2] === '--seed-local') seedLocal(process.argv[3], process.argv[4], Number(process.argv[5]));
else if (process.argv[2] === '--seed-team') await seedTeam(process.argv[3], process.argv[4], Number(process.argv[5]));
else await measure();

async function measure() {
  const results = new Map();
  const runs = async (s, n, what, argv, i) => {
    const r = await cli(s.env, await argv(i));
    if (i === 0) return; // warm-up
    const held = results.get(`${what}@${n}`) ?? { ms: [], rss: [] };
    held.ms.push(r.ms);
    held.rss.push(r.rssMb);
    results.set(`${what}@${n}`, held);
  };
  try {
    // A config directory (and, for a team state, a database) per size, runs paired: N=0, N=…,
    // N=0, … (machine noise hits every size alike).
    const sets = [];
    for (const n of SIZES) {
      const s = await setUp(n);
      console.error(`N=${n}: seeded in ${s.seedSeconds.toFixed(1)} s${STATE_URL ? ' (team state)' : ''}`);
      sets.push([n, s, commands(s)]);
    }
    for (const what of Object.keys(sets[0][2]))
      for (let i = 0; i < RUNS + 1; i++) for (const [n, s, cmds] of sets) await runs(s, n, what, cmds[what], i);
  } finally {
    await Promise.all(sandboxes.map((sb) => sb.close()));
  }
  const summary = new Map();
  for (const [key, r] of results) {
    // Per pair: run i of size N over run i of the first size.
    const [what] = key.split('@');
    const base = results.get(`${what}@${SIZES[0]}`);
    const ratios = r.ms.map((ms, i) => ms / base.ms[i]);
    summary.set(key, { ms: median(r.ms), rss: median(r.rss), ratio: median(ratios), rssBase: median(base.rss) });
  }

  const base = SIZES[0];
  const rows = [['command', ...SIZES.map((n) => `N=${n}`)]];
  for (const what of Object.keys(commands({ free: [], meeting: {} }))) {
    rows.push([
      what,
      ...SIZES.map((n) => {
        const r = summary.get(`${what}@${n}`);
        const ratio = n === base ? '' : ` (${r.ratio.toFixed(2)}x, rss ${(r.rss / r.rssBase).toFixed(2)}x)`;
        return `${r.ms.toFixed(0)} ms, ${r.rss.toFixed(0)} MB${ratio}`;
      }),
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
  console.log(
    `\nmedian of ${RUNS} runs each (ratios: median of paired ratios to N=${base}), ${STATE_URL ? 'team state' : 'local SQLite'}; Node ${process.version}`,
  );
}
