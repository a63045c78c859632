// npm run bench:team -- --fleet: a team of four machines bulk-routing the same 24 leads (each its
// own row order, config directory and run) against one sandbox at its 30 requests a minute and one
// team database, beside one machine routing them alone: the requests each sends (the sandbox's
// request log), its 409s and 429s, and one meeting per lead. Then the same four with the database
// stalled for 20 s (its processes stopped) mid-run; a run the stall stopped (exit 9) is run again,
// as a script would, until it ends. The limits (issue 53): at most 1.15x the requests one machine
// sends, no 429. Exit 1 when one is not met.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const pg = createRequire(import.meta.url)('pg');
const LEADS = 24;
const MACHINES = 4;
const STALL_AT_MS = 25_000;
const STALL_MS = 20_000;
const TRIGGER = 'Inbound demo request';

/** `cluster`: { port, data } of a running cluster (bench-team.mjs's startCluster), role `bench`. */
export async function fleet({ cluster, startSandbox, bin }) {
  const admin = new pg.Client({ host: '127.0.0.1', port: cluster.port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  const scenarios = [
    { name: 'one machine', machines: 1 },
    { name: `${MACHINES} machines`, machines: MACHINES },
    { name: `${MACHINES} machines, database stalled ${STALL_MS / 1000} s`, machines: MACHINES, stall: true },
  ];
  const rows = [];
  for (const [i, s] of scenarios.entries()) {
    await admin.query(`CREATE DATABASE fleet_${i} OWNER bench`);
    rows.push({ ...s, ...(await runScenario(s, i)) });
  }
  await admin.end();

  async function runScenario(s, n) {
    const sandbox = await startSandbox({});
    const url = `postgres://bench@127.0.0.1:${cluster.port}/fleet_${n}`;
    const emails = Array.from({ length: LEADS }, (_, i) => `fleet-${n}-${i + 1}@acme.example`);
    const dirs = [];
    const started = Date.now();
    let stall;
    if (s.stall) stall = setTimeout(() => stallDatabase(cluster.data, STALL_MS), STALL_AT_MS);
    let reruns = 0;
    const machine = async (m) => {
      const dir = mkdtempSync(join(tmpdir(), `schedctl-fleet-${n}-${m}-`));
      dirs.push(dir);
      // Each machine its own order: the same leads, rotated and every other one reversed.
      const order = emails.map((_, i) => emails[(i + m * 6) % LEADS]);
      if (m % 2) order.reverse();
      const file = join(dir, 'leads.csv');
      writeFileSync(file, `email,company,region\n${order.map((e) => `${e},Acme,emea`).join('\n')}\n`);
      const env = {
        PATH: process.env.PATH,
        HOME: dir,
        SCHEDCTL_CONFIG_DIR: dir,
        SCHEDCTL_BASE_URL: sandbox.baseUrl,
        SCHEDCTL_API_KEY: sandbox.keys.full,
        SCHEDCTL_STATE_URL: url,
        NO_COLOR: '1',
      };
      for (let tries = 1; ; tries++) {
        const code = await run(bin, env, ['route', '--file', file, '--trigger', TRIGGER, '--json']);
        if (code === 0) return;
        if (code !== 9 || tries === 5) throw new Error(`machine ${m + 1}: route --file exited ${code}`);
        reruns++;
      }
    };
    try {
      await Promise.all(Array.from({ length: s.machines }, (_, m) => machine(m)));
    } finally {
      clearTimeout(stall);
    }
    const state = await (await fetch(`${sandbox.baseUrl}/_sandbox/state`)).json();
    await sandbox.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    const perLead = new Map();
    for (const m of state.meetings) perLead.set(m.personEmail, (perLead.get(m.personEmail) ?? 0) + 1);
    const requests = state.requests.filter((q) => q.path.startsWith('/v1/'));
    return {
      requests: requests.length,
      taken: requests.filter((q) => q.status === 409).length,
      limited: requests.filter((q) => q.status === 429).length,
      onePerLead: emails.every((e) => perLead.get(e) === 1) && state.meetings.length === LEADS,
      seconds: (Date.now() - started) / 1000,
      reruns,
    };
  }

  const alone = rows[0].requests;
  console.log(
    `schedctl bench:team --fleet (Node ${process.version}): ${LEADS} leads, one link, 30 requests a minute\n`,
  );
  const head = ['scenario', 'requests', 'x one machine', '409', '429', 'one meeting per lead', 'runs again', 'wall s'];
  const table = rows.map((r) => [
    r.name,
    String(r.requests),
    (r.requests / alone).toFixed(2),
    String(r.taken),
    String(r.limited),
    r.onePerLead ? 'yes' : 'NO',
    String(r.reruns),
    r.seconds.toFixed(0),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
  for (const line of [head, ...table]) console.log(line.map((c, i) => c.padEnd(widths[i])).join('  '));
  const met = rows.every((r) => r.onePerLead && r.limited === 0 && r.requests <= 1.15 * alone);
  console.log(
    `\nlimits (at most 1.15x one machine's requests, no 429, one meeting per lead): ${met ? 'met' : 'NOT met'}`,
  );
  return met ? 0 : 1;
}

/** One schedctl run to its end: its exit code (the sandbox's log is the figure); a failed row is printed. */
function run(bin, env, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      for (const line of out.split('\n')) if (line.includes('"status":"failed"')) console.error(line);
      if (code !== 0 && process.env.BENCH_VERBOSE) console.error(`exit ${code}: ${err}`);
      resolve(code);
    });
  });
}

/** The database's processes stopped for `ms` (the postmaster and every backend): a stall, not a restart. */
function stallDatabase(data, ms) {
  const postmaster = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0];
  const signal = (sig) => {
    spawnSync('pkill', [`-${sig}`, '-P', postmaster]);
    process.kill(Number(postmaster), `SIG${sig}`);
  };
  signal('STOP');
  setTimeout(() => signal('CONT'), ms);
}
