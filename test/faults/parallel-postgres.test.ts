/**
 * The parallel-process campaign on a team state: the same leads routed from three "machines"
 * (three config dirs sharing one SCHEDCTL_STATE_URL, a throwaway PostgreSQL cluster from
 * test/helpers/postgres.ts), with the local campaign's faults and SIGKILLs (parallel-campaign.ts),
 * and the database stopped mid-campaign and started again while runs are in flight.
 *
 * First pass: every lead on its home machine (with its planned fault and kill), and about a third
 * of the leads at the same moment on one or two other machines too (a race: the team lead lock
 * and ledger must make it one booking). When a seeded lead's turn comes, the database is stopped
 * (pg_ctl stop -m fast: every session ended) the moment that lead's booking request reaches the API,
 * left down a seeded 0.3–1.5 s while new runs start, and started again. Then (the hold lapsed) every lead's command again, each --slot form on
 * another machine (at the same moment when the lead's meeting is known), then its other answers and
 * its event by uuid through a profile that spells the API another way, as the local campaign does.
 * Last, `state status` on each machine moves in what its team-spool kept.
 *
 * Invariants (those of the local campaign, over the team state), through /_sandbox/state, the gate's
 * log and the database:
 * - at most one meeting per lead and per workflow execution (after the first pass and at the end),
 *   exactly one per lead at the end;
 * - every lead reported booked or already booked has exactly one meeting; every re-run books or
 *   finds it (exit 0), naming its time; no lead is reported booked twice;
 * - nothing reported booked is missing from the team state's meetings record or journal (once
 *   every machine has moved its team-spool in: nothing is left kept on a machine);
 * - a run that met the stopped database refused (exit 9, STATE_UNAVAILABLE, and no booking request
 *   of its lead reached the API while it ran, unless another run of that lead was running too),
 *   or (after its request was sent) finished with its outcome kept on its machine; exit 9 only
 *   while the database was down;
 * - every exit code is a documented one (9 included); no crash.
 *
 * Seeded like the local campaign (FAULT_SEED=<n>); FAULT_PG_RUNS=<n> changes the number of leads.
 */
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { describeRun, sleep } from '../helpers/parallel-run.js';
import { pool } from '../helpers/pool.js';
import { usePostgres } from '../helpers/postgres.js';
import { prng } from '../helpers/prng.js';
import {
  bump,
  checkAtMostOne,
  checkRuns,
  faultsTaken,
  meetingsPerLead,
  reportTables,
  spread,
  startCampaign,
  table,
  type Campaign,
  type JournalEntry,
  type Machine,
  type Run,
} from './parallel-campaign.js';

const RUNS = Number(process.env.FAULT_PG_RUNS ?? 40);
const SEED = Number(process.env.FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));
const MACHINES = 3;
/** Leads in flight at once (a race adds one or two processes to its lead). */
const PROCESSES = 6;
const HOLD_SECONDS = 30;
const DOCUMENTED_EXITS = new Set([0, 1, 2, 3, 4, 5, 6, 7, 9, 130]);
/** How long after the database is back a run may still report it unreachable (a connection attempt begun before). */
const OUTAGE_SLACK_MS = 2000;

const fixture = usePostgres();
let c: Campaign;
let machines: Machine[] = [];
let dbName = '';
beforeAll(async () => {
  c = await startCampaign({ holdSeconds: HOLD_SECONDS });
  const url = await fixture.pg.createDatabase();
  dbName = new URL(url).pathname.slice(1);
  machines = await Promise.all(
    Array.from({ length: MACHINES }, (_, i) =>
      c.addMachine(`machine-${i + 1}`, tempDir(`schedctl-pg-machine-${i + 1}-`), { SCHEDCTL_STATE_URL: url }),
    ),
  );
});
afterAll(async () => c?.close());

/** The records of one ledger table of the team state (their bodies), as the database holds them. */
async function teamRecords<T>(table: 'attempts' | 'meetings'): Promise<T[]> {
  const order = table === 'attempts' ? ' ORDER BY seq' : '';
  const rows = await fixture.pg.psql(
    `SELECT jsonb_build_object('scope', workspace) || body::jsonb FROM schedctl_${table}${order}`,
    dbName,
  );
  return rows ? rows.split('\n').map((line) => JSON.parse(line) as T) : [];
}

interface LeadExtra {
  home: number;
  /** Other machines running the lead's first pass at the same time, and how long after it they start. */
  racers: Array<{ machine: number; delayMs: number }>;
}

const KEPT = /is kept on this machine/;
const MOVED_IN = /^note: moved \d+ .* kept on this machine/m;

describe('parallel-process campaign on a team state (PostgreSQL)', () => {
  it(`${RUNS} leads over ${MACHINES} machines sharing one database, faults, SIGKILLs, races and the database stopped mid-run: never a second booking, nothing booked lost`, async () => {
    const rng = prng(SEED);
    const plans = Array.from({ length: RUNS }, (_, i) => c.plan(rng, i, `pg-${SEED}`));
    // The team variant's own draws, from a generator of its own: the leads' plans stay the local campaign's.
    const more = prng(SEED ^ 0x7ea3);
    const extras: LeadExtra[] = plans.map((p) => {
      const home = p.index % MACHINES;
      const roll = more.next();
      const others = more.shuffle([1, 2].map((k) => (home + k) % MACHINES));
      const n = roll < 0.2 ? 2 : roll < 0.35 ? 1 : 0;
      return { home, racers: others.slice(0, n).map((machine) => ({ machine, delayMs: more.int(0, 300) })) };
    });
    // The database stops the moment a lead's booking request reaches the API (so that at least that
    // run has sent its booking and must keep its outcome on its machine); the lead: the first from a
    // seeded point on with neither a fault nor a kill planned. If its run ends without booking (a
    // fault rule of another lead's taken on its way), the next such lead's; with none left, at once.
    const from = more.int(Math.floor(RUNS * 0.3), Math.floor(RUNS * 0.6));
    const calm = (after: number) => plans.find((p) => p.index >= after && p.fault.kind === 'none' && !p.kill);
    const outageAt = (calm(from) ?? plans[from]!).index;
    const downMs = more.int(300, 1500);
    console.log(
      `parallel campaign on PostgreSQL: seed ${SEED} (replay with FAULT_SEED=${SEED}), ${RUNS} leads, ${MACHINES} machines (${machines.map((m) => m.dir).join(', ')}), ${PROCESSES} leads at a time, database stopped at the booking of lead ${outageAt} (or a later one) for ${downMs} ms`,
    );
    const started = Date.now();
    const failures: string[] = [];
    const { sb } = c;
    const pg = fixture.pg;

    // --- first pass: every lead on its home machine (races on others), faults, kills, the outage ---
    const outage = { stopAt: 0, downAt: 0, upAt: 0, by: 'none' as 'booking' | 'run end' | 'none' };
    let stopped: Promise<void> | undefined;
    let restarted: Promise<void> | undefined;
    const stopDatabase = (by: 'booking' | 'run end' = 'run end') => {
      if (stopped) return stopped;
      outage.by = by;
      outage.stopAt = Date.now();
      stopped = pg.stop().then(() => {
        outage.downAt = Date.now();
      });
      restarted = stopped.then(async () => {
        await sleep(downMs);
        await pg.start();
        outage.upAt = Date.now();
      });
      return stopped;
    };
    let outageLead = plans[outageAt]!.email;
    c.beforeBooking = (email) => (email === outageLead ? stopDatabase('booking') : undefined);
    const first = (
      await pool(plans, PROCESSES, async (p) => {
        const x = extras[p.index]!;
        const runs = await Promise.all([
          c.firstPass(p, machines[x.home]!),
          ...x.racers.map(async (r) => {
            await sleep(r.delayMs);
            return c.firstPass(p, machines[r.machine]!, 'race');
          }),
        ]);
        if (p.email === outageLead && !stopped) {
          const next = calm(p.index + 1);
          if (next) outageLead = next.email;
          else void stopDatabase();
        }
        return runs;
      })
    ).flat();
    c.beforeBooking = undefined;
    await restarted;
    await sb.clearFaults();
    const afterFirst = await sb.state();
    const firstSeconds = (Date.now() - started) / 1000;
    checkAtMostOne(afterFirst, plans, 'after the first pass', failures);
    const journalAfterFirst = await teamRecords<JournalEntry>('attempts');

    // --- the hold lapses; every lead's command again, each slot form on another machine ---
    await sb.advance(HOLD_SECONDS + 5);
    const known = new Map([...meetingsPerLead(afterFirst, plans)].map(([email, ms]) => [email, ms[0]!.date]));
    const second = (
      await pool(plans, PROCESSES, (p) =>
        c.reruns(p, known.get(p.email), (step) => machines[(extras[p.index]!.home + 1 + step) % MACHINES]!, {
          concurrent: true,
        }),
      )
    ).flat();

    // --- a last run on each machine: what its team-spool kept moves in ---
    const last = await Promise.all(
      machines.map((m) =>
        runCli(['state', 'status', '--json'], {
          configDir: m.dir,
          env: { ...m.env, SCHEDCTL_BASE_URL: c.gate.baseUrl, SCHEDCTL_API_KEY: sb.keys.full },
        }),
      ),
    );
    const final = await sb.state();
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    checkAtMostOne(final, plans, 'at the end', failures);
    const all = [...first, ...second];

    // --- what met the outage ---
    const inOutage = (r: Run) => r.startedAt < outage.upAt + OUTAGE_SLACK_MS && r.endedAt > outage.stopAt;
    const met = all.filter(inOutage);
    const metTable = new Map<string, number>();
    for (const r of met)
      bump(
        metTable,
        `${r.startedAt < outage.stopAt ? 'in flight at the stop' : r.startedAt < outage.upAt ? 'started while down' : 'started just after the restart'}: ${r.result.killed ? 'SIGKILL (killed)' : `exit ${r.result.code} ${r.status}`}${KEPT.test(r.result.stderr) ? ', kept on its machine' : ''}`,
      );
    const keptRuns = all.filter((r) => KEPT.test(r.result.stderr));
    const movedIn =
      all.filter((r) => MOVED_IN.test(r.result.stderr)).length + last.filter((r) => MOVED_IN.test(r.stderr)).length;

    // --- report ---
    const kills = first.filter((r) => r.result.killed).length;
    const perMachine = new Map<string, number>();
    for (const r of all) bump(perMachine, r.machine);
    console.log(
      [
        `runs: ${all.length} (${first.length} first pass, races included, + ${second.length} re-runs); kills: ${kills}`,
        `database: stop began ${outage.stopAt - started} ms in, at ${outage.by === 'booking' ? `the booking of ${outageLead}` : `the end of ${outageLead}'s run`}, down ${outage.upAt - outage.downAt} ms (stop took ${outage.downAt - outage.stopAt} ms)`,
        '',
        table('runs per machine', perMachine),
        '',
        ...reportTables(c, { plans, first, second, final, afterFirst, journalAfterFirst }),
        '',
        table('runs that met the stopped database', metTable),
        '',
        `runs that kept an outcome on their machine: ${keptRuns.length}; runs that moved a team-spool in: ${movedIn}`,
        `${outageLead}'s first-pass runs: ${first
          .filter((r) => r.plan.email === outageLead)
          .map(
            (r) =>
              `${r.phase} on ${r.machine} +${r.startedAt - started}..+${r.endedAt - started} ms: ${r.result.killed ? 'killed' : `exit ${r.result.code} ${r.status}`}${KEPT.test(r.result.stderr) ? ' (kept)' : ''}`,
          )
          .join('; ')} (database down +${outage.stopAt - started}..+${outage.upAt - started} ms)`,
        `meetings: ${final.meetings.length}; executions: ${final.executions.length}; requests: ${final.requests.length}; first pass ${firstSeconds.toFixed(0)} s, total ${seconds} s`,
      ].join('\n'),
    );

    // --- invariants ---
    for (const [i, r] of last.entries()) {
      const doc = r.code === 0 ? (JSON.parse(r.stdout) as { backend?: string; keptOnThisMachine?: number }) : undefined;
      if (doc?.backend !== 'postgres' || doc.keptOnThisMachine !== 0)
        failures.push(`state status on ${machines[i]!.name}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
      const spool = join(machines[i]!.dir, 'team-spool');
      const left = existsSync(spool) ? readdirSync(spool).filter((f) => /\.jsonl?$/.test(f)) : [];
      if (left.length) failures.push(`${machines[i]!.name} still keeps ${left.join(', ')} in ${spool}`);
    }
    const journal = await teamRecords<JournalEntry>('attempts');
    const record = new Set(
      (await teamRecords<{ scope: string; id: string }>('meetings')).map((m) => `${m.scope} ${m.id}`),
    );
    checkRuns({
      all,
      second,
      final,
      plans,
      documentedExits: DOCUMENTED_EXITS,
      kept: (id) => record.has(`${c.scope} ${id}`) || journal.some((e) => e.outcome === 'booked' && e.meetingId === id),
      failures,
    });
    const runsOf = new Map<string, Run[]>();
    for (const r of all) runsOf.set(r.plan.email, [...(runsOf.get(r.plan.email) ?? []), r]);
    for (const r of all.filter((x) => !x.result.killed && x.result.code === 9)) {
      const where = `${r.plan.email} ${r.phase} on ${r.machine}`;
      if (r.status !== 'STATE_UNAVAILABLE')
        failures.push(`${where}: exit 9 but not STATE_UNAVAILABLE\n${describeRun(r.result)}`);
      if (!inOutage(r)) failures.push(`${where}: exit 9 while the database was up\n${describeRun(r.result)}`);
      const alone = !runsOf
        .get(r.plan.email)!
        .some((o) => o !== r && o.startedAt < r.endedAt && o.endedAt > r.startedAt);
      // A booking the API refused (a 4xx: 409 SLOT_TAKEN, NO_HOST_AVAILABLE, a 429, ...) booked
      // nothing: the run may still stop before its next one (fresh times), and say that one was not
      // sent. One dropped, or answered 2xx or 5xx, may have booked.
      const refused = (status: number | undefined) => status !== undefined && status >= 400 && status < 500;
      const sent = c.bookings.filter(
        (b) => b.email === r.plan.email && b.at >= r.startedAt && b.at <= r.endedAt && !refused(b.status),
      );
      if (alone && sent.length)
        failures.push(
          `${where}: exit 9 ("nothing was sent"), yet its lead's booking reached the API\n${describeRun(r.result)}`,
        );
    }
    // The run whose booking met the stop, if it learnt its outcome (booked, or lost: exit 0 or 7)
    // before the database was back, kept it on its machine. (An answer stalled by a fault rule another
    // lead planned comes after the restart: then it writes to the database.)
    if (outage.by === 'booking')
      for (const r of all.filter((x) => x.plan.email === outageLead && x.startedAt < outage.stopAt))
        if (r.endedAt < outage.upAt && [0, 7].includes(r.result.code ?? -1) && !KEPT.test(r.result.stderr))
          failures.push(
            `${r.plan.email} ${r.phase} on ${r.machine}: its booking met the stopped database, and it ended (exit ${r.result.code}) before the restart without keeping its outcome\n${describeRun(r.result)}`,
          );
    for (const r of keptRuns)
      if (!inOutage(r))
        failures.push(
          `${r.plan.email} ${r.phase} on ${r.machine}: kept on its machine while the database was up\n${describeRun(r.result)}`,
        );

    // What a failing lead went through: its runs in order, and its journal in the team state.
    const failing = plans.filter((p) => failures.some((f) => f.includes(p.email))).slice(0, 3);
    const history = failing.map((p) =>
      [
        `--- ${p.email} (fault ${p.fault.kind}${p.kill ? `, kill ${p.kill.mode}` : ''}; database stop at +${outage.stopAt - started} ms, up at +${outage.upAt - started} ms)`,
        ...runsOf
          .get(p.email)!
          .sort((x, y) => x.startedAt - y.startedAt)
          .map(
            (r) =>
              `+${r.startedAt - started}..+${r.endedAt - started} ms ${r.phase} on ${r.machine}: ${r.result.killed ? 'killed' : `exit ${r.result.code} ${r.status}`}${KEPT.test(r.result.stderr) ? ' (kept)' : ''}${MOVED_IN.test(r.result.stderr) ? ' (moved in)' : ''}`,
          ),
        ...journal
          .filter((e) => e.personEmail === p.email)
          .map(
            (e) =>
              `journal: ${JSON.stringify(e, ['id', 'outcome', 'sentAt', 'lostBy', 'meetingId', 'acknowledgedAt'])}`,
          ),
      ].join('\n'),
    );
    expect(failures, `seed ${SEED}\n${failures.slice(0, 30).join('\n\n')}\n\n${history.join('\n\n')}`).toEqual([]);
    // The campaign really exercised what it is about.
    expect(kills).toBeGreaterThan(RUNS / 10);
    expect(faultsTaken(c, final).size, 'faults of several kinds were taken').toBeGreaterThanOrEqual(3);
    expect(first.filter((r) => r.phase === 'race').length, 'leads raced from several machines').toBeGreaterThan(0);
    expect(
      met.filter((r) => r.startedAt < outage.stopAt).length,
      'runs were in flight when the database stopped',
    ).toBeGreaterThan(0);
    expect(new Set(second.map((r) => r.machine)).size).toBe(MACHINES);
    expect(second.filter((r) => r.phase.startsWith('rerun')).length).toBe(RUNS * 3);
    expect(second.filter((r) => r.phase === 'other answers').length).toBe(RUNS);
    expect(second.filter((r) => r.phase === 'other event').length).toBe(RUNS);
    // Every fourth lead, through the rotated key of the named workspace (ROTATED_PROFILE).
    expect(second.filter((r) => r.phase === 'other rotated').length).toBe(Math.ceil(RUNS / 4));
    expect(spread(final, plans)).toBe(`0 with 0 meetings, ${RUNS} with 1 meeting, 0 with 2+ meetings`);
  }, 600_000);
});
