// npm run bench:team: the round trips a command makes to a team database, as a network would show
// them. A throwaway PostgreSQL (the machine's binaries, like test/helpers/postgres.ts) is reached
// through a TCP forwarder (scripts/pg-forwarder.mjs) that delays each chunk D ms each way; the
// embedded sandbox (the API) is reached directly, so its latency stays out of the figure. For each
// command, runs at D = 0 and D = 25 alternate, and
//   round trips (timed)   = (fastest run at D=25 - fastest at D=0) / 50 ms: what the command waits for;
//   round trips (counted) = the forwarder's count at D=25 (client flights not overlapping another
//                           connection's, connection set-up included, TCP's own handshake not);
// in two modes: trust authentication without TLS, and TLS (verify-full, the self-signed
// test/fixtures/tls-localhost certificate) with a SCRAM password. Beside them, the loopback times:
// the command straight to the server (no forwarder) and on local state.
//   BENCH_RUNS (default 7): runs per command, delay and mode.  BENCH_DELAY_MS (default 25).
// `npm run bench:team -- --fleet`: four machines bulk-routing the same leads instead (bench-fleet.mjs).
import { spawn, spawnSync } from 'node:child_process';
import {
  chownSync,
  chmodSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
  appendFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startForwarder } from './pg-forwarder.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const D = Number(process.env.BENCH_DELAY_MS ?? 25);
const bin = join(root, 'bin/schedctl.js');
const pg = createRequire(import.meta.url)('pg');
const TRIGGER = 'Inbound demo request';
const PASSWORD = "bench 'pw' \\ ü";

if (!existsSync(join(root, 'dist/cli.cjs'))) {
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(1);
}
const { startSandbox } = await import(join(root, 'dist/esm/sandbox.mjs'));

/** The PostgreSQL server binaries: SCHEDCTL_TEST_PG_BIN, else the newest /usr/lib/postgresql/N/bin, else PATH. */
function pgBin() {
  const has = (d) => ['initdb', 'pg_ctl', 'postgres'].every((b) => existsSync(join(d, b)));
  if (process.env.SCHEDCTL_TEST_PG_BIN) return process.env.SCHEDCTL_TEST_PG_BIN;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const v = readdirSync(debian)
      .filter((n) => has(join(debian, n, 'bin')))
      .sort((a, b) => Number(b) - Number(a))[0];
    if (v) return join(debian, v, 'bin');
  }
  const dir = (process.env.PATH ?? '').split(':').find((d) => d && has(d));
  if (dir) return dir;
  throw new Error(
    'no PostgreSQL server binaries (initdb, pg_ctl, postgres): install postgresql or set SCHEDCTL_TEST_PG_BIN',
  );
}

/** A throwaway cluster: trust for `bench`, SCRAM over TLS only for `bench_pw`; TLS on. As root, run as `postgres`. */
async function startCluster() {
  const bin = pgBin();
  const asRoot = process.getuid?.() === 0;
  const id = (f) => Number(spawnSync('id', [f, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const runAs = asRoot ? { uid: id('-u'), gid: id('-g') } : {};
  const dir = mkdtempSync(join('/tmp', 'schedctl-bench-pg-'));
  chmodSync(dir, 0o755);
  if (asRoot) chownSync(dir, runAs.uid, runAs.gid);
  const data = join(dir, 'data');
  const env = { PATH: process.env.PATH, HOME: dir, LANG: 'C', LC_ALL: 'C' };
  const sh = (file, args) => {
    const r = spawnSync(join(bin, file), args, { cwd: dir, env, encoding: 'utf8', ...runAs });
    if (r.status !== 0) throw new Error(`${file} ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  };
  sh('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  for (const ext of ['crt', 'key']) {
    const to = join(data, `server.${ext}`);
    copyFileSync(join(root, `test/fixtures/tls-localhost.${ext}`), to);
    chmodSync(to, 0o600);
    if (asRoot) chownSync(to, runAs.uid, runAs.gid);
  }
  writeFileSync(
    join(data, 'pg_hba.conf'),
    [
      'local all all trust',
      'hostssl all bench_pw 127.0.0.1/32 scram-sha-256',
      'host all bench 127.0.0.1/32 trust',
      'host all postgres 127.0.0.1/32 trust',
      '',
    ].join('\n'),
  );
  const port = 20000 + Math.floor(Math.random() * 20000);
  appendFileSync(
    join(data, 'postgresql.conf'),
    [
      '',
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      'ssl = on',
      "password_encryption = 'scram-sha-256'",
      '',
    ].join('\n'),
  );
  const stop = () =>
    spawnSync(join(bin, 'pg_ctl'), ['-D', data, 'stop', '-m', 'immediate', '-w'], { env, stdio: 'ignore', ...runAs });
  process.on('exit', () => {
    stop();
    rmSync(dir, { recursive: true, force: true });
  });
  sh('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', 'start']);
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  await admin.query('CREATE ROLE bench LOGIN');
  await admin.query(`CREATE ROLE bench_pw LOGIN IN ROLE bench PASSWORD ${admin.escapeLiteral(PASSWORD)}`);
  await admin.query('CREATE DATABASE bench OWNER bench');
  await admin.end();
  return { port, data };
}

/** One schedctl run: wall ms and its output; a failure stops the bench with what it printed. */
function cli(env, args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) return reject(new Error(`schedctl ${args.join(' ')} exited ${code}\n${out}\n${err}`));
      resolve({ ms, out });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const cluster = await startCluster();
if (process.argv.includes('--fleet')) {
  const { fleet } = await import('./bench-fleet.mjs');
  process.exit(await fleet({ cluster, startSandbox, bin }));
}
const trustFwd = await startForwarder({ host: '127.0.0.1', port: cluster.port });
const tlsFwd = await startForwarder({ host: '127.0.0.1', port: cluster.port, listenHost: 'localhost' });
const sandbox = await startSandbox({ rateLimit: 0 });
const configDir = mkdtempSync(join(tmpdir(), 'schedctl-bench-team-'));
const base = { PATH: process.env.PATH, HOME: configDir, SCHEDCTL_CONFIG_DIR: configDir, NO_COLOR: '1' };
const tlsQuery = `?sslmode=verify-full&sslrootcert=${join(root, 'test/fixtures/tls-localhost.crt')}`;
const modes = {
  trust: {
    fwd: trustFwd,
    env: (port) => ({ ...base, SCHEDCTL_STATE_URL: `postgres://bench@127.0.0.1:${port}/bench` }),
  },
  'TLS + SCRAM': {
    fwd: tlsFwd,
    env: (port) => ({
      ...base,
      SCHEDCTL_STATE_URL: `postgres://bench_pw@localhost:${port}/bench${tlsQuery}`,
      PGPASSWORD: PASSWORD,
    }),
  },
};
const localEnv = { ...base, SCHEDCTL_STATE_URL: 'local' };
const directEnv = modes.trust.env(cluster.port);

await new Promise((resolve, reject) => {
  const child = spawn(
    process.execPath,
    [
      bin,
      'profile',
      'add',
      'bench',
      '--default',
      '--key-stdin',
      '--no-verify',
      '--rate',
      '100000',
      '--base-url',
      sandbox.baseUrl,
    ],
    { env: localEnv, stdio: ['pipe', 'ignore', 'inherit'] },
  );
  child.stdin.end(sandbox.keys.full);
  child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`profile add exited ${code}`))));
});

const tag = Date.now().toString(36);
let leads = 0;
const newLead = () => `bench-${tag}-${++leads}@acme.example`;
const routeArgs = (email) => [
  ...['route', '--trigger', TRIGGER, '--email', email, '--field', 'company=Acme', '--field', 'region=emea'],
  ...['--slot', 'first', '--yes', '--json', '--days', '63'],
];
// Free times to move meetings to, far from the ones route takes (the first free ones).
let freeTimes = [];
async function freeTime(env) {
  if (freeTimes.length === 0) {
    const booked = JSON.parse((await cli(env, routeArgs(newLead()))).out);
    const slots = JSON.parse((await cli(env, ['slots', booked.schedulingLinkId, '--days', '60', '--json'])).out).slots;
    freeTimes = slots.slice(Math.floor(slots.length / 2)).reverse();
  }
  return freeTimes.pop();
}

/**
 * The commands measured. `prepare(env)` runs untimed before each run (on the same state) and
 * returns the arguments to time.
 */
const commands = [
  { name: 'route of a new lead', limit: 6, prepare: async () => routeArgs(newLead()) },
  {
    name: 'meetings ls --email',
    limit: 3,
    prepare: async (env) => {
      const email = newLead();
      await cli(env, routeArgs(email));
      return ['meetings', 'ls', '--email', email, '--json'];
    },
  },
  {
    name: 'reschedule --email (whole)',
    limit: undefined,
    prepare: async (env) => {
      const email = newLead();
      await cli(env, routeArgs(email));
      return ['reschedule', '--email', email, '--start', await freeTime(env), '--tz', 'UTC', '--json'];
    },
  },
  { name: 'triggers ls --json', limit: 3, prepare: async () => ['triggers', 'ls', '--json'] },
  // No request to the API, no ledger: no budget to draw, nothing to ask the database.
  { name: 'profile ls --json', limit: 0, prepare: async () => ['profile', 'ls', '--json'] },
];

const results = [];
try {
  // Warm-up: the schema made, the client's code cache written, each mode connected once.
  for (const mode of Object.values(modes)) await cli(mode.env(mode.fwd.port), ['state', 'status', '--json']);
  if (process.env.BENCH_TRACE) {
    // What each round trip of one run carried, at D ms (no timing): BENCH_TRACE=tls for TLS + SCRAM.
    const mode = process.env.BENCH_TRACE === 'tls' ? modes['TLS + SCRAM'] : modes.trust;
    const env = mode.env(mode.fwd.port);
    await cli(env, routeArgs(newLead())); // one-time steps of a config directory done first
    for (const c of commands) {
      const args = await c.prepare(env);
      mode.fwd.state.delayMs = D;
      mode.fwd.state.trace = [];
      mode.fwd.reset();
      await cli(env, args);
      mode.fwd.state.delayMs = 0;
      console.log(`\n${c.name}: ${mode.fwd.state.waits} waits\n  ${mode.fwd.state.trace.join('\n  ')}`);
    }
    process.exit(0);
  }
  for (const c of commands) {
    const loop = { local: [], direct: [] };
    for (let i = 0; i < RUNS; i++) {
      loop.local.push((await cli(localEnv, await c.prepare(localEnv))).ms);
      loop.direct.push((await cli(directEnv, await c.prepare(directEnv))).ms);
    }
    for (const [modeName, mode] of Object.entries(modes)) {
      const env = mode.env(mode.fwd.port);
      const at = { 0: [], [D]: [] };
      const counted = [];
      const connections = [];
      for (let i = 0; i < RUNS; i++) {
        for (const d of i % 2 === 0 ? [0, D] : [D, 0]) {
          mode.fwd.state.delayMs = 0;
          const args = await c.prepare(env);
          mode.fwd.state.delayMs = d;
          mode.fwd.reset();
          at[d].push((await cli(env, args)).ms);
          if (d === D) {
            counted.push(mode.fwd.state.waits);
            connections.push(mode.fwd.state.connections);
          }
        }
      }
      mode.fwd.state.delayMs = 0;
      // The fastest run at each delay: load on the machine only ever adds time, a network's wait does not vary.
      const timed = (Math.min(...at[D]) - Math.min(...at[0])) / (2 * D);
      results.push({
        command: c.name,
        mode: modeName,
        timed,
        counted: median(counted),
        connections: median(connections),
        limit: modeName === 'trust' ? c.limit : undefined,
        loopback:
          modeName === 'trust'
            ? `${median(loop.direct).toFixed(0)} ms (local ${median(loop.local).toFixed(0)} ms)`
            : '',
      });
    }
  }
} finally {
  await sandbox.close();
  await trustFwd.close();
  await tlsFwd.close();
  rmSync(configDir, { recursive: true, force: true });
}

const rows = results.map((r) => ({
  command: r.command,
  mode: r.mode,
  timed: r.timed.toFixed(1),
  counted: String(r.counted),
  connections: String(r.connections),
  limit: r.limit === undefined ? '-' : `<= ${r.limit}`,
  // Judged by the count: the timed figure moves with the machine's load (±2 on a shared one).
  met: r.limit === undefined ? '-' : r.counted <= r.limit ? 'yes' : 'NO',
  loopback: r.loopback,
}));
const cols = ['command', 'mode', 'timed', 'counted', 'connections', 'limit', 'met', 'loopback'];
const head = {
  command: 'command',
  mode: 'auth',
  timed: 'round trips (timed)',
  counted: 'counted',
  connections: 'connections',
  limit: 'limit',
  met: 'met',
  loopback: 'loopback: team state (local state)',
};
const width = (k) => Math.max(head[k].length, ...rows.map((r) => r[k].length));
const line = (r) => cols.map((k) => r[k].padEnd(width(k))).join('  ');
console.log(
  `schedctl bench:team (Node ${process.version}, ${RUNS} runs each, ${D} ms each way = ${2 * D} ms a round trip)\n`,
);
console.log(line(head));
for (const r of rows) console.log(line(r));
for (const c of commands) {
  const [t, s] = ['trust', 'TLS + SCRAM'].map((m) => results.find((r) => r.command === c.name && r.mode === m));
  if (t && s)
    console.log(
      `TLS + SCRAM adds to ${c.name}: ${(s.timed - t.timed).toFixed(1)} round trips timed, ${s.counted - t.counted} counted`,
    );
}
process.exitCode = rows.every((r) => r.met !== 'NO') ? 0 : 1;
