import { ledgerRows } from '../helpers/ledger-db.js';
import { describe, expect, it } from 'vitest';
import { strictSchemas } from '../../src/api/schemas.js';
import { bookSlotArgs, demoFireArgs } from '../helpers/args.js';
import { assertNoSecretsInFiles, show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();

const cli = (args: string[], opts: { key?: 'full' | 'readOnly' | 'revoked' } = {}) =>
  t.sb.cli(args, { configDir: t.dir, ...opts });

/** A time and a reservation to book with, over HTTP (the CLI's slots command has its own tests). */
const slots = (event: string) => t.sb.slots(event, 14);

async function fire(region = 'emea', email = 'lead@acme.example'): Promise<{ executionId: string; linkId: string }> {
  const headers = { authorization: `Bearer ${t.sb.keys.full}`, 'content-type': 'application/json' };
  const { triggers } = (await (await fetch(`${t.sb.baseUrl}/v1/triggers`, { headers })).json()) as {
    triggers: Array<{ id: string; name: string }>;
  };
  const trigger = triggers.find((x) => x.name === 'Inbound demo request')!;
  const res = await fetch(`${t.sb.baseUrl}/v1/triggers/${trigger.id}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email, responses: { company: 'Acme', region } }),
  });
  const body = (await res.json()) as { executionId: string; outcome: { schedulingLinkId: string } };
  return { executionId: body.executionId, linkId: body.outcome.schedulingLinkId };
}

const book = (event: string, start: string, reservation: string, email = 'lead@acme.example', extra: string[] = []) =>
  cli([...bookSlotArgs(event, start, reservation, email), ...extra]);

const journal = () => ledgerRows<Record<string, unknown>>(t.dir, 'attempts');
const meetings = async () => (await t.sb.state()).meetings;
const BOOK = '/v1/scheduling/meetings';
const bookRequests = async () => (await t.sb.state()).requests.filter((q) => q.method === 'POST' && q.path === BOOK);

describe('book: success', () => {
  it('books a plain event and prints the meeting, its time in --tz, the link and how to reschedule', async () => {
    const s = await slots('intro-call');
    const r = await book('intro-call', s.slots[0]!, s.reservationId, 'lead@acme.example', [
      '--tz',
      'Asia/Tokyo',
      '--first-name',
      'Ada',
      '--guest',
      'cto@acme.example',
    ]);
    expect(r.code, show(r)).toBe(0);
    const [m] = await meetings();
    expect(m).toBeDefined();
    expect(r.stderr).toContain(`Booking on SCHEDCTL_API_KEY at ${t.sb.baseUrl}`);
    expect(r.stdout).toContain(`Booked meeting ${m!.id}`);
    expect(r.stdout).toContain('Intro Call with Ada');
    // One time per line, in the display zone (src/ui/meeting-view.ts).
    expect(r.stdout).toMatch(/^ {2}time +\d{4}-\d{2}-\d{2} \d{2}:\d{2} GMT\+9 \(Asia\/Tokyo\), 15 min$/m);
    expect(r.stdout).toMatch(/status +scheduled/);
    expect(r.stdout).toMatch(/link +https:\/\/zoom\.us\/j\//);
    expect(r.stdout).toContain('cto@acme.example');
    expect(r.stderr).toContain(`To move it: schedctl reschedule ${m!.id} --start <time>`);
    expect(journal()).toEqual([
      expect.objectContaining({ outcome: 'booked', meetingId: m!.id, event: 'intro-call', startTime: s.slots[0] }),
    ]);
    assertNoSecretsInFiles(t.dir);
  });

  it('prints the Meeting with --json', async () => {
    const s = await slots('strategy-session');
    const r = await book('strategy-session', s.slots[0]!, s.reservationId, 'lead@acme.example', ['--json']);
    expect(r.code, show(r)).toBe(0);
    // A booking result: `status` and the API's Meeting (docs/json-output.md).
    expect(r.json()).toMatchObject({ status: 'booked', alreadyBookedCode: null, email: 'lead@acme.example' });
    expect(strictSchemas.meeting.safeParse(r.json().meeting).success).toBe(true);
    expect(r.json().meetingId).toBe(r.json().meeting.id);
    expect(r.json().meeting).toMatchObject({
      status: 'scheduled',
      date: s.slots[0],
      location: '1 Market St, San Francisco, CA',
    });
    expect(r.stderr).toBe('');
  });

  it('books a routed slot with the execution id and link (resuming the workflow run)', async () => {
    const { executionId, linkId } = await fire();
    const s = await slots(linkId);
    const r = await book(linkId, s.slots[0]!, s.reservationId, 'lead@acme.example', [
      '--execution',
      executionId,
      '--json',
    ]);
    expect(r.code, show(r)).toBe(0);
    const state = await t.sb.state();
    expect(state.meetings).toHaveLength(1);
    expect(state.meetings[0]!.workflowExecutionId).toBe(executionId);
    expect(state.executions[0]!.meetingId).toBe(r.json().meeting.id);
    expect(r.json().executionId).toBe(executionId);
  });
});

describe('book: every error code of the spec', () => {
  it('INVALID_REQUEST: personEmail differs from the fired email (exit 2)', async () => {
    const { executionId, linkId } = await fire();
    const s = await slots(linkId);
    const r = await book(linkId, s.slots[0]!, s.reservationId, 'other@acme.example', [
      '--execution',
      executionId,
      '--json',
    ]);
    expect(r.code, show(r)).toBe(2);
    expect(r.json().error).toMatchObject({
      code: 'INVALID_REQUEST',
      status: 400,
      details: [expect.stringMatching(/^personEmail: /)],
    });
    expect(r.json().error.hint).toContain('--email must be the email the trigger was fired with');
    expect(await meetings()).toHaveLength(0);
  });

  it('RESERVATION_MISMATCH: a reservation of another event (exit 2)', async () => {
    const s = await slots('intro-call');
    const r = await book('quarterly-review', s.slots[0]!, s.reservationId);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('(RESERVATION_MISMATCH, HTTP 400)');
    expect(r.stderr).toContain('hint: the reservation belongs to another event or link');
    const j = await book('quarterly-review', s.slots[0]!, s.reservationId, 'lead@acme.example', ['--json']);
    expect(j.json().error).toMatchObject({ code: 'RESERVATION_MISMATCH', status: 400 });
  });

  it('WORK_EMAIL_REQUIRED: a personal address for an event that requires a work email (exit 2)', async () => {
    const s = await slots('product-demo');
    const r = await book('product-demo', s.slots[0]!, s.reservationId, 'someone@gmail.com', ['--json']);
    expect(r.code, show(r)).toBe(2);
    expect(r.json().error).toMatchObject({
      code: 'WORK_EMAIL_REQUIRED',
      status: 400,
      hint: expect.stringContaining('company address in --email'),
    });
  });

  it('INVALID_API_KEY: a revoked key (exit 3)', async () => {
    const s = await slots('intro-call');
    const r = await cli([...bookSlotArgs('intro-call', s.slots[0]!, s.reservationId, 'a@acme.example'), '--json'], {
      key: 'revoked',
    });
    expect(r.code, show(r)).toBe(3);
    expect(r.json().error).toMatchObject({
      code: 'INVALID_API_KEY',
      status: 401,
      hint: expect.stringContaining('profile add'),
    });
  });

  it('MISSING_SCOPE: a read-only key (exit 3)', async () => {
    const s = await slots('intro-call');
    const r = await cli([...bookSlotArgs('intro-call', s.slots[0]!, s.reservationId, 'a@acme.example'), '--json'], {
      key: 'readOnly',
    });
    expect(r.code, show(r)).toBe(3);
    expect(r.json().error).toMatchObject({
      code: 'MISSING_SCOPE',
      status: 403,
      hint: expect.stringContaining('scheduling:write'),
    });
    expect(r.json().error.message).toContain('scheduling:write');
  });

  it('NOT_FOUND: an unknown execution or event (exit 4)', async () => {
    const s = await slots('intro-call');
    const r = await book('intro-call', s.slots[0]!, s.reservationId, 'a@acme.example', [
      '--execution',
      '00000000-0000-4000-8000-000000000000',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(4);
    expect(r.json().error).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
      hint: expect.stringContaining('--execution'),
    });
    const e = await book('no-such-event', s.slots[0]!, s.reservationId, 'a@acme.example');
    expect(e.code, show(e)).toBe(4);
    expect(e.stderr).toContain('(NOT_FOUND, HTTP 404)');
    expect(e.stderr).toContain('schedctl events ls');
  });

  it('RESERVATION_EXPIRED: the hold lapsed, so fetch slots again without a reservation (exit 5)', async () => {
    const s = await slots('intro-call');
    await t.sb.advance(601);
    const r = await book('intro-call', s.slots.at(-1)!, s.reservationId, 'a@acme.example', ['--json']);
    expect(r.code, show(r)).toBe(5);
    expect(r.json().error).toMatchObject({
      code: 'RESERVATION_EXPIRED',
      status: 409,
      hint: expect.stringContaining('`schedctl slots intro-call`'),
    });
  });

  it('re-running a successful book is idempotent: already booked, the meeting id, exit 0', async () => {
    const s = await slots('intro-call');
    expect((await book('intro-call', s.slots[0]!, s.reservationId)).code).toBe(0);
    const [m] = await meetings();
    const before = await t.sb.requestCount();
    const again = await book('intro-call', s.slots[0]!, s.reservationId, 'lead@acme.example', ['--json']);
    expect(again.code, show(again)).toBe(0);
    // shared/ledger-rules.md: the identical request, resolved as booked, is answered from the ledger: nothing sent.
    expect(again.json()).toMatchObject({
      status: 'already_booked',
      alreadyBookedCode: 'ON_RECORD',
      meetingId: m!.id,
      reservationId: s.reservationId,
    });
    expect(await t.sb.requestCount()).toBe(before);
    expect(await meetings()).toHaveLength(1);
    const text = await book('intro-call', s.slots[0]!, s.reservationId);
    expect(text.code, show(text)).toBe(0);
    expect(text.stdout).toContain(`booked the meeting ${m!.id}`);
    expect(text.stdout).toContain('nothing was sent');
    expect(await t.sb.requestCount()).toBe(before);
  });

  it('a lead with an upcoming meeting on the event is not booked again by accident (exit 5, nothing sent); --rebook sends it', async () => {
    const s = await slots('intro-call');
    expect((await book('intro-call', s.slots[0]!, s.reservationId)).code).toBe(0);
    const before = await t.sb.requestCount();
    const fresh = await slots('intro-call');
    const r = await book('intro-call', fresh.slots[1]!, fresh.reservationId, 'lead@acme.example', ['--json']);
    expect(r.code, show(r)).toBe(5);
    const [m] = await meetings();
    expect(r.json().error).toMatchObject({
      code: 'LEAD_HAS_MEETING',
      message: expect.stringContaining(m!.id),
      hint: expect.stringContaining('--rebook'),
    });
    expect(await t.sb.requestCount()).toBe(before + 1); // the slots request only
    expect(r.json().error.message).toMatch(/; nothing was sent$/);
    // Without --reservation the free times are read first: the refusal says so, not "nothing was sent".
    const fetched = await cli([
      'book',
      'intro-call',
      '--start',
      fresh.slots[2]!,
      '--email',
      'lead@acme.example',
      '--json',
    ]);
    expect(fetched.code, show(fetched)).toBe(5);
    expect(fetched.json().error.message).toMatch(
      /; no booking was sent \(only the free times were read, for the reservation\)$/,
    );
    // The same time again is a repeat: already booked, from the local record, nothing sent.
    const same = await book('intro-call', s.slots[0]!, fresh.reservationId, 'lead@acme.example', ['--json']);
    expect(same.code, show(same)).toBe(0);
    expect(same.json()).toMatchObject({ status: 'already_booked', alreadyBookedCode: 'ON_RECORD', meetingId: m!.id });
    expect(same.json().meeting).toMatchObject({ id: m!.id });
    const again = await book('intro-call', fresh.slots[1]!, fresh.reservationId, 'lead@acme.example', [
      '--json',
      '--rebook',
    ]);
    expect(again.code, show(again)).toBe(0);
    expect(await meetings()).toHaveLength(2);
  });

  it('two books of the same lead at once: one meeting; the other waits for it, then stops at the record (exit 5)', async () => {
    const a = await slots('intro-call');
    const b = await slots('intro-call');
    expect(b.reservationId).not.toBe(a.reservationId);
    // The first booking to reach the sandbox is held there for a while: without the lead lock the
    // other one, on its own reservation and time, would be booked meanwhile.
    await t.sb.fault({ method: 'POST', path: BOOK, fault: 'delay', delayMs: 1500, count: 1 });
    const runs = await Promise.all([
      book('intro-call', a.slots[0]!, a.reservationId, 'lead@acme.example', ['--json']),
      book('intro-call', b.slots[1]!, b.reservationId, 'LEAD@acme.example', ['--json']),
    ]);
    expect(runs.map((r) => r.code).sort(), runs.map(show).join('\n')).toEqual([0, 5]);
    const refused = runs.find((r) => r.code === 5)!;
    expect(refused.json().error.code).toBe('LEAD_HAS_MEETING');
    expect(await meetings()).toHaveLength(1);
    expect((await bookRequests()).length).toBe(1);
  });

  it('RESERVATION_USED: the reservation was spent by an earlier booking (exit 5)', async () => {
    const s = await slots('intro-call');
    expect((await book('intro-call', s.slots[0]!, s.reservationId)).code).toBe(0);
    const r = await book('intro-call', s.slots[1]!, s.reservationId, 'lead@acme.example', ['--json', '--rebook']);
    expect(r.code, show(r)).toBe(5);
    expect(r.json().error).toMatchObject({
      code: 'RESERVATION_USED',
      status: 409,
      hint: expect.stringContaining('check the calendar'),
    });
    expect(await meetings()).toHaveLength(1);
  });

  it('SLOT_TAKEN: shows the nearest free times under the same reservation (exit 5)', async () => {
    const a = await slots('quarterly-review');
    const b = await slots('quarterly-review');
    const taken = a.slots[0]!;
    expect((await book('quarterly-review', taken, a.reservationId)).code).toBe(0);
    const r = await book('quarterly-review', taken, b.reservationId, 'second@acme.example', ['--json']);
    expect(r.code, show(r)).toBe(5);
    const doc = r.json();
    expect(doc.error).toMatchObject({ code: 'SLOT_TAKEN', status: 409 });
    expect(doc.reservationId).toBe(b.reservationId);
    expect(doc.nearestSlots.length).toBeGreaterThan(0);
    expect(doc.nearestSlots).not.toContain(taken);
    // The reservation is still usable: book one of the nearest times with it.
    const again = await book('quarterly-review', doc.nearestSlots[0], b.reservationId, 'second@acme.example');
    expect(again.code, show(again)).toBe(0);
    expect(await meetings()).toHaveLength(2);
    const human = await book(
      'quarterly-review',
      taken,
      (await slots('quarterly-review')).reservationId,
      'third@acme.example',
      ['--tz', 'UTC'],
    );
    expect(human.code, show(human)).toBe(5);
    expect(human.stderr).toMatch(
      /Nearest free times \(reservation \S+ is still usable\):\n {2}\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC {3}--start \S+/,
    );
    // The hint names the times too (issue 46): the nearest as the command to run.
    expect(human.stderr).toMatch(
      /^hint: the reservation is still usable: book the nearest free time with schedctl book quarterly-review --start \d{4}-\d{2}-\d{2}T\S+Z --reservation /m,
    );
  });

  it('NO_HOST_AVAILABLE: a time no host can take, so pick another slot (exit 5)', async () => {
    const s = await slots('intro-call');
    const offGrid = new Date(Date.parse(s.slots[0]!) + 7 * 60_000).toISOString();
    const r = await book('intro-call', offGrid, s.reservationId, 'a@acme.example', ['--json']);
    expect(r.code, show(r)).toBe(5);
    // Off the event's grid: said as not a start time (issue 46), with one to book instead.
    expect(r.json().error).toMatchObject({
      code: 'NO_HOST_AVAILABLE',
      status: 409,
      hint: expect.stringMatching(/is not a start time of intro-call: .*; book one with --start \S+ --reservation/),
    });
  });

  it('CONFLICT: the scheduling session ended, so fire the trigger again (exit 5)', async () => {
    const { executionId, linkId } = await fire();
    const s = await slots(linkId);
    await fetch(`${t.sb.baseUrl}/_sandbox/executions/${executionId}/end`, { method: 'POST' });
    const r = await book(linkId, s.slots[0]!, s.reservationId, 'lead@acme.example', [
      '--execution',
      executionId,
      '--json',
    ]);
    expect(r.code, show(r)).toBe(5);
    expect(r.json().error).toMatchObject({
      code: 'CONFLICT',
      status: 409,
      hint: expect.stringContaining('schedctl trigger fire <trigger> --email lead@acme.example'),
    });
    expect(await meetings()).toHaveLength(0);
  });

  it('CONFLICT after `schedctl trigger fire`: names the trigger, and firing again needs no --force', async () => {
    const fireArgs = [...demoFireArgs('lead@acme.example'), '--json'];
    const fired = await cli(fireArgs);
    expect(fired.code, show(fired)).toBe(0);
    const { executionId, outcome } = fired.json();
    const s = await slots(outcome.schedulingLinkId);
    await fetch(`${t.sb.baseUrl}/_sandbox/executions/${executionId}/end`, { method: 'POST' });
    const r = await book(outcome.schedulingLinkId, s.slots[0]!, s.reservationId, 'lead@acme.example', [
      '--execution',
      executionId,
      '--json',
    ]);
    expect(r.code, show(r)).toBe(5);
    const triggerId = (await t.sb.state()).executions[0]!.triggerId;
    expect(r.json().error.hint).toContain(`schedctl trigger fire ${triggerId} --email lead@acme.example`);
    const again = await cli(fireArgs);
    expect(again.code, show(again)).toBe(0);
    expect(again.json().executionId).not.toBe(executionId);
    expect((await t.sb.state()).executions).toHaveLength(2);
  });

  it('RATE_LIMITED: gives up when Retry-After is beyond the wait budget (exit 6)', async () => {
    const s = await slots('intro-call');
    await t.sb.fault({
      method: 'POST',
      path: BOOK,
      fault: 'status',
      status: 429,
      code: 'RATE_LIMITED',
      retryAfter: 100_000,
    });
    const r = await book('intro-call', s.slots[0]!, s.reservationId, 'a@acme.example', ['--json']);
    expect(r.code, show(r)).toBe(6);
    expect(r.json().error).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    // Nothing was waited for: the hint says when to try again, never "after waiting".
    expect(r.json().error.hint).toMatch(
      /^the API answered 429: try again in 60 s \(the next schedctl run with this key waits/,
    );
    expect(await meetings()).toHaveLength(0);
  });

  it('INTERNAL_ERROR: a 500 to a booking is an unknown outcome, never retried (exit 7)', async () => {
    const s = await slots('intro-call');
    await t.sb.fault({ method: 'POST', path: BOOK, fault: 'status', status: 500, code: 'INTERNAL_ERROR', count: 5 });
    const r = await book('intro-call', s.slots[0]!, s.reservationId, 'a@acme.example', ['--json']);
    expect(r.code, show(r)).toBe(7);
    expect(r.json().error.code).toBe('OUTCOME_UNKNOWN');
    expect(r.json().error.message).toContain('INTERNAL_ERROR');
    expect(r.json().error.message).toContain('do not book this lead again');
    expect((await t.sb.state()).requests.filter((q) => q.path === BOOK)).toHaveLength(1);
    expect(journal()).toEqual([expect.objectContaining({ outcome: 'unknown' })]);
  });
});

describe('book: lost responses never make a second meeting', () => {
  it('drop-after-commit: exit 7 and journaled; the same command then says already booked (exit 0)', async () => {
    const s = await slots('intro-call');
    await t.sb.fault({ method: 'POST', path: BOOK, fault: 'drop-after-commit' });
    const r = await book('intro-call', s.slots[0]!, s.reservationId);
    expect(r.code, show(r)).toBe(7);
    expect(r.stderr).toContain('almost certainly succeeded, so do not book this lead again');
    expect(r.stderr).toContain('run the same command again');
    expect(journal()).toEqual([
      expect.objectContaining({
        outcome: 'unknown',
        reservationId: s.reservationId,
        event: 'intro-call',
        personEmail: 'lead@acme.example',
        startTime: s.slots[0],
        scope: expect.stringMatching(new RegExp(`^http://loopback:${new URL(t.sb.baseUrl).port}#key:[0-9a-f]{16}$`)),
      }),
    ]);
    expect(await meetings()).toHaveLength(1);
    const again = await book('intro-call', s.slots[0]!, s.reservationId);
    expect(again.code, show(again)).toBe(0);
    expect(again.stdout).toContain('Already booked');
    expect(again.stdout).toContain('RESERVATION_USED');
    expect(await meetings()).toHaveLength(1);
    // Now resolved as booked in the ledger: the identical request again is answered from it, nothing sent.
    const sentBefore = await t.sb.requestCount();
    const json = await book('intro-call', s.slots[0]!, s.reservationId, 'lead@acme.example', ['--json']);
    expect(json.code, show(json)).toBe(0);
    expect(await t.sb.requestCount()).toBe(sentBefore);
    expect(json.json()).toEqual({
      status: 'already_booked',
      meeting: null,
      meetingId: null,
      startTime: s.slots[0],
      email: 'lead@acme.example',
      event: 'intro-call',
      reservationId: s.reservationId,
      executionId: null,
      alreadyBookedCode: 'ON_RECORD',
    });
    expect(await meetings()).toHaveLength(1);
    assertNoSecretsInFiles(t.dir);
  });

  it('drop-after-commit of a book without --reservation: the same command sends that booking again as it was (exit 0), no slots first', async () => {
    const s = await slots('intro-call');
    const args = ['book', 'intro-call', '--start', s.slots[1]!, '--email', 'lost-start@acme.example'];
    await t.sb.fault({ method: 'POST', path: BOOK, fault: 'drop-after-commit' });
    const lost = await cli(args);
    expect(lost.code, show(lost)).toBe(7);
    expect(lost.stderr).toContain('run the same command again');
    const [first] = journal();
    const slotsAsked = async () =>
      (await t.sb.state()).requests.filter((q) => q.method === 'POST' && q.path.endsWith('/slots')).length;
    const slotsBefore = await slotsAsked();
    const again = await cli([...args, '--json']);
    expect(again.code, show(again)).toBe(0);
    expect(again.json()).toMatchObject({
      status: 'already_booked',
      alreadyBookedCode: 'RESERVATION_USED',
      reservationId: first!.reservationId,
      startTime: s.slots[1],
    });
    expect(await slotsAsked()).toBe(slotsBefore);
    expect(await bookRequests()).toHaveLength(2);
    expect(await meetings()).toHaveLength(1);
  });

  it("drop-after-commit of a book of a day's first free time: the same command finds the lost booking in that day (exit 0)", async () => {
    const s = await slots('intro-call');
    const day = s.slots[0]!.slice(0, 10);
    const args = ['book', 'intro-call', '--start', day, '--tz', 'UTC', '--email', 'lost-day@acme.example', '--json'];
    await t.sb.fault({ method: 'POST', path: BOOK, fault: 'drop-after-commit' });
    const lost = await cli(args);
    expect(lost.code, show(lost)).toBe(7);
    const again = await cli(args);
    expect(again.code, show(again)).toBe(0);
    expect(again.json()).toMatchObject({ status: 'already_booked', alreadyBookedCode: 'RESERVATION_USED' });
    expect(again.json().startTime.slice(0, 10)).toBe(day);
    expect(await bookRequests()).toHaveLength(2);
    expect(await meetings()).toHaveLength(1);
  });

  it('stall-after-commit with --timeout 1 on a routed booking: exit 7, then already_booked via CONFLICT', async () => {
    const { executionId, linkId } = await fire();
    const s = await slots(linkId);
    await t.sb.fault({ method: 'POST', path: BOOK, fault: 'stall-after-commit' });
    const r = await book(linkId, s.slots[0]!, s.reservationId, 'lead@acme.example', [
      '--execution',
      executionId,
      '--timeout',
      '1',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(7);
    expect(r.json().error).toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      message: expect.stringContaining('almost certainly succeeded'),
    });
    expect(journal()).toEqual([expect.objectContaining({ outcome: 'unknown', workflowExecutionId: executionId })]);
    expect(await meetings()).toHaveLength(1);
    // A new reservation for the same run: the server answers CONFLICT (the run already booked).
    const fresh = await slots(linkId);
    const again = await book(linkId, fresh.slots[1]!, fresh.reservationId, 'lead@acme.example', [
      '--execution',
      executionId,
      '--json',
    ]);
    expect(again.code, show(again)).toBe(0);
    expect(again.json()).toMatchObject({
      status: 'already_booked',
      alreadyBookedCode: 'CONFLICT',
      executionId,
      reservationId: s.reservationId,
    });
    expect(await meetings()).toHaveLength(1);
    expect(journal()).toEqual([expect.objectContaining({ outcome: 'already_booked' })]);
  });
});

describe('book: bad input is refused before any request (exit 2)', () => {
  const start = '2030-01-07T10:00:00Z';
  const res = '11111111-1111-4111-8111-111111111111';
  // Every malformed flag of book (--email, --start, --tz, --lead-tz, --reservation, --execution,
  // --guest, eleven guests, --response, a missing flag) is a case of the bad-input matrix
  // (test/reliability/bad-input.test.ts: exit 2, one line naming it, nothing sent), and its --json
  // document is checked there too; the readings of a time that only book's --start meets are here.
  it.each([
    [['--start', '2020-01-06T10:00:00Z'], '--start'],
    [['--start', '2026-12-01T14:00+25:00'], '--start'],
    // Clocks go back that night in Berlin: 02:30 happens twice, so it is refused with both readings.
    [['--start', '2030-10-27 02:30', '--tz', 'Europe/Berlin'], '+01:00'],
  ])('%j names %s', async (args, flag) => {
    const base = { '--start': start, '--reservation': res, '--email': 'a@acme.example' } as Record<string, string>;
    for (let i = 0; i < args.length; i += 2) if (args[i]! in base) base[args[i]!] = args[i + 1]!;
    const rest = args.filter((_, i) => !(args[i - (i % 2)]! in { '--start': 1, '--reservation': 1, '--email': 1 }));
    const argv = ['book', 'intro-call', ...Object.entries(base).flat(), ...rest];
    const r = await cli(argv);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain(flag);
    const j = await cli([...argv, '--json']);
    expect(j.json().error.code).toBe('USAGE');
    expect(await t.sb.requestCount()).toBe(0);
  });

  it('the past is refused for book, reschedule and route --slot, naming the time and now', async () => {
    const past = '2020-01-06T10:00:00Z';
    for (const argv of [
      bookSlotArgs('intro-call', past, res, 'a@acme.example'),
      ['reschedule', '00000000-0000-4000-8000-000000000000', '--start', past],
      [
        'route',
        '--trigger',
        'Inbound demo request',
        '--email',
        'a@acme.example',
        '--field',
        'company=A',
        '--field',
        'region=emea',
        '--slot',
        past,
      ],
    ]) {
      const r = await cli([...argv, '--json']);
      expect(r.code, show(r)).toBe(2);
      expect(r.json().error.message).toMatch(/is in the past \(now /);
    }
    expect(await t.sb.requestCount()).toBe(0);
  });

  // --reservation is not among them: without it the free times are fetched for --start (book-time-grammar.test.ts).
  it('names each missing required flag', async () => {
    for (const missing of ['--start', '--email']) {
      const all: Record<string, string> = { '--start': start, '--reservation': res, '--email': 'a@acme.example' };
      delete all[missing];
      const r = await cli(['book', 'intro-call', ...Object.entries(all).flat()]);
      expect(r.code, show(r)).toBe(2);
      expect(r.stderr).toContain(`missing ${missing}`);
    }
    expect(await t.sb.requestCount()).toBe(0);
  });
});
