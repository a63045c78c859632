/**
 * What both parallel-process campaigns share (parallel.test.ts: one config dir, the local state;
 * parallel-postgres.test.ts: several "machines" sharing a team database): the sandbox behind a
 * gate that kills a lead's process at its booking, the seeded plan of each lead (region, fault,
 * kill, order of the --slot forms), running one lead's command on a machine, the first pass and
 * the re-runs, the invariants on the runs and the sandbox, and the report.
 */
import { DEMO_TRIGGER, demoRouteArgs } from '../helpers/args.js';
import { runCli } from '../helpers/cli.js';
import { keyFingerprint } from '../../src/state/identity.js';
import type { Prng } from '../helpers/prng.js';
import { startGate, type Gate, type GateRequest } from '../helpers/parallel-gate.js';
import { describeRun, jsonOf, sleep, startCli, type KillableResult } from '../helpers/parallel-run.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

export const REGIONS = ['emea', 'americas', 'apac'] as const;
export const BOOK = { method: 'POST', path: '/v1/scheduling/meetings' };
/** The profile that reaches the gate's API with the campaign's key, its URL spelled another way. */
export const OTHER_PROFILE = 'same-api';
/**
 * The profile whose key was rotated (a further key of the sandbox account, POST /_sandbox/keys)
 * into a named workspace (`--workspace Campaign`): the campaign key's workspace joins the name, so
 * this profile's key, the campaign key and OTHER_PROFILE are one ledger.
 */
export const ROTATED_PROFILE = 'rotated';
/** The workspace name ROTATED_PROFILE carries, as typed (folded in the ledger's id). */
export const WORKSPACE_NAME = 'Campaign';

export type FaultKind = 'none' | 'drop-after-commit' | 'stall-after-commit' | 'status-500';
export type SlotForm = 'first' | 'iso' | 'local';
/** The re-runs after the slot forms: other answers, another spelling of the event; and the rebook of an unknown outcome. */
export type Other = 'answers' | 'event slots' | 'event' | 'rebook' | 'rotated';
/**
 * timer: SIGKILL after `ms`; at the booking request: in-flight-booked (killed, then the request
 * goes on to the server), in-flight-lost (killed, the request never arrives), answered (killed
 * `ms` after its answer went back).
 */
export type KillMode = 'timer' | 'in-flight-booked' | 'in-flight-lost' | 'answered';
export interface Plan {
  index: number;
  email: string;
  region: (typeof REGIONS)[number];
  fault: { kind: FaultKind; route?: { method: string; path: string }; count?: number };
  kill: { mode: KillMode; ms: number } | undefined;
  /** Re-run order when the lead's meeting exists after the first pass. */
  forms: SlotForm[];
}
/** Where a command runs: its own config dir (a machine of a team), and what its environment adds. */
export interface Machine {
  name: string;
  dir: string;
  env: Record<string, string | undefined>;
}
export interface Run {
  plan: Plan;
  /** `race`: the same lead's first-pass command on another machine at the same time. */
  phase: 'first' | 'race' | `rerun ${SlotForm}` | `other ${Other}`;
  machine: string;
  result: KillableResult;
  status: string;
  meetingId: string | null;
  slot: string | null;
  /** Exit 7 after an explicit error answer and an ambiguous retry: outcome unknown by design. */
  unknownAfterError?: boolean;
  reservationId?: string | undefined;
  /** Date.now() when it started and ended. */
  startedAt: number;
  endedAt: number;
}
export type SandboxState = Awaited<ReturnType<TestSandbox['state']>>;
export interface JournalEntry {
  personEmail: string;
  outcome: string;
  sentAt?: string | null;
  meetingId?: string;
}

export const bump = (m: Map<string, number>, k: string, by = 1) => m.set(k, (m.get(k) ?? 0) + by);

export function table(title: string, counts: Map<string, number>): string {
  const rows = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const width = Math.max(title.length, ...rows.map(([k]) => k.length));
  return [
    `${title.padEnd(width)}  count`,
    ...rows.map(([k, v]) => `${k.padEnd(width)}  ${String(v).padStart(5)}`),
  ].join('\n');
}

export const routeArgs = (p: Plan, slot: string[], timeout: string) => [
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
const slotArgs = (form: SlotForm, time: string | undefined) =>
  form === 'first' || !time ? ['first'] : form === 'iso' ? [time] : [localUtc(time), '--tz', 'UTC'];

export interface Campaign {
  readonly sb: TestSandbox;
  readonly gate: Gate;
  readonly triggerId: string;
  /** The ledger's scope of the campaign's key and API (the meetings record's key prefix). */
  readonly scope: string;
  /** Kills done, by mode. */
  readonly killsDone: Map<string, number>;
  /**
   * Every booking request that reached the gate: its lead, when, and the sandbox's answer status
   * once it came back (none: dropped, or not answered yet).
   */
  readonly bookings: Array<{ email: string; at: number; status?: number }>;
  /** Awaited when a booking request reaches the gate, before it goes on to the sandbox. */
  beforeBooking: ((email: string) => Promise<void> | void) | undefined;
  /** A config dir for a machine, with the profile that spells the campaign's API another way. */
  addMachine(name: string, dir: string, env?: Record<string, string | undefined>): Promise<Machine>;
  /** The seeded plan of lead `index` (the same draws, in the same order, for a seed). */
  plan(rng: Prng, index: number, emailTag: string): Plan;
  execute(p: Plan, phase: Run['phase'], args: string[], o: ExecuteOptions): Promise<Run>;
  /** The lead's planned fault added to the sandbox, then its routed booking (its kill, if planned, unless `noKill`). */
  firstPass(p: Plan, machine: Machine, phase?: 'first' | 'race'): Promise<Run>;
  /**
   * Every form of --slot (on `on(step)`); an outcome left unknown by an explicit error answer is
   * booked past with --rebook. Then the other ways. With `concurrent`, a lead whose meeting is
   * known gets its three forms at the same time, each on its own machine.
   */
  reruns(
    p: Plan,
    knownTime: string | undefined,
    on: (step: number) => Machine,
    o?: { concurrent?: boolean },
  ): Promise<Run[]>;
  close(): Promise<void>;
}
export interface ExecuteOptions {
  machine: Machine;
  kill?: Plan['kill'];
  /** Through OTHER_PROFILE (the API spelled another way; or the profile named) instead of SCHEDCTL_BASE_URL/API_KEY. */
  viaProfile?: boolean | string;
}

export async function startCampaign(o: { holdSeconds: number }): Promise<Campaign> {
  const sb = await startTestSandbox({ holdSeconds: o.holdSeconds, rateLimit: 0 });
  // A day ahead: the first free time is then never minutes away, so a lead's meeting cannot slip
  // into the past (and its --slot re-run turn into a usage error) while the campaign runs.
  await sb.advance(86_400);
  const gate = await startGate(sb.baseUrl);
  /** Kills waiting for their lead's booking request (by the lead's email). */
  const atBooking = new Map<
    string,
    { mode: Exclude<KillMode, 'timer'>; ms: number; kill: () => boolean; done: () => void }
  >();
  const bookings: Campaign['bookings'] = [];
  const leadOf = (r: GateRequest) =>
    r.method === BOOK.method && r.path === BOOK.path
      ? (JSON.parse(r.body) as { personEmail?: string }).personEmail
      : undefined;
  gate.before = async (r) => {
    const email = leadOf(r);
    if (email !== undefined) {
      bookings.push({ email, at: Date.now() });
      await c.beforeBooking?.(email);
    }
    const k = atBooking.get(email ?? '');
    if (!k || k.mode === 'answered') return;
    atBooking.delete(email!);
    if (k.kill()) k.done();
    if (k.mode === 'in-flight-lost') return 'drop';
    await sleep(20); // the process is gone before the server books
  };
  gate.after = (r, status) => {
    const lead = leadOf(r);
    const sent = lead === undefined ? undefined : bookings.findLast((b) => b.email === lead && b.status === undefined);
    if (sent) sent.status = status;
    const k = atBooking.get(lead ?? '');
    if (k?.mode !== 'answered') return;
    atBooking.delete(leadOf(r)!);
    setTimeout(() => k.kill() && k.done(), k.ms);
  };
  const res = await fetch(`${sb.baseUrl}/v1/triggers`, { headers: { authorization: `Bearer ${sb.keys.full}` } });
  const { triggers } = (await res.json()) as { triggers: Array<{ id: string; name: string }> };
  const triggerId = triggers.find((t) => t.name === DEMO_TRIGGER)!.id;
  const killsDone = new Map<string, number>();

  /** A further key of the sandbox account (POST /_sandbox/keys), minted once for every machine's ROTATED_PROFILE. */
  let mintedKey: Promise<string> | undefined;
  const mintKey = async () => {
    const res = await fetch(`${sb.baseUrl}/_sandbox/keys`, { method: 'POST', body: '{"scope": "full"}' });
    return ((await res.json()) as { key: string }).key;
  };
  async function addFault(rule: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${sb.baseUrl}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(rule),
    });
    if (res.status !== 201) throw new Error(`fault rule refused: ${await res.text()}`);
  }

  const c: Campaign = {
    sb,
    gate,
    triggerId,
    // The campaign key joined the named workspace when ROTATED_PROFILE took it (addMachine).
    scope: `http://loopback:${new URL(gate.baseUrl).port}#ws:${WORKSPACE_NAME.toLowerCase()}`,
    killsDone,
    bookings,
    beforeBooking: undefined,

    async addMachine(name, dir, env = {}) {
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
        { configDir: dir, input: `${sb.keys.full}\n`, env },
      );
      if (added.code !== 0) throw new Error(`profile add: ${added.stderr}`);
      // ROTATED_PROFILE: first the campaign key, then (--force) a further key of the account with
      // the workspace name: the new key joins the name, and so does its predecessor's workspace.
      const rotate = (key: string, flags: string[]) =>
        runCli(
          [
            'profile',
            'add',
            ROTATED_PROFILE,
            '--key-stdin',
            '--no-verify',
            '--base-url',
            gate.baseUrl,
            '--json',
            ...flags,
          ],
          {
            configDir: dir,
            input: `${key}\n`,
            env,
          },
        );
      const before = await rotate(sb.keys.full, []);
      if (before.code !== 0) throw new Error(`profile add ${ROTATED_PROFILE}: ${before.stderr}`);
      const rotated = await rotate(await (mintedKey ??= mintKey()), ['--force', '--workspace', WORKSPACE_NAME]);
      const joined =
        rotated.code === 0
          ? (JSON.parse(rotated.stdout) as { workspace: { workspace: string; previousKey?: string } })
          : undefined;
      if (joined?.workspace.workspace !== c.scope || joined.workspace.previousKey !== keyFingerprint(sb.keys.full))
        throw new Error(
          `profile add ${ROTATED_PROFILE} --force: not in ${c.scope}\n${rotated.stdout}${rotated.stderr}`,
        );
      return { name, dir, env };
    },

    plan(rng, index, emailTag) {
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
        email: `lead-${emailTag}-${index}@acme.example`,
        region: rng.pick(REGIONS),
        fault,
        kill,
        forms: rng.shuffle(['first', 'iso', 'local'] as const),
      };
    },

    async execute(p, phase, args, { machine, kill, viaProfile = false }) {
      const env = viaProfile
        ? {
            SCHEDCTL_BASE_URL: undefined,
            SCHEDCTL_API_KEY: undefined,
            SCHEDCTL_PROFILE: viaProfile === true ? OTHER_PROFILE : viaProfile,
          }
        : { SCHEDCTL_BASE_URL: gate.baseUrl, SCHEDCTL_API_KEY: sb.keys.full };
      const startedAt = Date.now();
      const running = startCli(args, {
        configDir: machine.dir,
        env: { ...machine.env, ...env },
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
      const endedAt = Date.now();
      if (kill && kill.mode !== 'timer') atBooking.delete(p.email);
      if (result.killed && kill?.mode === 'timer') bump(killsDone, 'timer');
      const doc = jsonOf(result) as
        | {
            status?: string;
            id?: string;
            meeting?: { id: string; date: string } | null;
            startTime?: string | null;
            error?: { code: string; message?: string };
            reservationId?: string;
          }
        | undefined;
      // A booking result (book, route) has its status; a slots document none.
      const status = result.killed
        ? 'killed'
        : (doc?.status ?? doc?.error?.code ?? (doc?.reservationId ? 'slots' : `no JSON (exit ${result.code})`));
      return {
        plan: p,
        phase,
        machine: machine.name,
        result,
        status,
        meetingId: doc?.meeting?.id ?? null,
        slot: doc?.startTime ?? null,
        unknownAfterError: /whether it booked a meeting is unknown/.test(doc?.error?.message ?? ''),
        reservationId: doc?.reservationId,
        startedAt,
        endedAt,
      };
    },

    async firstPass(p, machine, phase = 'first') {
      const f = p.fault;
      if (phase === 'first') {
        if (f.kind === 'drop-after-commit' || f.kind === 'stall-after-commit')
          await addFault({ ...BOOK, fault: f.kind });
        if (f.kind === 'status-500') await addFault({ ...f.route, fault: 'status', status: 500, count: f.count });
      }
      const args = routeArgs(p, ['first'], f.kind === 'stall-after-commit' ? '1' : '3');
      return c.execute(p, phase, args, { machine, ...(phase === 'first' ? { kill: p.kill } : {}) });
    },

    async reruns(p, knownTime, on, o = {}) {
      const runs: Run[] = [];
      let time = knownTime;
      const rebook = async (machine: Machine) => {
        const rebooked = await c.execute(p, 'other rebook', [...routeArgs(p, ['first'], '10'), '--rebook'], {
          machine,
        });
        runs.push(rebooked);
        time ??= rebooked.slot ?? undefined;
      };
      if (knownTime && o.concurrent) {
        const batch = await Promise.all(
          p.forms.map((form, i) =>
            c.execute(p, `rerun ${form}`, routeArgs(p, slotArgs(form, time), '10'), { machine: on(i) }),
          ),
        );
        runs.push(...batch);
        if (batch.some((r) => r.unknownAfterError)) await rebook(on(0));
      } else {
        const forms: SlotForm[] = knownTime ? p.forms : ['first', ...p.forms.filter((f) => f !== 'first')];
        for (const [i, form] of forms.entries()) {
          const run = await c.execute(p, `rerun ${form}`, routeArgs(p, slotArgs(form, time), '10'), {
            machine: on(i),
          });
          runs.push(run);
          if (run.unknownAfterError) await rebook(on(i));
          time ??= run.slot ?? undefined;
        }
      }
      const other = REGIONS.find((r) => r !== p.region)!;
      runs.push(
        await c.execute(p, 'other answers', routeArgs({ ...p, region: other }, ['first'], '10'), {
          machine: on(3),
          viaProfile: true,
        }),
      );
      // A sample of leads through the rotated key of the named workspace: refused, never booked.
      if (p.index % 4 === 0)
        runs.push(
          await c.execute(p, 'other rotated', routeArgs({ ...p, region: other }, ['first'], '10'), {
            machine: on(3),
            viaProfile: ROTATED_PROFILE,
          }),
        );
      const meeting = (await sb.state()).meetings.find((m) => m.personEmail === p.email);
      if (meeting) {
        const on4 = on(4);
        const slots = await c.execute(p, 'other event slots', ['slots', meeting.eventId, '--json', '--days', '28'], {
          machine: on4,
          viaProfile: true,
        });
        runs.push(slots);
        if (slots.reservationId)
          runs.push(
            await c.execute(
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
              { machine: on4, viaProfile: true },
            ),
          );
      }
      return runs;
    },

    async close() {
      await gate.close();
      await sb.close();
    },
  };
  return c;
}

/** The sandbox's meetings of the campaign's leads, per lead. */
export function meetingsPerLead(s: SandboxState, plans: readonly Plan[]) {
  const leads = new Set(plans.map((p) => p.email));
  const m = new Map<string, Array<SandboxState['meetings'][number]>>();
  for (const x of s.meetings) if (leads.has(x.personEmail)) m.set(x.personEmail, [...(m.get(x.personEmail) ?? []), x]);
  return m;
}

/** At most one meeting per lead and per workflow execution. */
export function checkAtMostOne(s: SandboxState, plans: readonly Plan[], when: string, failures: string[]): void {
  for (const [email, ms] of meetingsPerLead(s, plans))
    if (ms.length > 1)
      failures.push(
        `${when}: lead ${email} has ${ms.length} meetings: ${ms.map((m) => `${m.id} at ${m.date}`).join(', ')}`,
      );
  const perExecution = new Map<string, number>();
  for (const m of s.meetings) if (m.workflowExecutionId) bump(perExecution, m.workflowExecutionId);
  for (const [id, n] of perExecution) if (n > 1) failures.push(`${when}: execution ${id} has ${n} meetings`);
}

/** "N with 0 meetings, N with 1 meeting, N with 2+ meetings". */
export function spread(s: SandboxState, plans: readonly Plan[]): string {
  const per = meetingsPerLead(s, plans);
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
}

/** The tables both campaigns print: kills, faults planned and taken, first-pass exits, what killed runs left, re-runs. */
export function reportTables(
  c: Campaign,
  o: {
    plans: readonly Plan[];
    first: readonly Run[];
    second: readonly Run[];
    final: SandboxState;
    afterFirst: SandboxState;
    journalAfterFirst: readonly JournalEntry[];
  },
): string[] {
  const { plans, first, second, final, afterFirst, journalAfterFirst } = o;
  const faults = new Map<string, number>();
  for (const p of plans)
    bump(
      faults,
      p.fault.route
        ? `${p.fault.kind} on ${p.fault.route.method} ${p.fault.route.path.replace(c.triggerId, ':trigger')}`
        : p.fault.kind,
    );
  const taken = faultsTaken(c, final);
  const exits = new Map<string, number>();
  for (const r of first)
    bump(
      exits,
      `${r.phase === 'race' ? 'race: ' : ''}${r.result.killed ? 'SIGKILL (killed)' : `exit ${r.result.code} ${r.status}`}`,
    );
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
  const killPlan = new Map<string, number>();
  for (const p of plans) if (p.kill) bump(killPlan, p.kill.mode);
  const killTable = new Map(
    [...killPlan].map(([mode, n]) => [
      `${mode}: ${c.killsDone.get(mode) ?? 0} of ${n} planned`,
      c.killsDone.get(mode) ?? 0,
    ]),
  );
  return [
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
    `leads after the first pass: ${spread(afterFirst, plans)}`,
    `leads at the end: ${spread(final, plans)}`,
  ];
}

/** The faults the sandbox log shows were taken by a request, by fault and route. */
export function faultsTaken(c: Campaign, final: SandboxState): Map<string, number> {
  const taken = new Map<string, number>();
  for (const q of final.requests as Array<{ method: string; path: string; fault?: string }>) {
    if (q.fault)
      bump(
        taken,
        `${q.fault} on ${q.method} ${q.path.replace(/events\/[^/]+\/slots/, 'events/*/slots').replace(c.triggerId, ':trigger')}`,
      );
  }
  return taken;
}

/**
 * The invariants on the runs both campaigns check (the at-most-one checks are separate):
 * - no run that was not killed crashed or exited with an undocumented code;
 * - other answers and the event by its uuid are refused or answered already booked;
 * - every re-run exits 0 with booked or already_booked, naming the lead's meeting time (but an
 *   outcome left unknown by an explicit error answer, then booked with --rebook);
 * - every lead reported booked or already booked has exactly one meeting;
 * - every meeting reported booked with an id is the lead's meeting on the server and `kept`
 *   (in the meetings record, or journaled as booked); no lead is reported booked twice.
 */
export function checkRuns(o: {
  all: readonly Run[];
  second: readonly Run[];
  final: SandboxState;
  plans: readonly Plan[];
  documentedExits: ReadonlySet<number>;
  /** Is the meeting in the state (meetings record or journal)? */
  kept: (meetingId: string) => boolean;
  failures: string[];
}): void {
  const { all, second, failures } = o;
  const per = meetingsPerLead(o.final, o.plans);
  const where = (r: Run) => `${r.plan.email} ${r.phase} on ${r.machine}`;
  for (const r of all) {
    if (r.result.killed) continue;
    if (!o.documentedExits.has(r.result.code ?? -1))
      failures.push(`${where(r)}: undocumented exit\n${describeRun(r.result)}`);
    if (/\n\s+at /.test(r.result.stderr) || /unexpected failure|UNEXPECTED/.test(r.result.stderr + r.result.stdout))
      failures.push(`${where(r)}: crashed\n${describeRun(r.result)}`);
  }
  for (const r of second) {
    if (
      (r.phase === 'other answers' || r.phase === 'other rotated') &&
      !(r.result.code === 5 && r.status === 'LEAD_HAS_MEETING')
    )
      failures.push(`${where(r)}: not refused as LEAD_HAS_MEETING\n${describeRun(r.result)}`);
    if (
      r.phase === 'other event' &&
      !(r.result.code === 0 ? r.status === 'already_booked' : r.status === 'LEAD_HAS_MEETING')
    )
      failures.push(`${where(r)}: neither already booked nor refused\n${describeRun(r.result)}`);
    if (r.phase === 'other event slots' && r.result.code !== 0)
      failures.push(`${where(r)} failed\n${describeRun(r.result)}`);
    if (!r.phase.startsWith('rerun') && r.phase !== 'other rebook') continue;
    // Exit 7 "unknown" only where an explicit error answer left it so (then rebooked).
    if (r.unknownAfterError) continue;
    if (r.result.code !== 0 || !['booked', 'already_booked'].includes(r.status))
      failures.push(`${where(r)} failed\n${describeRun(r.result)}`);
    const m = per.get(r.plan.email)?.[0];
    if (m && r.slot !== null && Date.parse(r.slot) !== Date.parse(m.date))
      failures.push(`${where(r)} reported ${r.slot}, the lead's meeting is at ${m.date}`);
  }
  const reported = new Set(
    all.filter((r) => !r.result.killed && ['booked', 'already_booked'].includes(r.status)).map((r) => r.plan.email),
  );
  for (const email of reported) {
    const n = per.get(email)?.length ?? 0;
    if (n !== 1) failures.push(`lead ${email} was reported booked or already booked, and has ${n} meetings`);
  }
  const bookedReports = new Map<string, number>();
  for (const r of all.filter((x) => x.status === 'booked')) {
    bump(bookedReports, r.plan.email);
    const m = per.get(r.plan.email)?.find((x) => x.id === r.meetingId);
    if (!r.meetingId || !m)
      failures.push(`${where(r)} reported booked ${r.meetingId}: not the lead's meeting on the server`);
    if (r.meetingId === null || !o.kept(r.meetingId))
      failures.push(
        `${where(r)}: meeting ${r.meetingId} was reported booked but is neither in the meetings record nor journaled as booked`,
      );
  }
  for (const [email, n] of bookedReports) if (n > 1) failures.push(`lead ${email} was reported booked ${n} times`);
}
