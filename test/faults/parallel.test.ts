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
 * (LEAD_HAS_MEETING) or answered already booked, never booked. Every fourth lead is also routed
 * with other answers through a profile whose key was rotated (a further key of the account, from
 * POST /_sandbox/keys, `profile add --force`) into a named workspace the campaign key joined:
 * refused, never booked (the sandbox holds one meeting per lead). A lead whose first booking got an
 * explicit 500 and whose re-sent attempt then met RESERVATION_EXPIRED stays "outcome unknown"
 * (exit 7, never already_booked); the campaign then books it with --rebook, as a user would.
 *
 * The sandbox, gate, plans, runs, checks and report are shared with the team variant
 * (parallel-postgres.test.ts) in parallel-campaign.ts.
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
import { tempDir } from '../helpers/cli.js';
import { pool } from '../helpers/pool.js';
import { prng } from '../helpers/prng.js';
import { ledgerRows } from '../helpers/ledger-db.js';
import {
  checkAtMostOne,
  checkRuns,
  faultsTaken,
  meetingsPerLead,
  reportTables,
  spread,
  startCampaign,
  type Campaign,
  type JournalEntry,
  type Machine,
} from './parallel-campaign.js';

const RUNS = Number(process.env.FAULT_RUNS ?? 200);
const SEED = Number(process.env.FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));
const PROCESSES = 8;
const HOLD_SECONDS = 30;
const DOCUMENTED_EXITS = new Set([0, 1, 2, 3, 4, 5, 6, 7, 130]);

let c: Campaign;
let machine: Machine;
beforeAll(async () => {
  c = await startCampaign({ holdSeconds: HOLD_SECONDS });
  machine = await c.addMachine('local', tempDir('schedctl-parallel-'));
});
afterAll(async () => c?.close());

describe('parallel-process campaign', () => {
  it(`${RUNS} routed bookings over ${PROCESSES} processes, one config dir, faults and SIGKILLs, then every re-run: never a second booking`, async () => {
    const dir = machine.dir;
    console.log(
      `parallel campaign: seed ${SEED} (replay with FAULT_SEED=${SEED}), ${RUNS} leads, ${PROCESSES} processes at a time, config dir ${dir}`,
    );
    const rng = prng(SEED);
    const plans = Array.from({ length: RUNS }, (_, i) => c.plan(rng, i, String(SEED)));
    const started = Date.now();
    const failures: string[] = [];
    const { sb } = c;

    // --- first pass: every lead once, 8 processes at a time, faults and kills ---
    const first = await pool(plans, PROCESSES, (p) => c.firstPass(p, machine));
    await sb.clearFaults();
    const afterFirst = await sb.state();
    const firstSeconds = (Date.now() - started) / 1000;
    checkAtMostOne(afterFirst, plans, 'after the first pass', failures);
    const journalAfterFirst = ledgerRows<JournalEntry>(dir, 'attempts');

    // --- the hold lapses; then every lead's command again, with each slot form ---
    await sb.advance(HOLD_SECONDS + 5);
    const known = new Map([...meetingsPerLead(afterFirst, plans)].map(([email, ms]) => [email, ms[0]!.date]));
    const second = (await pool(plans, PROCESSES, (p) => c.reruns(p, known.get(p.email), () => machine))).flat();
    const final = await sb.state();
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    checkAtMostOne(final, plans, 'at the end', failures);
    const all = [...first, ...second];

    // --- report ---
    const kills = first.filter((r) => r.result.killed).length;
    console.log(
      [
        `runs: ${all.length} (${first.length} first pass + ${second.length} re-runs); kills: ${kills} (a planned kill misses a run that ended first, or never booked)`,
        '',
        ...reportTables(c, { plans, first, second, final, afterFirst, journalAfterFirst }),
        `meetings: ${final.meetings.length}; executions: ${final.executions.length}; requests: ${final.requests.length}; first pass ${firstSeconds.toFixed(0)} s, total ${seconds} s`,
      ].join('\n'),
    );

    // --- invariants ---
    const journal = ledgerRows<JournalEntry>(dir, 'attempts');
    const record = new Set(ledgerRows<{ scope: string; id: string }>(dir, 'meetings').map((m) => `${m.scope} ${m.id}`));
    ledgerRows(dir, 'outcomes'); // still readable after every kill
    checkRuns({
      all,
      second,
      final,
      plans,
      documentedExits: DOCUMENTED_EXITS,
      kept: (id) => record.has(`${c.scope} ${id}`) || journal.some((e) => e.outcome === 'booked' && e.meetingId === id),
      failures,
    });

    expect(failures, `seed ${SEED}\n${failures.slice(0, 30).join('\n\n')}`).toEqual([]);
    // The campaign really exercised what it is about.
    expect(kills).toBeGreaterThan(RUNS / 10);
    expect(faultsTaken(c, final).size, 'faults of several kinds were taken').toBeGreaterThanOrEqual(3);
    expect(second.filter((r) => r.phase.startsWith('rerun')).length).toBe(RUNS * 3);
    expect(second.filter((r) => r.phase === 'other answers').length).toBe(RUNS);
    expect(second.filter((r) => r.phase === 'other event').length).toBe(RUNS);
    // Every fourth lead, through the rotated key of the named workspace (ROTATED_PROFILE).
    expect(second.filter((r) => r.phase === 'other rotated').length).toBe(Math.ceil(RUNS / 4));
    expect(spread(final, plans)).toBe(`0 with 0 meetings, ${RUNS} with 1 meeting, 0 with 2+ meetings`);
  }, 900_000);
});
