/**
 * "Never a second booking" across re-runs and crashes, end to end (the built CLI against the
 * sandbox): an attempt that never left the machine, other answers, the same script twice,
 * an explicit time after a lost answer, and a booking whose local record cannot be written.
 */
import { DatabaseSync } from 'node:sqlite';
import { ledgerRows } from '../helpers/ledger-db.js';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertNoSecretsInFiles, show, type RunResult } from '../helpers/cli.js';
import { startGate, TLS_CERT, type Gate } from '../helpers/parallel-gate.js';
import { describeRun, sleep, startCli, waitFor } from '../helpers/parallel-run.js';
import { bookSlotArgs, demoFireArgs, demoRouteArgs } from '../helpers/args.js';
import { useSandbox } from '../helpers/sandbox.js';

const HOLD_SECONDS = 60;
const t = useSandbox({ holdSeconds: HOLD_SECONDS });
const BOOK_PATH = '/v1/scheduling/meetings';

// The sandbox a day ahead: no meeting of a test can be minutes away and slip into the past
// before the test runs its command again with that time.
beforeEach(async () => t.sb.advance(86_400));

let gates: Gate[] = [];
afterEach(async () => {
  await Promise.all(gates.map((g) => g.close()));
  gates = [];
});
async function gate(tls = false): Promise<Gate> {
  const g = await startGate(t.sb.baseUrl, { tls });
  gates.push(g);
  return g;
}

/** The CLI against the sandbox (or `baseUrl`), the shared rate budget off. */
const cli = (args: string[], env: Record<string, string> = {}): Promise<RunResult> =>
  t.sb.cli(args, { configDir: t.dir, env: { SCHEDCTL_RATE: '0', ...env } });
/**
 * Through the gate: the re-runs after a SIGKILL, which find the killed run's lead lock. They take it
 * over once it is 2 s old (SCHEDCTL_TEST_LOCK_STALE_MS, a test-only knob) instead of the real 10 s:
 * no other process is alive to hold it then.
 */
const viaGate = (g: Gate, args: string[], env: Record<string, string> = {}) =>
  cli(args, {
    SCHEDCTL_BASE_URL: g.baseUrl,
    NODE_EXTRA_CA_CERTS: TLS_CERT,
    SCHEDCTL_TEST_LOCK_STALE_MS: '2000',
    ...env,
  });

const routeArgs = (email: string, region: string, slot: string, extra: string[] = []) => [
  ...demoRouteArgs(email, region),
  '--slot',
  slot,
  '--yes',
  '--json',
  '--days',
  '14',
  ...extra,
];
/** `book` of the first of the times `s` offers, for kim@acme.example (JSON, a 20 s timeout). */
const bookFirstSlot = (s: { reservationId: string; slots: string[] }) => [
  ...bookSlotArgs('intro-call', s.slots[0]!, s.reservationId, 'kim@acme.example'),
  '--json',
  '--timeout',
  '20',
];
/** "2026-11-23 09:00": the instant as a local time, read with --tz UTC. */
const localUtc = (iso: string) => new Date(iso).toISOString().slice(0, 16).replace('T', ' ');

interface JournalEntry {
  outcome: string;
  sentAt?: string | null;
  meetingId?: string;
  startTime: string;
  workflowExecutionId: string | null;
}
const journal = () => ledgerRows<JournalEntry>(t.dir, 'attempts');
const state = () => t.sb.state();
const bookRequests = async () => (await state()).requests.filter((q) => q.method === 'POST' && q.path === BOOK_PATH);

async function sandboxSlots(event: string): Promise<{ reservationId: string; slots: string[]; expiresAt: string }> {
  const { now } = (await (await fetch(`${t.sb.baseUrl}/_sandbox/clock`)).json()) as { now: string };
  // An hour ahead: the first time offered is never seconds away, so it cannot slip into the past
  // (NO_HOST_AVAILABLE) between a test's first run and its re-run.
  const start = new Date(Date.parse(now) + 3_600_000);
  const res = await fetch(`${t.sb.baseUrl}/v1/scheduling/events/${event}/slots`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.sb.keys.full}`, 'content-type': 'application/json' },
    body: JSON.stringify({ start, end: new Date(start.getTime() + 14 * 86_400_000) }),
  });
  expect(res.status).toBe(200);
  return res.json() as Promise<{ reservationId: string; slots: string[]; expiresAt: string }>;
}

/**
 * Runs `args` through a TLS gate whose booking connection never completes its handshake; SIGKILLs
 * it once the booking is under way (its `--debug` line, written before the connection is made).
 */
async function killBeforeSending(g: Gate, args: string[]): Promise<void> {
  const run = startCli([...args, '--debug'], {
    configDir: t.dir,
    env: { SCHEDCTL_BASE_URL: g.baseUrl, SCHEDCTL_API_KEY: t.sb.keys.full, NODE_EXTRA_CA_CERTS: TLS_CERT },
    timeoutMs: 30_000,
  });
  const journaled = await waitFor(() => /→ POST \S*\/v1\/scheduling\/meetings/.test(run.stderr()), 20_000);
  // Long enough for a request that could go out to have gone out.
  await sleep(400);
  const wasRunning = run.kill();
  const r = await run.done;
  expect(journaled, describeRun(r)).toBe(true);
  expect(wasRunning, `it ended by itself before the kill\n${describeRun(r)}`).toBe(true);
  expect(r.signal).toBe('SIGKILL');
}

describe('killed before the booking left the machine', () => {
  it('book: the re-run after the hold lapsed is a plain RESERVATION_EXPIRED refusal, never "already booked"', async () => {
    const g = await gate(true);
    const s = await sandboxSlots('intro-call');
    const args = bookFirstSlot(s);
    g.silent = true; // every connection: accepted, no TLS handshake, so no request can be written
    await killBeforeSending(g, args);
    // The booking goes on a connection of its own (never the one opened ahead, api/warm.ts): it
    // must wait for that connection's TLS handshake before the attempt is marked sent (api/transport.ts).
    // The attempt is written (marked sent) only right before its bytes leave: nothing was.
    expect(journal(), 'recorded, yet its TLS handshake never completed').toEqual([]);
    expect(g.connections()).toBeGreaterThan(0);
    expect(g.seen).toEqual([]);
    expect(await bookRequests()).toEqual([]);

    // The same URL now reaches the sandbox (TLS terminated by the gate); the hold has lapsed.
    g.silent = false;
    await t.sb.advance(HOLD_SECONDS + 5);
    const again = await viaGate(g, args);
    expect(again.code, show(again)).toBe(5);
    expect(again.json().error).toMatchObject({ code: 'RESERVATION_EXPIRED' });
    expect(again.stdout + again.stderr).not.toMatch(/already.booked/i);
    expect((await state()).meetings).toEqual([]);
    expect((await bookRequests()).map((q) => q.status)).toEqual([409]);
  });

  it('book: within the hold, the re-run books it (the attempt booked nothing), exactly one meeting', async () => {
    const g = await gate(true);
    const s = await sandboxSlots('intro-call');
    const args = bookFirstSlot(s);
    g.silent = true;
    await killBeforeSending(g, args);
    g.silent = false;
    const again = await viaGate(g, args);
    expect(again.code, show(again)).toBe(0);
    const [m] = (await state()).meetings;
    expect(again.json().meeting).toMatchObject({ id: m!.id, date: s.slots[0] });
    expect((await state()).meetings).toHaveLength(1);
    const rerun = await viaGate(g, args);
    expect(rerun.code, show(rerun)).toBe(0);
    expect(rerun.json()).toMatchObject({ status: 'already_booked', meetingId: m!.id });
    expect((await state()).meetings).toHaveLength(1);
  });

  it('route: after the hold lapsed the re-run books with a new reservation (no "lost answer" to resolve), one meeting', async () => {
    const g = await gate(true);
    g.closeEach = true; // one connection per request: the booking's is a new one
    g.before = (r) => {
      // From the slots request on, new connections stay silent: the booking's never completes TLS.
      if (r.path.endsWith('/slots')) g.silent = true;
    };
    const args = routeArgs('lin@acme.example', 'emea', 'first', ['--timeout', '20']);
    await killBeforeSending(g, args);
    expect(journal(), 'recorded, yet its TLS handshake never completed').toEqual([]);
    expect(await bookRequests()).toEqual([]);
    const [reservation] = (await state()).reservations;

    g.silent = false;
    g.before = undefined;
    await t.sb.advance(HOLD_SECONDS + 5);
    const again = await viaGate(g, args);
    expect(again.code, show(again)).toBe(0);
    expect(again.json()).toMatchObject({ status: 'booked', reused: true });
    expect(again.json().reservationId).not.toBe(reservation!.id);
    expect(again.stderr).not.toContain('was lost');
    const after = await state();
    expect(after.meetings).toHaveLength(1);
    expect(after.executions).toHaveLength(1);
    expect(after.meetings[0]!.id).toBe(again.json().meeting.id);
  });

  it('route: a booking answered 500 (never processed) is not "already booked" once the hold lapsed: the re-run books', async () => {
    await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'status', status: 500 });
    const args = routeArgs('max@acme.example', 'apac', 'first');
    const first = await cli(args);
    expect(first.code, show(first)).toBe(7);
    expect(journal()).toEqual([expect.objectContaining({ outcome: 'unknown' })]);
    expect((await state()).meetings).toEqual([]);
    await t.sb.advance(HOLD_SECONDS + 5);
    // The run never booked: re-sent, its attempt answers RESERVATION_EXPIRED, not CONFLICT (spec rule 2).
    const again = await cli(args);
    expect(again.code, show(again)).toBe(0);
    expect(again.json()).toMatchObject({ status: 'booked' });
    const after = await state();
    expect(after.meetings).toHaveLength(1);
    expect(after.meetings[0]).toMatchObject({ id: again.json().meeting.id, personEmail: 'max@acme.example' });
    const rerun = await cli(args);
    expect(rerun.code, show(rerun)).toBe(0);
    expect(rerun.json()).toMatchObject({ status: 'already_booked' });
    expect((await state()).meetings).toHaveLength(1);
  });
});

describe('other answers', () => {
  it('a lost americas booking, then emea: refused (the earlier outcome is unknown, nothing fired); --rebook books with the EMEA host, warning', async () => {
    await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'drop-after-commit' });
    const americas = await cli(routeArgs('ana@acme.example', 'americas', 'first'));
    expect(americas.code, show(americas)).toBe(7);
    const [lost] = (await state()).meetings;
    expect(lost).toMatchObject({ hosts: ['Ben Carter'] });

    // The ledger's rule: an unknown outcome of this lead blocks other answers too (shared/ledger-rules.md).
    const emea = await cli(routeArgs('ana@acme.example', 'emea', 'first'));
    expect(emea.code, show(emea)).toBe(5);
    expect(emea.json().error).toMatchObject({ code: 'LEAD_OUTCOME_UNKNOWN' });
    expect(emea.json().error.hint).toContain('run the same route again for this lead with the same answers');
    expect((await state()).executions).toHaveLength(1);
    expect((await state()).meetings).toHaveLength(1);

    const rebooked = await cli(routeArgs('ana@acme.example', 'emea', 'first', ['--rebook']));
    expect(rebooked.code, show(rebooked)).toBe(0);
    expect(rebooked.stderr).toContain('a meeting may already exist');
    expect(rebooked.stderr).toContain('was fired with other answers: firing anew');
    const doc = rebooked.json();
    expect(doc).toMatchObject({ status: 'booked', reused: false });
    const s = await state();
    const booked = s.meetings.find((m) => m.id === doc.meeting.id) as (typeof s.meetings)[number] & { hosts: string[] };
    expect(booked).toMatchObject({ hosts: ['Amelia Hart'] });
    expect(booked.workflowExecutionId).not.toBe(lost!.workflowExecutionId);
    // The americas outcome is held no more: it cannot be reused for this lead.
    const held = ledgerRows<{ executionId: string }>(t.dir, 'outcomes');
    expect(held.map((o) => o.executionId)).not.toContain(lost!.workflowExecutionId);
  });

  it('a fired americas outcome is not reused for emea, nor later: americas again fires anew', async () => {
    const fired = await cli([...demoFireArgs('bo@acme.example', 'americas'), '--json']);
    expect(fired.code, show(fired)).toBe(0);
    const americasRun = fired.json().executionId as string;

    const emea = await cli(routeArgs('bo@acme.example', 'emea', 'first'));
    expect(emea.code, show(emea)).toBe(0);
    expect(emea.stderr).toContain(`(workflow run ${americasRun}) was fired with other answers: firing anew`);
    expect(emea.json()).toMatchObject({ status: 'booked', reused: false });
    expect(emea.json().executionId).not.toBe(americasRun);
    let s = await state();
    expect(s.meetings).toEqual([
      expect.objectContaining({ hosts: ['Amelia Hart'], workflowExecutionId: emea.json().executionId }),
    ]);

    const later = await cli(routeArgs('bo@acme.example', 'americas', 'first', ['--rebook']));
    expect(later.code, show(later)).toBe(0);
    expect(later.json()).toMatchObject({ status: 'booked', reused: false });
    expect(later.json().executionId).not.toBe(americasRun);
    s = await state();
    expect(s.executions).toHaveLength(3);
    expect(s.meetings.find((m) => m.id === later.json().meeting.id)).toMatchObject({
      hosts: ['Ben Carter'],
      workflowExecutionId: later.json().executionId,
    });
    expect(s.meetings.map((m) => m.workflowExecutionId)).not.toContain(americasRun);
  });
});

describe('the same script twice', () => {
  it('a loop of 5 routes run twice: the second pass is already_booked for every lead, 5 meetings', async () => {
    const leads = ['a', 'b', 'c', 'd', 'e'].map((x, i) => ({
      email: `${x}@loop.example`,
      region: ['emea', 'americas', 'apac'][i % 3]!,
    }));
    const pass = async () => {
      const out: RunResult[] = [];
      for (const l of leads) out.push(await cli(routeArgs(l.email, l.region, 'first')));
      return out;
    };
    const first = await pass();
    for (const r of first) expect(r.code, show(r)).toBe(0);
    expect(first.map((r) => r.json().status)).toEqual(Array(5).fill('booked'));
    const second = await pass();
    for (const [i, r] of second.entries()) {
      expect(r.code, show(r)).toBe(0);
      expect(r.json()).toMatchObject({ status: 'already_booked', meeting: { id: first[i]!.json().meeting.id } });
    }
    const s = await state();
    expect(s.meetings).toHaveLength(5);
    expect(s.executions).toHaveLength(5);
    expect(new Set(s.meetings.map((m) => m.personEmail)).size).toBe(5);
  });
});

describe('an explicit time after a lost answer', () => {
  it('re-run with the same ISO time, then first, then the local time: already_booked each time, one meeting', async () => {
    const wanted = (await sandboxSlots('sales-emea')).slots[3]!;
    await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'drop-after-commit' });
    const lost = await cli(routeArgs('eve@acme.example', 'emea', wanted));
    expect(lost.code, show(lost)).toBe(7);
    expect((await state()).meetings).toEqual([
      expect.objectContaining({ date: wanted, personEmail: 'eve@acme.example' }),
    ]);

    for (const [slot, extra] of [
      [wanted, []],
      ['first', []],
      [localUtc(wanted), ['--tz', 'UTC']],
      [wanted, []],
      ['first', []],
    ] as const) {
      const r = await cli(routeArgs('eve@acme.example', 'emea', slot, [...extra]));
      expect(r.code, `--slot ${slot}\n${show(r)}`).toBe(0);
      expect(r.json(), `--slot ${slot}`).toMatchObject({ status: 'already_booked', startTime: wanted });
    }
    const s = await state();
    expect(s.meetings).toHaveLength(1);
    expect(s.executions).toHaveLength(1);
  });

  it('a stalled answer (--timeout 1), then the local time form first: already_booked, one meeting', async () => {
    await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'stall-after-commit' });
    const lost = await cli(routeArgs('ivy@acme.example', 'americas', 'first', ['--timeout', '1']));
    expect(lost.code, show(lost)).toBe(7);
    const [m] = (await state()).meetings;
    for (const [slot, extra] of [
      [localUtc(m!.date), ['--tz', 'UTC']],
      [m!.date, []],
      ['first', []],
    ] as const) {
      const r = await cli(routeArgs('ivy@acme.example', 'americas', slot, [...extra]));
      expect(r.code, `--slot ${slot}\n${show(r)}`).toBe(0);
      expect(r.json(), `--slot ${slot}`).toMatchObject({ status: 'already_booked', startTime: m!.date });
    }
    expect((await state()).meetings).toHaveLength(1);
  });
});

describe('a confirmed booking whose local record cannot be written', () => {
  /**
   * Another process (this test) takes the ledger database's write lock the moment the booking
   * reaches the API, and holds it past the command's wait: a hung schedctl, or a disk that stalls.
   */
  function holdLedgerWhenBooked(g: Gate): { release: () => void } {
    let db: DatabaseSync | undefined;
    g.before = (r) => {
      if (r.method !== 'POST' || r.path !== BOOK_PATH || db) return;
      db = new DatabaseSync(join(t.dir, 'ledger.db'));
      db.exec('BEGIN IMMEDIATE');
    };
    return {
      release: () => {
        db?.exec('ROLLBACK');
        db?.close();
        g.before = undefined;
      },
    };
  }
  const HELD = { SCHEDCTL_TEST_LOCK_WAIT_MS: '800' };

  it('route: the ledger is held by another process once the booking left: the meeting is printed, exit 0, a warning names the database; a re-run does not book again', async () => {
    const g = await gate();
    const held = holdLedgerWhenBooked(g);
    const args = routeArgs('zoe@acme.example', 'emea', 'first');
    const r = await viaGate(g, args, HELD);
    held.release();
    expect(r.code, show(r)).toBe(0);
    const doc = r.json();
    expect(doc).toMatchObject({ status: 'booked', meeting: { id: expect.any(String) } });
    expect(r.stderr).toMatch(
      /warning: .*the meeting is booked, but the meeting in the local record .*could not be recorded/,
    );
    expect(r.stderr).toContain(join(t.dir, 'ledger.db'));
    const s = await state();
    expect(s.meetings).toEqual([expect.objectContaining({ id: doc.meeting.id })]);
    // The attempt was written (and marked sent) before the hold: its outcome is what is unknown here.
    expect(journal()).toEqual([expect.objectContaining({ outcome: 'unknown', sentAt: expect.any(String) })]);

    // Run again: the attempt is sent again as it was, and the server's answer proves the booking. No second meeting.
    const again = await viaGate(g, args);
    expect(again.code, show(again)).toBe(0);
    expect(again.json()).toMatchObject({ status: 'already_booked', startTime: doc.meeting.date });
    const after = await state();
    expect(after.meetings).toHaveLength(1);
    expect(after.executions).toHaveLength(1);
    assertNoSecretsInFiles(t.dir);
  });

  it('book: the ledger is held by another process once the request left: the meeting is printed, exit 0, a warning names the journal', async () => {
    const g = await gate();
    const s = await sandboxSlots('intro-call');
    const held = holdLedgerWhenBooked(g);
    const args = [...bookSlotArgs('intro-call', s.slots[1]!, s.reservationId, 'lou@acme.example'), '--tz', 'UTC'];
    const r = await viaGate(g, args, HELD);
    held.release();
    expect(r.code, show(r)).toBe(0);
    const [m] = (await state()).meetings;
    expect(r.stdout).toContain(`Booked meeting ${m!.id}`);
    expect(r.stderr).toMatch(
      /warning: .*the meeting is booked, but .*the journal entry in .*ledger\.db \(attempts\) could not be recorded/,
    );
    expect(journal()).toEqual([expect.objectContaining({ outcome: 'unknown', sentAt: expect.any(String) })]);
    // The re-run resolves it from the server's answer and records the meeting: one meeting.
    const again = await viaGate(g, [...args, '--json']);
    expect(again.code, show(again)).toBe(0);
    expect(again.json()).toMatchObject({ status: 'already_booked' });
    expect((await state()).meetings).toHaveLength(1);
  });
});
