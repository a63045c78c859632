/**
 * The parallel-process campaign: "never a second booking" across parallel scripts, crashes
 * and re-runs. At least 200 routed bookings (`schedctl route … --slot first --yes --json`),
 * one lead each, run by 8 concurrent schedctl processes sharing ONE config dir (profiles,
 * journal, outcomes, meetings record: locked read-modify-writes), while at random the sandbox
 * loses booking answers (drop-after-commit), stalls them (stall-after-commit, --timeout 1),
 * answers 500 on any of the four routes, and the test SIGKILLs processes: 30–1500 ms after
 * they start, or (through a gate in front of the sandbox, test/helpers/parallel-gate.ts) at
 * the booking itself, whatever the machine's speed: while the request is in flight (the
 * server then books it, or never sees it) or just after its answer came back (while the
 * outcome is being recorded). Then the hold lapses (sandbox clock) and every lead's command is run again, in
 * parallel too, with each form of --slot: `first`, the ISO time of the lead's meeting, and
 * that instant as a local time with --tz UTC (leads whose meeting already exists get the three
 * forms in a random order, so an explicit time may come first).
 *
 * After the slot forms, each lead is tried the ways that used to book a second meeting: its
 * route with other answers, and `book` of its meeting's event by its uuid (not the link it was
 * routed with), both through a profile whose base URL spells the same API another way
 * (`http://LOCALHOST:<port>/`): the ledger is one per workspace, so these are refused
 * (LEAD_HAS_MEETING) or answered already booked, never booked. A lead whose first booking got an
 * explicit 500 and whose re-sent attempt then met RESERVATION_EXPIRED stays "outcome unknown"
 * (exit 7, never already_booked); the campaign then books it with --rebook, as a user would.
 *
 * Seeded: the seed is printed and FAULT_SEED=<n> replays the same plan (faults, kills, order);
 * process timing still varies. FAULT_RUNS=<n> changes the number of leads.
 *
 * Invariants, through /_sandbox/state and the config dir:
 * - at most one meeting per lead and per workflow execution (after the first pass and at the end);
 * - every lead whose command ever reported booked or already_booked has exactly one meeting;
 * - no re-run fails: each exits 0 with booked or already_booked, naming the lead's meeting time;
 * - every meeting reported booked with an id is the lead's meeting on the server and is in the
 *   config dir's meetings.json (or the journal, as booked); no lead is reported booked twice;
 * - no run that was not killed crashed or exited with an undocumented code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TRIGGER, demoRouteArgs } from '../helpers/args.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { keyFingerprint } from '../../src/state/identity.js';
import { pool } from '../helpers/pool.js';
import { prng, type Prng } from '../helpers/prng.js';
import { startGate, type Gate, type GateRequest } from '../helpers/parallel-gate.js';
import { describeRun, jsonOf, readState, sleep, startCli, type KillableResult } from '../helpers/parallel-run.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const RUNS = Number(process.env.FAULT_RUNS ?? 200);
const SEED = Number(process.env.FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));
const PROCESSES = 8;
const HOLD_SECONDS = 30;
const REGIONS = ['emea', 'americas', 'apac'] as const;
const DOCUMENTED_EXITS = new Set([0, 1, 2, 3, 4, 5, 6, 7, 130]);
const BOOK = { method: 'POST', path: '/v1/scheduling/meetings' };

type FaultKind = 'none' | 'drop-after-commit' | 'stall-after-commit' | 'status-500';
type SlotForm = 'first' | 'iso' | 'local';
/** The re-runs after the slot forms: other answers, another spelling of the event; and the rebook of an unknown outcome. */
type Other = 'answers' | 'event slots' | 'event' | 'rebook';
/**
 * timer: SIGKILL after `ms`; at the booking request: in-flight-booked (killed, then the request
 * goes on to the server), in-flight-lost (killed, the request never arrives), answered (killed
 * `ms` after its answer went back).
 */
type KillMode = 'timer' | 'in-flight-booked' | 'in-flight-lost' | 'answered';
interface Plan {
  index: number;
  email: string;
  region: (typeof REGIONS)[number];
  fault: { kind: FaultKind; route?: { method: string; path: string }; count?: number };
  kill: { mode: KillMode; ms: number } | undefined;
  /** Re-run order when the lead's meeting exists after the first pass. */
  forms: SlotForm[];
}
interface Run {
  plan: Plan;
  phase: 'first' | `rerun ${SlotForm}` | `other ${Other}`;
  result: KillableResult;
  status: string;
  meetingId: string | null;
  slot: string | null;
  /** Exit 7 after an explicit error answer and an ambiguous retry: outcome unknown by design. */
  unknownAfterError?: boolean;
  reservationId?: string | undefined;
}

let sb: TestSandbox;
let gate: Gate;
let dir = '';
let triggerId = '';
/** Kills waiting for their lead's booking request (by the lead's email). */
const atBooking = new Map<
  string,
  { mode: Exclude<KillMode, 'timer'>; ms: number; kill: () => boolean; done: () => void }
>();
beforeAll(async () => {
  sb = await startTestSandbox({ holdSeconds: HOLD_SECONDS, rateLimit: 0 });
  // A day ahead: the first free time is then never minutes away, so a lead's meeting cannot slip
  // into the past (and its --slot re-run turn into a usage error) while the campaign runs.
  await sb.advance(86_400);
  gate = await startGate(sb.baseUrl);
  const leadOf = (r: GateRequest) =>
    r.method === BOOK.method && r.path === BOOK.path
      ? (JSON.parse(r.body) as { personEmail?: string }).personEmail
      : undefined;
  gate.before = async (r) => {
    const k = atBooking.get(leadOf(r) ?? '');
    if (!k || k.mode === 'answered') return;
    atBooking.delete(leadOf(r)!);
    if (k.kill()) k.done();
    if (k.mode === 'in-flight-lost') return 'drop';
    await sleep(20); // the process is gone before the server books
  };
  gate.after = (r) => {
    const k = atBooking.get(leadOf(r) ?? '');
    if (k?.mode !== 'answered') return;
    atBooking.delete(leadOf(r)!);
    setTimeout(() => k.kill() && k.done(), k.ms);
  };
  dir = tempDir('schedctl-parallel-');
  // The same key and API as the campaign's SCHEDCTL_API_KEY/BASE_URL, the URL spelled another way.
  const added = await runCli(
    [
      'profile',
      'add',
      OTHER_PROFILE,
      '--key-stdin',
      '--no-verify',
      '--base-url',
      gate.baseUrl.replace('127.0.0.1', 'LOCALHOST') + '/',
    ],
    { configDir: dir, input: `${sb.keys.full}\n` },
  );
  if (added.code !== 0) throw new Error(`profile add: ${added.stderr}`);
  const res = await fetch(`${sb.baseUrl}/v1/triggers`, { headers: { authorization: `Bearer ${sb.keys.full}` } });
  const { triggers } = (await res.json()) as { triggers: Array<{ id: string; name: string }> };
  triggerId = triggers.find((t) => t.name === DEMO_TRIGGER)!.id;
});
afterAll(async () => {
  await gate?.close();
  await sb?.close();
});

async function addFault(rule: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sb.baseUrl}/_sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rule),
  });
  if (res.status !== 201) throw new Error(`fault rule refused: ${await res.text()}`);
}

function plan(rng: Prng, index: number): Plan {
  const routes = [
    { method: 'GET', path: '/v1/triggers' },
    { method: 'POST', path: `/v1/triggers/${triggerId}` },
    { method: 'POST', path: '/v1/scheduling/events/*/slots' },
    BOOK,
  ];
  const roll = rng.next();
  // Fault rules are sandbox-wide: one planned for this lead is taken by whichever run gets there
  // first, so about a third of all bookings meet one (and the others still book).
  const fault: Plan['fault'] =
    roll < 0.45
      ? { kind: 'none' }
      : roll < 0.6
        ? { kind: 'drop-after-commit' }
        : roll < 0.7
          ? { kind: 'stall-after-commit' }
          : // A 500 to a booking is not processed: it looks like a lost answer, but nothing was booked.
            { kind: 'status-500', route: rng.pick(routes), count: 1 };
  const killed = rng.next() < 0.4;
  const mode: KillMode =
    rng.next() < 0.5 ? 'timer' : rng.pick(['in-flight-booked', 'in-flight-lost', 'answered'] as const);
  const kill = killed ? { mode, ms: mode === 'timer' ? rng.int(30, 1500) : rng.int(0, 25) } : undefined;
  return {
    index,
    email: `lead-${SEED}-${index}@acme.example`,
    region: rng.pick(REGIONS),
    fault,
    kill,
    forms: rng.shuffle(['first', 'iso', 'local'] as const),
  };
}

const routeArgs = (p: Plan, slot: string[], timeout: string) => [
  ...demoRouteArgs(p.email, p.region),
  '--slot',
  ...slot,
  '--yes',
  '--json',
  '--days',
  '28',
  '--timeout',
  timeout,
];
const localUtc = (iso: string) => new Date(iso).toISOString().slice(0, 16).replace('T', ' ');

/** The profile that reaches the gate's API with the campaign's key, its URL spelled another way. */
const OTHER_PROFILE = 'same-api';

async function execute(
  p: Plan,
  phase: Run['phase'],
  args: string[],
  kill?: Plan['kill'],
  viaProfile = false,
): Promise<Run> {
  const env = viaProfile
    ? { SCHEDCTL_BASE_URL: undefined, SCHEDCTL_API_KEY: undefined, SCHEDCTL_PROFILE: OTHER_PROFILE }
    : { SCHEDCTL_BASE_URL: gate.baseUrl, SCHEDCTL_API_KEY: sb.keys.full };
  const running = startCli(args, {
    configDir: dir,
    env,
    timeoutMs: 90_000,
    ...(kill?.mode === 'timer' ? { killAfterMs: kill.ms } : {}),
  });
  if (kill && kill.mode !== 'timer')
    atBooking.set(p.email, {
      mode: kill.mode,
      ms: kill.ms,
      kill: running.kill,
      done: () => bump(killsDone, kill.mode),
    });
  const result = await running.done;
  atBooking.delete(p.email);
  if (result.killed && kill?.mode === 'timer') bump(killsDone, 'timer');
  const doc = jsonOf(result) as
    | {
        status?: string;
        id?: string;
        meeting?: { id: string; date: string } | null;
        slot?: string | null;
        error?: { code: string; message?: string };
        reservationId?: string;
      }
    | undefined;
  // `book` prints the Meeting itself when it books.
  const booked = doc?.id && !doc.status ? 'booked' : undefined;
  const status = result.killed
    ? 'killed'
    : (doc?.status ?? booked ?? doc?.error?.code ?? (doc?.reservationId ? 'slots' : `no JSON (exit ${result.code})`));
  return {
    plan: p,
    phase,
    result,
    status,
    meetingId: doc?.meeting?.id ?? doc?.id ?? null,
    slot: doc?.slot ?? null,
    unknownAfterError: /whether it booked a meeting is unknown/.test(doc?.error?.message ?? ''),
    reservationId: doc?.reservationId,
  };
}

async function firstPass(p: Plan): Promise<Run> {
  const f = p.fault;
  if (f.kind === 'drop-after-commit' || f.kind === 'stall-after-commit') await addFault({ ...BOOK, fault: f.kind });
  if (f.kind === 'status-500') await addFault({ ...f.route, fault: 'status', status: 500, count: f.count });
  return execute(p, 'first', routeArgs(p, ['first'], f.kind === 'stall-after-commit' ? '1' : '3'), p.kill);
}

/**
 * Every form of --slot, one after the other for this lead (leads run in parallel); an outcome left
 * unknown by an explicit error answer is booked past with --rebook. Then the other ways.
 */
async function reruns(p: Plan, knownTime: string | undefined): Promise<Run[]> {
  const runs: Run[] = [];
  let time = knownTime;
  const forms: SlotForm[] = knownTime ? p.forms : ['first', ...p.forms.filter((f) => f !== 'first')];
  for (const form of forms) {
    const slot = form === 'first' || !time ? ['first'] : form === 'iso' ? [time] : [localUtc(time), '--tz', 'UTC'];
    const run = await execute(p, `rerun ${form}`, routeArgs(p, slot, '10'));
    runs.push(run);
    if (run.unknownAfterError) {
      const rebooked = await execute(p, 'other rebook', [...routeArgs(p, ['first'], '10'), '--rebook']);
      runs.push(rebooked);
      time ??= rebooked.slot ?? undefined;
    }
    time ??= run.slot ?? undefined;
  }
  const other = REGIONS.find((r) => r !== p.region)!;
  runs.push(await execute(p, 'other answers', routeArgs({ ...p, region: other }, ['first'], '10'), undefined, true));
  const meeting = (await sb.state()).meetings.find((m) => m.personEmail === p.email);
  if (meeting) {
    const slots = await execute(
      p,
      'other event slots',
      ['slots', meeting.eventId, '--json', '--days', '28'],
      undefined,
      true,
    );
    runs.push(slots);
    if (slots.reservationId)
      runs.push(
        await execute(
          p,
          'other event',
          [
            'book',
            meeting.eventId,
            '--start',
            meeting.date,
            '--reservation',
            slots.reservationId,
            '--email',
            p.email,
            '--json',
          ],
          undefined,
          true,
        ),
      );
  }
  return runs;
}

const bump = (m: Map<string, number>, k: string, by = 1) => m.set(k, (m.get(k) ?? 0) + by);
const killsDone = new Map<string, number>();
function table(title: string, counts: Map<string, number>): string {
  const rows = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const width = Math.max(title.length, ...rows.map(([k]) => k.length));
  return [
    `${title.padEnd(width)}  count`,
    ...rows.map(([k, v]) => `${k.padEnd(width)}  ${String(v).padStart(5)}`),
  ].join('\n');
}

interface JournalEntry {
  personEmail: string;
  outcome: string;
  sentAt?: string | null;
  meetingId?: string;
}

describe('parallel-process campaign', () => {
  it(`${RUNS} routed bookings over ${PROCESSES} processes, one config dir, faults and SIGKILLs, then every re-run: never a second booking`, async () => {
    console.log(
      `parallel campaign: seed ${SEED} (replay with FAULT_SEED=${SEED}), ${RUNS} leads, ${PROCESSES} processes at a time, config dir ${dir}`,
    );
    const rng = prng(SEED);
    const plans = Array.from({ length: RUNS }, (_, i) => plan(rng, i));
    const started = Date.now();
    const failures: string[] = [];
    const scope = `http://loopback:${new URL(gate.baseUrl).port}#key:${keyFingerprint(sb.keys.full)}`;
    const leadOf = new Map(plans.map((p) => [p.email, p]));

    const meetingsPerLead = (s: Awaited<ReturnType<TestSandbox['state']>>) => {
      const m = new Map<string, Array<(typeof s.meetings)[number]>>();
      for (const x of s.meetings)
        if (leadOf.has(x.personEmail)) m.set(x.personEmail, [...(m.get(x.personEmail) ?? []), x]);
      return m;
    };
    const checkAtMostOne = (s: Awaited<ReturnType<TestSandbox['state']>>, when: string) => {
      for (const [email, ms] of meetingsPerLead(s))
        if (ms.length > 1)
          failures.push(
            `${when}: lead ${email} has ${ms.length} meetings: ${ms.map((m) => `${m.id} at ${m.date}`).join(', ')}`,
          );
      const perExecution = new Map<string, number>();
      for (const m of s.meetings) if (m.workflowExecutionId) bump(perExecution, m.workflowExecutionId);
      for (const [id, n] of perExecution) if (n > 1) failures.push(`${when}: execution ${id} has ${n} meetings`);
    };

    // --- first pass: every lead once, 8 processes at a time, faults and kills ---
    const first = await pool(plans, PROCESSES, firstPass);
    await sb.clearFaults();
    const afterFirst = await sb.state();
    const firstSeconds = (Date.now() - started) / 1000;
    checkAtMostOne(afterFirst, 'after the first pass');
    const journalAfterFirst = readState<{ entries: JournalEntry[] }>(dir, 'journal.json', { entries: [] }).entries;

    // --- the hold lapses; then every lead's command again, with each slot form ---
    await sb.advance(HOLD_SECONDS + 5);
    const known = new Map([...meetingsPerLead(afterFirst)].map(([email, ms]) => [email, ms[0]!.date]));
    const second = (await pool(plans, PROCESSES, (p) => reruns(p, known.get(p.email)))).flat();
    const final = await sb.state();
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    checkAtMostOne(final, 'at the end');
    const all = [...first, ...second];

    // --- report ---
    const faults = new Map<string, number>();
    for (const p of plans)
      bump(
        faults,
        p.fault.route
          ? `${p.fault.kind} on ${p.fault.route.method} ${p.fault.route.path.replace(triggerId, ':trigger')}`
          : p.fault.kind,
      );
    const taken = new Map<string, number>();
    for (const q of final.requests as Array<{ method: string; path: string; fault?: string }>) {
      if (q.fault)
        bump(
          taken,
          `${q.fault} on ${q.method} ${q.path.replace(/events\/[^/]+\/slots/, 'events/*/slots').replace(triggerId, ':trigger')}`,
        );
    }
    const exits = new Map<string, number>();
    for (const r of first) bump(exits, r.result.killed ? 'SIGKILL (killed)' : `exit ${r.result.code} ${r.status}`);
    const killedLeft = new Map<string, number>();
    for (const r of first.filter((x) => x.result.killed)) {
      const last = journalAfterFirst.filter((e) => e.personEmail === r.plan.email).at(-1);
      const what = !last
        ? 'no booking attempt'
        : last.outcome === 'unknown'
          ? last.sentAt === null
            ? 'attempt journaled, never sent'
            : 'attempt sent, answer lost'
          : `attempt ${last.outcome}`;
      bump(
        killedLeft,
        `${what}; ${afterFirst.meetings.some((m) => m.personEmail === r.plan.email) ? 'meeting exists' : 'no meeting'}`,
      );
    }
    const rerunStatus = new Map<string, number>();
    for (const r of second) bump(rerunStatus, `${r.phase}: exit ${r.result.code} ${r.status}`);
    const spread = (s: typeof final) => {
      const per = meetingsPerLead(s);
      const counts = new Map<string, number>([
        ['0 meetings', 0],
        ['1 meeting', 0],
        ['2+ meetings', 0],
      ]);
      for (const p of plans) {
        const n = per.get(p.email)?.length ?? 0;
        bump(counts, n === 0 ? '0 meetings' : n === 1 ? '1 meeting' : '2+ meetings');
      }
      return [...counts].map(([k, v]) => `${v} with ${k}`).join(', ');
    };
    const kills = first.filter((r) => r.result.killed).length;
    const killPlan = new Map<string, number>();
    for (const p of plans) if (p.kill) bump(killPlan, p.kill.mode);
    const killTable = new Map(
      [...killPlan].map(([mode, n]) => [
        `${mode}: ${killsDone.get(mode) ?? 0} of ${n} planned`,
        killsDone.get(mode) ?? 0,
      ]),
    );
    console.log(
      [
        `runs: ${all.length} (${first.length} first pass + ${second.length} re-runs); kills: ${kills} (a planned kill misses a run that ended first, or never booked)`,
        '',
        table('kills done', killTable),
        '',
        table('fault planned (per lead)', faults),
        '',
        table('fault taken by a request (sandbox log)', taken),
        '',
        table('first pass: exit and status', exits),
        '',
        table('killed run left behind', killedLeft),
        '',
        table('re-runs: form, exit and status', rerunStatus),
        '',
        `leads after the first pass: ${spread(afterFirst)}`,
        `leads at the end: ${spread(final)}`,
        `meetings: ${final.meetings.length}; executions: ${final.executions.length}; requests: ${final.requests.length}; first pass ${firstSeconds.toFixed(0)} s, total ${seconds} s`,
      ].join('\n'),
    );

    // --- invariants ---
    const per = meetingsPerLead(final);
    for (const r of all) {
      if (r.result.killed) continue;
      if (!DOCUMENTED_EXITS.has(r.result.code ?? -1))
        failures.push(`${r.plan.email} ${r.phase}: undocumented exit\n${describeRun(r.result)}`);
      if (/\n\s+at /.test(r.result.stderr) || /unexpected failure|UNEXPECTED/.test(r.result.stderr + r.result.stdout))
        failures.push(`${r.plan.email} ${r.phase}: crashed\n${describeRun(r.result)}`);
    }
    const forms = second.filter((r) => r.phase.startsWith('rerun'));
    for (const r of second) {
      if (r.phase === 'other answers' && !(r.result.code === 5 && r.status === 'LEAD_HAS_MEETING'))
        failures.push(`${r.plan.email} ${r.phase}: not refused as LEAD_HAS_MEETING\n${describeRun(r.result)}`);
      if (
        r.phase === 'other event' &&
        !(r.result.code === 0 ? r.status === 'already_booked' : r.status === 'LEAD_HAS_MEETING')
      )
        failures.push(`${r.plan.email} ${r.phase}: neither already booked nor refused\n${describeRun(r.result)}`);
      if (r.phase === 'other event slots' && r.result.code !== 0)
        failures.push(`${r.plan.email} ${r.phase} failed\n${describeRun(r.result)}`);
      if (!r.phase.startsWith('rerun') && r.phase !== 'other rebook') continue;
      // Exit 7 "unknown" only where an explicit error answer left it so (then rebooked).
      if (r.unknownAfterError) continue;
      if (r.result.code !== 0 || !['booked', 'already_booked'].includes(r.status))
        failures.push(`${r.plan.email} ${r.phase} failed\n${describeRun(r.result)}`);
      const m = per.get(r.plan.email)?.[0];
      if (m && r.slot !== null && Date.parse(r.slot) !== Date.parse(m.date))
        failures.push(`${r.plan.email} ${r.phase} reported ${r.slot}, the lead's meeting is at ${m.date}`);
    }
    const reported = new Set(
      all.filter((r) => !r.result.killed && ['booked', 'already_booked'].includes(r.status)).map((r) => r.plan.email),
    );
    for (const email of reported) {
      const n = per.get(email)?.length ?? 0;
      if (n !== 1) failures.push(`lead ${email} was reported booked or already booked, and has ${n} meetings`);
    }
    const journal = readState<{ entries: JournalEntry[] }>(dir, 'journal.json', { entries: [] }).entries;
    const record = readState<{ meetings: Record<string, unknown> }>(dir, 'meetings.json', { meetings: {} }).meetings;
    readState(dir, 'outcomes.json', {}); // still readable after every kill
    const bookedReports = new Map<string, number>();
    for (const r of all.filter((x) => x.status === 'booked')) {
      bump(bookedReports, r.plan.email);
      const m = per.get(r.plan.email)?.find((x) => x.id === r.meetingId);
      if (!r.meetingId || !m)
        failures.push(
          `${r.plan.email} ${r.phase} reported booked ${r.meetingId}: not the lead's meeting on the server`,
        );
      const kept =
        r.meetingId !== null &&
        (Object.hasOwn(record, `${scope} ${r.meetingId}`) ||
          journal.some((e) => e.outcome === 'booked' && e.meetingId === r.meetingId));
      if (!kept)
        failures.push(
          `${r.plan.email} ${r.phase}: meeting ${r.meetingId} was reported booked but is neither in meetings.json nor journaled as booked`,
        );
    }
    for (const [email, n] of bookedReports) if (n > 1) failures.push(`lead ${email} was reported booked ${n} times`);

    expect(failures, `seed ${SEED}\n${failures.slice(0, 30).join('\n\n')}`).toEqual([]);
    // The campaign really exercised what it is about.
    expect(kills).toBeGreaterThan(RUNS / 10);
    expect(taken.size, 'faults of several kinds were taken').toBeGreaterThanOrEqual(3);
    expect(forms.length).toBe(RUNS * 3);
    expect(second.filter((r) => r.phase === 'other answers').length).toBe(RUNS);
    expect(second.filter((r) => r.phase === 'other event').length).toBe(RUNS);
    expect(spread(final)).toBe(`0 with 0 meetings, ${RUNS} with 1 meeting, 0 with 2+ meetings`);
  }, 900_000);
});
