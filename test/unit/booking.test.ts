/**
 * bookSlot over a real state store (a temp dir, an injected clock) and a fake API whose book
 * calls `beforeSend` exactly when a real request would leave the machine. Journals hold several
 * leads, workspaces and outcomes at once, so a look-up that matches too much is caught.
 */
import { ledgerRows } from '../helpers/ledger-db.js';
import { whoAmI } from '../../src/state/meetings.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { BookRequest, Meeting, SlotsRequest, SlotsResult } from '../../src/api/schemas.js';
import { meetingFixture } from '../helpers/meeting.js';
import {
  ALREADY_BOOKED_CODES,
  bookSlot,
  SlotTakenError,
  type BookDeps,
  type BookResult,
} from '../../src/domain/booking.js';
import { ApiError, NetworkError, OutcomeUnknownError } from '../../src/errors.js';
import { openState, type JournalEntry, type State } from '../../src/state/index.js';

const DAY = 86_400_000;
// Every date below is relative to this injected clock (far from the real date on purpose).
const NOW = new Date('2031-03-01T12:00:00.000Z');
const RES = '11111111-1111-4111-8111-111111111111';
const RES_B = '55555555-5555-4555-8555-555555555555';
const EXEC = '22222222-2222-4222-8222-222222222222';
const EXEC_B = '66666666-6666-4666-8666-666666666666';
const MEETING_ID = '33333333-3333-4333-8333-333333333333';
const SCOPE = 'env@http://127.0.0.1:4010';
const OTHER_SCOPE = 'prod@https://api.example.com';
/** The requested start, written with an offset; the server answers it in UTC (meeting.date). */
const START_LOCAL = '2031-03-03T16:00:00+02:00';
const START = '2031-03-03T14:00:00.000Z';
const LEAD = 'lead@company.com';
const LEAD_B = 'other@company.com';

const request = (extra: Partial<BookRequest> = {}): BookRequest => ({
  startTime: START_LOCAL,
  reservationId: RES,
  event: 'intro-call',
  personEmail: LEAD,
  ...extra,
});

const meetingFor = (over: Partial<Meeting> = {}): Meeting =>
  meetingFixture(MEETING_ID, NOW, { eventId: 'ev', date: START, duration: 15, personEmail: LEAD, ...over });
const meeting = meetingFor();

const apiError = (code: string, status = 409, details?: string[]) =>
  new ApiError({
    status,
    code,
    message: `server says ${code}`,
    method: 'POST',
    path: '/v1/scheduling/meetings',
    ...(details ? { details } : {}),
  });
const LOST_MESSAGE = 'POST /v1/scheduling/meetings: no response within 1 s; the request may have been processed';
const lostError = () => new OutcomeUnknownError(LOST_MESSAGE);

/**
 * What one book call does: answer (after sending), fail after sending, fail before anything
 * left, or answer through a transport that never reports sending (beforeSend not called).
 */
type BookStep = Meeting | Error | { unsent: Error } | { quiet: Meeting };
const unsent = (error: Error): BookStep => ({ unsent: error });
const lost = (): BookStep => lostError();

let clock: Date;
let state: State;
let dir: string;
beforeEach(() => {
  clock = NOW;
  dir = mkdtempSync(join(tmpdir(), 'booking-'));
  state = openState(dir, { now: () => clock });
});
const at = (days: number, ms = 0) => {
  clock = new Date(NOW.getTime() + days * DAY + ms);
  return clock;
};

function fakeApi(steps: BookStep[], slots: string[] | Error = []) {
  const booked: BookRequest[] = [];
  const slotCalls: Array<{ event: string; body: SlotsRequest }> = [];
  const api: BookDeps['api'] = {
    book: async (body, opts) => {
      booked.push(body);
      const step = steps.shift();
      if (!step) throw new Error('unexpected book call');
      if ('unsent' in step) throw step.unsent;
      if ('quiet' in step) return step.quiet;
      // The request leaves the machine: the journal learns it first.
      await opts?.beforeSend?.();
      if (step instanceof Error) throw step;
      return step;
    },
    slots: async (event, body): Promise<SlotsResult> => {
      slotCalls.push({ event, body });
      if (slots instanceof Error) throw slots;
      return { reservationId: body.reservationId ?? 'new', eventId: 'ev', expiresAt: START, slots, activeHost: null };
    },
  };
  return { api, booked, slotCalls };
}

function deps(steps: BookStep[], over: Partial<BookDeps> = {}, slots: string[] | Error = []) {
  const f = fakeApi(steps, slots);
  const d: BookDeps = {
    api: f.api,
    journal: state.journal,
    meetings: state.meetings,
    outcomes: state.outcomes,
    scope: SCOPE,
    now: () => clock,
    ...over,
  };
  return { d, ...f };
}

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a failure');
}
async function apiFailure(p: Promise<unknown>): Promise<ApiError> {
  const e = await failure(p);
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}
function alreadyBooked(r: BookResult) {
  expect(r.status).toBe('already_booked');
  if (r.status !== 'already_booked') throw new Error('not already_booked');
  return r;
}
const entries = () => state.journal.all();
const outcomesOf = async () => (await entries()).map((e) => `${e.personEmail} ${e.outcome}`);

describe('bookSlot: a booking', () => {
  it('books and journals the meeting (id, event, the time the server confirmed) with its origin', async () => {
    const { d, booked } = deps([meeting], { origin: { triggerId: 'trig-1', answersKey: 'k-1' } });
    const r = await bookSlot(d, request());
    expect(r).toEqual({ status: 'booked', meeting, warnings: [] });
    expect(booked).toEqual([request()]);
    const [entry, ...rest] = await entries();
    expect(rest).toEqual([]);
    expect(entry).toEqual({
      id: expect.any(String),
      scope: SCOPE,
      event: 'intro-call',
      reservationId: RES,
      workflowExecutionId: null,
      personEmail: LEAD,
      startTime: START,
      attemptedAt: NOW.toISOString(),
      sentAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
      outcome: 'booked',
      meetingId: MEETING_ID,
      eventId: meeting.eventId,
      triggerId: 'trig-1',
      answersKey: 'k-1',
      request: request(),
    });
  });

  it('keeps no origin fields when the booking was not routed', async () => {
    const { d } = deps([meeting], { meetings: undefined });
    await bookSlot(d, request());
    const [entry] = await entries();
    expect(entry).not.toHaveProperty('triggerId');
    expect(entry).not.toHaveProperty('answersKey');
    // Without a meetings record nothing is written there.
    expect(await state.meetings.list(SCOPE)).toEqual([]);
  });

  it('records the booked meeting with how it was booked (source, event, trigger, answers)', async () => {
    const { d } = deps([meeting], { origin: { triggerId: 'trig-1', answersKey: 'k-1' } });
    await bookSlot(d, request());
    expect(await state.meetings.get(SCOPE, MEETING_ID)).toEqual({
      ...meeting,
      scope: SCOPE,
      source: 'booked',
      recordedAt: NOW.toISOString(),
      event: 'intro-call',
      bookedBy: whoAmI(),
      triggerId: 'trig-1',
      answersKey: 'k-1',
      history: [],
    });
    expect(await state.meetings.get(OTHER_SCOPE, MEETING_ID)).toBeUndefined();
  });

  it('finds the booked meeting by workspace and id only', async () => {
    const other = '77777777-7777-4777-8777-777777777777';
    await bookSlot(deps([meeting]).d, request());
    clock = at(0, 1000);
    await bookSlot(
      deps([meetingFor({ id: other, personEmail: LEAD_B })]).d,
      request({ reservationId: RES_B, personEmail: LEAD_B }),
    );
    await bookSlot(deps([meeting], { scope: OTHER_SCOPE }).d, request({ event: 'prod-call' }));
    expect(await state.journal.findMeeting(SCOPE, MEETING_ID)).toMatchObject({
      event: 'intro-call',
      personEmail: LEAD,
      meetingId: MEETING_ID,
    });
    expect(await state.journal.findMeeting(SCOPE, other)).toMatchObject({ personEmail: LEAD_B, meetingId: other });
    expect(await state.journal.findMeeting(OTHER_SCOPE, MEETING_ID)).toMatchObject({
      event: 'prod-call',
      scope: OTHER_SCOPE,
    });
    expect(await state.journal.findMeeting(OTHER_SCOPE, other)).toBeUndefined();
    expect(await state.journal.findMeeting('staging@https://x', MEETING_ID)).toBeUndefined();
  });

  it('forgets the remembered outcome of the workflow run it used up, and only that one', async () => {
    const outcome = { type: 'scheduler', schedulerUrl: 'https://x', schedulingLinkId: 'link' };
    await state.outcomes.remember(SCOPE, 't1', LEAD, {
      executionId: EXEC,
      outcome,
      firedAt: NOW.toISOString(),
      answersKey: 'a',
    });
    await state.outcomes.remember(SCOPE, 't1', LEAD_B, {
      executionId: EXEC_B,
      outcome,
      firedAt: NOW.toISOString(),
      answersKey: 'a',
    });
    await state.outcomes.remember(OTHER_SCOPE, 't1', LEAD, {
      executionId: EXEC,
      outcome,
      firedAt: NOW.toISOString(),
      answersKey: 'a',
    });
    await bookSlot(deps([meeting]).d, request({ workflowExecutionId: EXEC }));
    expect(await state.outcomes.get(SCOPE, 't1', LEAD)).toBeUndefined();
    expect((await state.outcomes.get(SCOPE, 't1', LEAD_B))?.executionId).toBe(EXEC_B);
    expect((await state.outcomes.get(OTHER_SCOPE, 't1', LEAD))?.executionId).toBe(EXEC);
  });
});

describe('bookSlot: lost responses', () => {
  it('turns a lost response into exit 7 saying it almost certainly booked, and journals the sent attempt as unknown', async () => {
    const { d, booked } = deps([lost()]);
    const e = await failure(bookSlot(d, request({ workflowExecutionId: EXEC })));
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect((e as OutcomeUnknownError).exitCode).toBe(7);
    expect(e.message).toBe(
      "the booking's outcome is unknown (POST /v1/scheduling/meetings: no response within 1 s): it almost certainly succeeded, so do not book this lead again",
    );
    expect((e as OutcomeUnknownError).hint).toBe(
      `to check, run the same command again: the reservation is single-use, so it reports "already booked" (exit 0) or books it once, and cannot create a second meeting; the attempt is recorded in ${state.journal.path}`,
    );
    expect((e as Error & { cause?: unknown }).cause).toBeInstanceOf(OutcomeUnknownError);
    expect(booked).toHaveLength(1);
    expect(await entries()).toEqual([
      expect.objectContaining({
        outcome: 'unknown',
        reservationId: RES,
        workflowExecutionId: EXEC,
        personEmail: LEAD,
        startTime: START_LOCAL,
        sentAt: NOW.toISOString(),
      }),
    ]);
    expect(await state.meetings.list(SCOPE)).toEqual([]);
  });

  it('says an explicit error answer proves nothing either way, never "almost certainly"', async () => {
    const html502 = new OutcomeUnknownError(
      'POST /v1/scheduling/meetings failed with HTTP 502; the request may have been processed',
      {
        lostBy: 'error_answer',
      },
    );
    const e = await failure(bookSlot(deps([html502]).d, request()));
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(e.message).toBe(
      "the booking's outcome is unknown (POST /v1/scheduling/meetings failed with HTTP 502): whether it booked is not known, so do not book this lead again until you know",
    );
    expect((e as OutcomeUnknownError).lostBy).toBe('error_answer');
    expect(await entries()).toEqual([expect.objectContaining({ outcome: 'unknown', lostBy: 'error_answer' })]);
  });

  it('a timeout before the booking left (its attempt not yet marked sent) is "nothing was sent", not exit 7, and forgets the attempt', async () => {
    const e = await failure(bookSlot(deps([unsent(lostError())]).d, request()));
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as NetworkError).exitCode).toBe(1);
    expect(e.message).toBe(
      'POST /v1/scheduling/meetings: no response within 1 s, before the booking left this machine; nothing was sent',
    );
    expect((e as NetworkError).hint).toContain('run the same command again');
    expect(await entries()).toEqual([]);
  });

  it('takes exactly CONFLICT, RESERVATION_USED and RESERVATION_EXPIRED after a lost response as booked', () => {
    expect([...ALREADY_BOOKED_CODES]).toEqual(['CONFLICT', 'RESERVATION_USED', 'RESERVATION_EXPIRED']);
  });

  it("keeps the transport's reason whole unless it ends with the may-have-been-processed clause", async () => {
    const odd = new OutcomeUnknownError('reset; the request may have been processed, maybe twice');
    const e = await failure(bookSlot(deps([odd]).d, request()));
    expect(e.message).toBe(
      "the booking's outcome is unknown (reset; the request may have been processed, maybe twice): it almost certainly succeeded, so do not book this lead again",
    );
  });

  it('names no journal file in the hint when the journal has no path', async () => {
    const j = state.journal;
    const journal: BookDeps['journal'] = {
      begin: (e, o) => j.begin(e, o),
      remove: (id) => j.remove(id),
      update: (id, patch) => j.update(id, patch),
      path: '',
    };
    const e = (await failure(bookSlot(deps([lost()], { journal }).d, request()))) as OutcomeUnknownError;
    expect(e.hint).toMatch(/cannot create a second meeting$/);
  });

  it('works without a remembered-outcomes store', async () => {
    const { d } = deps([lost(), apiError('CONFLICT'), meetingFor({ id: 'm-b', personEmail: LEAD_B })], {
      outcomes: undefined,
      meetings: undefined,
    });
    await failure(bookSlot(d, request({ workflowExecutionId: EXEC })));
    expect(alreadyBooked(await bookSlot(d, request({ workflowExecutionId: EXEC }))).code).toBe('CONFLICT');
    const r = await bookSlot(d, request({ workflowExecutionId: EXEC_B, reservationId: RES_B, personEmail: LEAD_B }));
    expect(r).toMatchObject({ status: 'booked', warnings: [] });
  });

  for (const code of ['CONFLICT', 'RESERVATION_USED', 'RESERVATION_EXPIRED']) {
    it(`reports already_booked when a retry after a lost response meets ${code}`, async () => {
      const { d } = deps([lost(), apiError(code)]);
      await failure(bookSlot(d, request()));
      const retryAt = at(1).toISOString();
      const r = alreadyBooked(await bookSlot(d, request()));
      expect(r.code).toBe(code);
      expect(r.warnings).toEqual([]);
      expect(r.attempt).toMatchObject({
        reservationId: RES,
        outcome: 'already_booked',
        updatedAt: retryAt,
        attemptedAt: NOW.toISOString(),
      });
      // The retry itself leaves no entry; the earlier attempt is now known to have booked.
      expect(await entries()).toEqual([r.attempt]);
    });
  }

  it('keeps saying already_booked on later runs, with the one entry', async () => {
    const { d } = deps([lost(), apiError('RESERVATION_USED'), apiError('RESERVATION_EXPIRED')]);
    await failure(bookSlot(d, request()));
    const first = alreadyBooked(await bookSlot(d, request()));
    const again = alreadyBooked(await bookSlot(d, request()));
    expect(again.attempt.id).toBe(first.attempt.id);
    expect(again.code).toBe('RESERVATION_EXPIRED');
    expect(await outcomesOf()).toEqual([`${LEAD} already_booked`]);
  });

  it('forgets the remembered outcome of a workflow run found already booked', async () => {
    const outcome = { type: 'scheduler', schedulerUrl: 'https://x', schedulingLinkId: 'link' };
    await state.outcomes.remember(SCOPE, 't1', LEAD, {
      executionId: EXEC,
      outcome,
      firedAt: NOW.toISOString(),
      answersKey: 'a',
    });
    const { d } = deps([lost(), apiError('CONFLICT')]);
    await failure(bookSlot(d, request({ workflowExecutionId: EXEC })));
    expect(await state.outcomes.get(SCOPE, 't1', LEAD)).toBeDefined();
    alreadyBooked(await bookSlot(d, request({ workflowExecutionId: EXEC })));
    expect(await state.outcomes.get(SCOPE, 't1', LEAD)).toBeUndefined();
  });

  it('takes RESERVATION_EXPIRED on a retry of the same workflow run as proof the run never booked', async () => {
    // Spec rule 2: a run that booked answers CONFLICT or RESERVATION_USED to a retry.
    const { d } = deps([lost(), apiError('RESERVATION_EXPIRED')]);
    await failure(bookSlot(d, request({ workflowExecutionId: EXEC })));
    const e = await apiFailure(bookSlot(d, request({ workflowExecutionId: EXEC })));
    expect(e.code).toBe('RESERVATION_EXPIRED');
    expect(e.hint).toContain('without a reservation (`schedctl slots intro-call`)');
    // The lost attempt booked nothing: it is gone, and nothing is reported already booked later.
    expect(await entries()).toEqual([]);
  });

  it.each([
    ['RESERVATION_EXPIRED', undefined],
    ['CONFLICT', EXEC],
  ] as const)(
    'never reports already_booked when the first attempt got an explicit error answer and the retry %s',
    async (code, run) => {
      const serverError = new OutcomeUnknownError('POST /v1/scheduling/meetings failed with HTTP 500', {
        lostBy: 'error_answer',
      });
      const { d } = deps([serverError, apiError(code)]);
      const req = run ? request({ workflowExecutionId: run }) : request();
      await failure(bookSlot(d, req));
      expect((await entries())[0]).toMatchObject({ outcome: 'unknown', lostBy: 'error_answer' });
      const e = (await failure(bookSlot(d, req))) as OutcomeUnknownError;
      expect(e).toBeInstanceOf(OutcomeUnknownError);
      expect(e.exitCode).toBe(7);
      expect(e.message).toBe(
        `the earlier booking of ${LEAD} got an error answer from the server, and this retry ${code}: whether it booked a meeting is unknown`,
      );
      expect(e.hint).toContain('--rebook');
      // Still unknown: it keeps blocking a new booking of this lead.
      expect(await outcomesOf()).toEqual([`${LEAD} unknown`]);
    },
  );

  it('takes RESERVATION_USED after an explicit error answer as booked (only this client held the reservation)', async () => {
    const serverError = new OutcomeUnknownError('HTTP 502', { lostBy: 'error_answer' });
    const { d } = deps([serverError, apiError('RESERVATION_USED')]);
    await failure(bookSlot(d, request()));
    expect(alreadyBooked(await bookSlot(d, request())).code).toBe('RESERVATION_USED');
    expect(await outcomesOf()).toEqual([`${LEAD} already_booked`]);
  });

  it('keeps RESERVATION_EXPIRED meaning "booked" for a retry without the run, or of another run', async () => {
    const { d } = deps([lost(), apiError('RESERVATION_EXPIRED')]);
    await failure(bookSlot(d, request({ workflowExecutionId: EXEC })));
    // Same reservation, no run given: rules 3-4.
    expect(alreadyBooked(await bookSlot(d, request())).code).toBe('RESERVATION_EXPIRED');

    state = openState(mkdtempSync(join(tmpdir(), 'booking-')), { now: () => clock });
    const other = deps([lost(), apiError('RESERVATION_EXPIRED')]);
    await failure(bookSlot(other.d, request()));
    // Same reservation; the lost attempt had no run, this retry has one.
    expect(alreadyBooked(await bookSlot(other.d, request({ workflowExecutionId: EXEC }))).code).toBe(
      'RESERVATION_EXPIRED',
    );
  });

  it('leaves an attempt already known to have booked alone when the same run later meets RESERVATION_EXPIRED', async () => {
    const { d } = deps([lost(), apiError('CONFLICT'), apiError('RESERVATION_EXPIRED')]);
    await failure(bookSlot(d, request({ workflowExecutionId: EXEC })));
    alreadyBooked(await bookSlot(d, request({ workflowExecutionId: EXEC })));
    expect((await apiFailure(bookSlot(d, request({ workflowExecutionId: EXEC })))).code).toBe('RESERVATION_EXPIRED');
    expect(await outcomesOf()).toEqual([`${LEAD} already_booked`]);
  });

  it('matches a lost attempt by workflow execution even with another reservation', async () => {
    const { d } = deps([lost(), apiError('CONFLICT')]);
    await failure(bookSlot(d, request({ workflowExecutionId: EXEC })));
    const r = alreadyBooked(await bookSlot(d, request({ workflowExecutionId: EXEC, reservationId: RES_B })));
    expect(r.attempt).toMatchObject({ reservationId: RES, workflowExecutionId: EXEC });
  });

  it('never matches by execution when the executions differ, or when neither attempt had one', async () => {
    const { d } = deps([lost(), apiError('CONFLICT'), apiError('RESERVATION_USED')]);
    await failure(bookSlot(d, request({ workflowExecutionId: EXEC })));
    // Another reservation and another run: nothing in common with the lost attempt.
    expect((await apiFailure(bookSlot(d, request({ workflowExecutionId: EXEC_B, reservationId: RES_B })))).code).toBe(
      'CONFLICT',
    );

    state = openState(mkdtempSync(join(tmpdir(), 'booking-')), { now: () => clock });
    const { d: d2 } = deps([lost(), apiError('RESERVATION_USED')]);
    await failure(bookSlot(d2, request()));
    // A null run is not "the same run": only the reservation could match, and it differs.
    expect((await apiFailure(bookSlot(d2, request({ reservationId: RES_B })))).code).toBe('RESERVATION_USED');
  });

  it('does not match attempts of another workspace (profile or base URL)', async () => {
    await failure(bookSlot(deps([lost()]).d, request({ workflowExecutionId: EXEC })));
    const e = await apiFailure(
      bookSlot(deps([apiError('RESERVATION_USED')], { scope: OTHER_SCOPE }).d, request({ workflowExecutionId: EXEC })),
    );
    expect(e.code).toBe('RESERVATION_USED');
    expect(await entries()).toEqual([expect.objectContaining({ scope: SCOPE, outcome: 'unknown' })]);
  });

  it("never reports another lead's lost attempt as this lead's booking, nor drops it when this lead books", async () => {
    // Lead A's answer is lost; lead B (own reservation and run) is refused, then books.
    await failure(bookSlot(deps([lost()]).d, request({ workflowExecutionId: EXEC })));
    const refused = await apiFailure(
      bookSlot(
        deps([apiError('RESERVATION_USED')]).d,
        request({ personEmail: LEAD_B, reservationId: RES_B, workflowExecutionId: EXEC_B }),
      ),
    );
    expect(refused.code).toBe('RESERVATION_USED');
    const b = await bookSlot(
      deps([meetingFor({ personEmail: LEAD_B })]).d,
      request({ personEmail: LEAD_B, reservationId: RES_B, workflowExecutionId: EXEC_B }),
    );
    expect(b.status).toBe('booked');
    expect(await outcomesOf()).toEqual([`${LEAD} unknown`, `${LEAD_B} booked`]);
    // A's retry still learns that its first attempt booked.
    const a = alreadyBooked(await bookSlot(deps([apiError('CONFLICT')]).d, request({ workflowExecutionId: EXEC })));
    expect(a.attempt.personEmail).toBe(LEAD);
    expect(await outcomesOf()).toEqual([`${LEAD} already_booked`, `${LEAD_B} booked`]);
  });

  // BUG (src/state/journal.ts findPrior, the `sameBooking` filter): the lead's email is compared
  // only for `booked` entries, so lead A's lost attempt matches lead B's request on the same
  // reservation: B's refusal is reported `already_booked` (exit 0) though B has no meeting, and
  // B's success deletes A's record (booking.ts recordBooked). Flip to `it` once fixed.
  it("does not take lead A's lost attempt for lead B's booking on the same reservation", async () => {
    await failure(bookSlot(deps([lost()]).d, request()));
    const e = await failure(bookSlot(deps([apiError('RESERVATION_USED')]).d, request({ personEmail: LEAD_B })));
    expect(e).toBeInstanceOf(ApiError);
  });

  // Sent, lost; sent again, lost again (or its sender killed): what settles the latest settles both.
  it('settles every lost attempt of the booking when a retry finds it booked, not only the latest', async () => {
    const { d } = deps([lost(), lost(), apiError('RESERVATION_USED')]);
    await failure(bookSlot(d, request()));
    await failure(bookSlot(d, request()));
    expect(await outcomesOf()).toEqual([`${LEAD} unknown`, `${LEAD} unknown`]);
    const r = alreadyBooked(await bookSlot(d, request()));
    expect(await entries()).toEqual([r.attempt]);
  });

  it('takes CONFLICT as booked when the booking, resent after a lost answer, then got an explicit error answer', async () => {
    const serverError = new OutcomeUnknownError('POST /v1/scheduling/meetings failed with HTTP 500', {
      lostBy: 'error_answer',
    });
    const run = request({ workflowExecutionId: EXEC });
    const { d } = deps([lost(), serverError, apiError('CONFLICT')]);
    await failure(bookSlot(d, run));
    await failure(bookSlot(d, run));
    // The first one may have booked (its answer was lost): the run's CONFLICT says it did.
    const r = alreadyBooked(await bookSlot(d, run));
    expect(await entries()).toEqual([r.attempt]);
  });

  it('takes CONFLICT as booked after an explicit error answer when another send of the booking is known to have booked', async () => {
    const serverError = new OutcomeUnknownError('POST /v1/scheduling/meetings failed with HTTP 500', {
      lostBy: 'error_answer',
    });
    const run = request({ workflowExecutionId: EXEC });
    const { d } = deps([lost(), apiError('CONFLICT'), serverError, apiError('CONFLICT')]);
    await failure(bookSlot(d, run));
    const known = alreadyBooked(await bookSlot(d, run));
    await failure(bookSlot(d, run));
    expect(await outcomesOf()).toEqual([`${LEAD} already_booked`, `${LEAD} unknown`]);
    const r = alreadyBooked(await bookSlot(d, run));
    expect(r.attempt.id).not.toBe(known.attempt.id);
    expect(await outcomesOf()).toEqual([`${LEAD} already_booked`, `${LEAD} already_booked`]);
  });

  it('drops every lost attempt of the booking when a retry books, or proves the run never booked', async () => {
    const booked = deps([lost(), lost(), meeting]).d;
    await failure(bookSlot(booked, request()));
    await failure(bookSlot(booked, request()));
    expect((await bookSlot(booked, request())).status).toBe('booked');
    expect(await outcomesOf()).toEqual([`${LEAD} booked`]);

    state = openState(mkdtempSync(join(tmpdir(), 'booking-')), { now: () => clock });
    const run = request({ workflowExecutionId: EXEC });
    const never = deps([lost(), lost(), apiError('RESERVATION_EXPIRED')]).d;
    await failure(bookSlot(never, run));
    await failure(bookSlot(never, run));
    expect((await apiFailure(bookSlot(never, run))).code).toBe('RESERVATION_EXPIRED');
    expect(await entries()).toEqual([]);
  });

  it('books normally after a lost attempt that turned out never to reach the server, dropping that attempt', async () => {
    const { d } = deps([lost(), meeting]);
    await failure(bookSlot(d, request()));
    expect((await bookSlot(d, request())).status).toBe('booked');
    expect(await outcomesOf()).toEqual([`${LEAD} booked`]);
  });

  it('never drops a booked entry, even when the same booking is confirmed again (a reset sandbox)', async () => {
    const { d } = deps([meeting, meetingFor({ id: 'm-2' })]);
    await bookSlot(d, request());
    clock = at(0, 1000);
    await bookSlot(d, request());
    expect((await entries()).map((e) => e.meetingId)).toEqual([MEETING_ID, 'm-2']);
  });
});

describe('bookSlot: attempts that never left the machine', () => {
  it('removes an attempt whose request never left, says nothing was sent, and never reports it already_booked', async () => {
    const refused = lostError();
    const { d } = deps([unsent(refused), apiError('RESERVATION_USED')]);
    const e = await failure(bookSlot(d, request({ workflowExecutionId: EXEC })));
    // Not the "almost certainly booked" error, nor exit 7: nothing was sent.
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.message).toContain('nothing was sent');
    expect((e as Error & { cause?: unknown }).cause).toBe(refused);
    expect(await entries()).toEqual([]);
    expect((await apiFailure(bookSlot(d, request({ workflowExecutionId: EXEC })))).code).toBe('RESERVATION_USED');
    expect(await entries()).toEqual([]);
  });

  it('never takes an attempt left unsent by a killed schedctl for a lost response', async () => {
    await state.journal.add({
      scope: SCOPE,
      event: 'intro-call',
      reservationId: RES,
      workflowExecutionId: EXEC,
      personEmail: LEAD,
      startTime: START,
      outcome: 'unknown',
    });
    const e = await apiFailure(bookSlot(deps([apiError('CONFLICT')]).d, request({ workflowExecutionId: EXEC })));
    expect(e.code).toBe('CONFLICT');
  });

  it('rethrows a failure that is not the API refusing, leaving no entry', async () => {
    const broken = new TypeError('socket exploded');
    const e = await failure(bookSlot(deps([unsent(broken)]).d, request()));
    expect(e).toBe(broken);
    const afterSend = new TypeError('bad answer');
    expect(await failure(bookSlot(deps([afterSend]).d, request()))).toBe(afterSend);
    expect(await entries()).toEqual([]);
  });
});

describe('bookSlot: re-running a booking that succeeded', () => {
  it('says already_booked with the meeting id, then refuses another time on the spent reservation', async () => {
    await bookSlot(deps([meeting]).d, request());
    const bookedEntry = (await entries())[0]!;
    clock = at(1);
    const r = alreadyBooked(await bookSlot(deps([apiError('RESERVATION_USED')]).d, request()));
    expect(r.code).toBe('RESERVATION_USED');
    // A known booking stays as it was: booked, with its meeting id.
    expect(r.attempt).toEqual(bookedEntry);
    expect(r.attempt.meetingId).toBe(MEETING_ID);
    // The same instant in another notation and the email in other case are the same booking.
    const same = alreadyBooked(
      await bookSlot(
        deps([apiError('RESERVATION_USED')]).d,
        request({ startTime: START, personEmail: 'Lead@Company.COM' }),
      ),
    );
    expect(same.attempt.id).toBe(bookedEntry.id);

    const e = await apiFailure(
      bookSlot(deps([apiError('RESERVATION_USED')]).d, request({ startTime: '2031-03-03T15:00:00.000Z' })),
    );
    expect(e.code).toBe('RESERVATION_USED');
    expect(e.hint).toMatch(/already spent, usually by an earlier booking whose response was lost/);
    // Another lead at the very same time is another booking too.
    expect(
      (await apiFailure(bookSlot(deps([apiError('RESERVATION_USED')]).d, request({ personEmail: LEAD_B })))).code,
    ).toBe('RESERVATION_USED');
    expect(await entries()).toEqual([bookedEntry]);
  });
});

describe('bookSlot: a transport that never reports sending', () => {
  it('still records the booking, and a re-run says already_booked', async () => {
    await bookSlot(deps([{ quiet: meeting }]).d, request());
    const [entry] = await entries();
    expect(entry).toMatchObject({ outcome: 'booked', meetingId: MEETING_ID, sentAt: null });
    const r = alreadyBooked(await bookSlot(deps([apiError('RESERVATION_USED')]).d, request()));
    expect(r.attempt.id).toBe(entry!.id);
  });
});

describe('bookSlot: journal retention', () => {
  const entryOf = (email: string) => async () => (await entries()).find((e) => e.personEmail === email);

  it('drops an unknown attempt older than 90 days when a new one is added, keeping it at exactly 90 days', async () => {
    await failure(bookSlot(deps([lost()]).d, request()));
    at(90);
    await bookSlot(
      deps([meetingFor({ personEmail: LEAD_B })]).d,
      request({ personEmail: LEAD_B, reservationId: RES_B }),
    );
    expect(await entryOf(LEAD)()).toMatchObject({ outcome: 'unknown' });
    at(90, 1);
    await bookSlot(
      deps([meetingFor({ id: 'm-3', personEmail: 'c@company.com' })]).d,
      request({ personEmail: 'c@company.com', reservationId: 'r-c' }),
    );
    expect(await entryOf(LEAD)()).toBeUndefined();
    expect(await outcomesOf()).toEqual([`${LEAD_B} booked`, 'c@company.com booked']);
  });

  it('keeps a booked entry past 90 days (reschedule needs it)', async () => {
    await bookSlot(deps([meeting]).d, request());
    at(400);
    await failure(bookSlot(deps([lost()]).d, request({ personEmail: LEAD_B, reservationId: RES_B })));
    expect(await outcomesOf()).toEqual([`${LEAD} booked`, `${LEAD_B} unknown`]);
  });

  it('ages an already_booked entry from when it was found booked', async () => {
    const { d } = deps([lost(), apiError('RESERVATION_USED')]);
    await failure(bookSlot(d, request()));
    at(10);
    await bookSlot(d, request());
    at(95);
    await failure(bookSlot(deps([lost()]).d, request({ personEmail: LEAD_B, reservationId: RES_B })));
    expect(await entryOf(LEAD)()).toMatchObject({ outcome: 'already_booked' });
    at(100, 1);
    await failure(bookSlot(deps([lost()]).d, request({ personEmail: 'c@company.com', reservationId: 'r-c' })));
    expect(await entryOf(LEAD)()).toBeUndefined();
    // B's attempt is 5 days old: kept.
    expect(await entryOf(LEAD_B)()).toBeDefined();
  });

  it('keeps an entry whose date does not read rather than guessing it old', async () => {
    const garbled = {
      id: 'g',
      scope: SCOPE,
      event: 'e',
      reservationId: 'r-g',
      workflowExecutionId: null,
      personEmail: 'g@x.com',
      startTime: START,
      attemptedAt: 'yesterday-ish',
      outcome: 'unknown',
    };
    writeFileSync(join(dir, 'journal.json'), JSON.stringify({ entries: [garbled] }));
    at(1000);
    await bookSlot(deps([meeting]).d, request());
    expect(ledgerRows<JournalEntry>(dir, 'attempts').map((e) => e.id)).toContain('g');
  });
});

describe('bookSlot: a confirmed booking whose local record cannot be written', () => {
  it('reports the meeting booked, with a warning, when the journal cannot be updated', async () => {
    const j = state.journal;
    const journal: BookDeps['journal'] = {
      begin: (e, o) => j.begin(e, o),
      remove: (id) => j.remove(id),
      update: async () => {
        throw new Error('ENOSPC: no space left on device');
      },
      path: j.path,
    };
    const r = await bookSlot(deps([meeting], { journal }).d, request());
    expect(r).toEqual({
      status: 'booked',
      meeting,
      warnings: [
        `the meeting is booked, but the journal entry in ${j.path} could not be recorded (ENOSPC: no space left on device)`,
      ],
    });
    // The other records are still written.
    expect(await state.meetings.get(SCOPE, MEETING_ID)).toBeDefined();
  });

  it('reports the meeting booked, with a warning, when the meetings record or the outcomes cannot be written', async () => {
    // A directory below a file cannot be created (works as root too, unlike a read-only mode).
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const unwritable = openState(join(file, 'state'), { now: () => clock });
    const r = await bookSlot(
      deps([meeting], { meetings: unwritable.meetings, outcomes: unwritable.outcomes }).d,
      request({ workflowExecutionId: EXEC }),
    );
    expect(r.status).toBe('booked');
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^the meeting is booked, but the end of its remembered trigger outcome could not be recorded \(cannot write .*ENOTDIR/,
        ),
        expect.stringMatching(
          /^the meeting is booked, but the meeting in the local record \(schedctl meetings ls\) could not be recorded \(cannot write .*ENOTDIR/,
        ),
      ]),
    );
    expect(await outcomesOf()).toEqual([`${LEAD} booked`]);
  });

  it('words a thrown non-Error too', async () => {
    const meetings: BookDeps['meetings'] = {
      record: async () => {
        throw 'disk gone';
      },
    };
    const r = await bookSlot(deps([meeting], { meetings }).d, request());
    expect(r.warnings).toEqual([
      'the meeting is booked, but the meeting in the local record (schedctl meetings ls) could not be recorded (disk gone)',
    ]);
  });
});

describe('bookSlot: refusals without a lost response', () => {
  it('treats CONFLICT as an ended session: fire the trigger again (the remembered command when known)', async () => {
    const e = await apiFailure(bookSlot(deps([apiError('CONFLICT')]).d, request({ workflowExecutionId: EXEC })));
    expect(e.code).toBe('CONFLICT');
    expect(e.exitCode).toBe(5);
    expect(e.hint).toMatch(/schedctl trigger fire .* --email lead@company\.com/);
    expect(await entries()).toEqual([]);

    const asked: Array<[string, string]> = [];
    const fireAgain = async (exec: string, email: string) => {
      asked.push([exec, email]);
      return "schedctl trigger fire 'Demo' --email lead@company.com --field a=b";
    };
    const again = await apiFailure(
      bookSlot(deps([apiError('CONFLICT')], { fireAgain }).d, request({ workflowExecutionId: EXEC })),
    );
    expect(again.hint).toContain("(`schedctl trigger fire 'Demo' --email lead@company.com --field a=b`)");
    expect(asked).toEqual([[EXEC, LEAD]]);
  });

  it('asks for the fire-again command only on CONFLICT of a workflow run', async () => {
    let asked = 0;
    const fireAgain = async () => {
      asked += 1;
      return 'cmd';
    };
    await apiFailure(bookSlot(deps([apiError('CONFLICT')], { fireAgain }).d, request()));
    await apiFailure(
      bookSlot(deps([apiError('NOT_FOUND', 404)], { fireAgain }).d, request({ workflowExecutionId: EXEC })),
    );
    expect(asked).toBe(0);
  });

  it('says to fetch slots again without a reservation on RESERVATION_EXPIRED', async () => {
    const e = await apiFailure(bookSlot(deps([apiError('RESERVATION_EXPIRED')]).d, request()));
    expect(e.hint).toContain('without a reservation (`schedctl slots intro-call`)');
  });

  it.each([
    ['NO_HOST_AVAILABLE', 409, undefined, /pick another slot from `schedctl slots intro-call --reservation 11111111/],
    ['WORK_EMAIL_REQUIRED', 400, undefined, /intro-call requires a work email/],
    ['RESERVATION_MISMATCH', 400, undefined, /another event or link/],
    [
      'INVALID_REQUEST',
      400,
      ['personEmail: must equal the fired email x@y.com'],
      /--email must be the email the trigger was fired with \(workflow run 2222/,
    ],
    ['NOT_FOUND', 404, undefined, /--execution id 22222222-2222-4222-8222-222222222222/],
    ['MISSING_SCOPE', 403, undefined, /scheduling:write/],
  ])('explains %s with a hint saying what to change', async (code, status, details, hint) => {
    const e = await apiFailure(
      bookSlot(deps([apiError(code, status, details)]).d, request({ workflowExecutionId: EXEC })),
    );
    expect(e.code).toBe(code);
    expect(e.status).toBe(status);
    expect(e.hint).toMatch(hint);
    expect(await entries()).toEqual([]);
  });
});

describe('bookSlot: SLOT_TAKEN', () => {
  const free = [
    '2031-03-03T13:00:00.000Z',
    '2031-03-03T15:00:00.000Z',
    '2031-03-07T09:00:00.000Z',
    '2031-03-03T14:30:00.000Z',
    '2031-03-04T14:00:00.000Z',
    '2031-03-09T14:00:00.000Z',
  ];

  it('fetches fresh slots with the same reservation, from now to a week after, and attaches the nearest five', async () => {
    const { d, slotCalls } = deps([apiError('SLOT_TAKEN')], {}, free);
    const e = await failure(bookSlot(d, request()));
    expect(e).toBeInstanceOf(SlotTakenError);
    const st = e as SlotTakenError;
    expect(st.exitCode).toBe(5);
    // The target is two days ahead: the look-up starts now, not a week before it.
    expect(slotCalls).toEqual([
      { event: 'intro-call', body: { start: NOW.toISOString(), end: '2031-03-10T14:00:00.000Z', reservationId: RES } },
    ]);
    expect(st.nearestSlots).toEqual([
      '2031-03-03T13:00:00.000Z',
      '2031-03-03T14:30:00.000Z',
      '2031-03-03T15:00:00.000Z',
      '2031-03-04T14:00:00.000Z',
      '2031-03-07T09:00:00.000Z',
    ]);
    expect(st.hint).toBe(
      // The times themselves, in the hint: the nearest as a command to run, then the others.
      `the reservation is still usable: book the nearest free time with schedctl book intro-call --start 2031-03-03T13:00:00.000Z --reservation ${RES} --email ${LEAD}, or --start one of the other nearest free times: 2031-03-03T14:30:00.000Z, 2031-03-03T15:00:00.000Z, 2031-03-04T14:00:00.000Z, 2031-03-07T09:00:00.000Z`,
    );
    expect(st.toDocument()).toMatchObject({
      error: { code: 'SLOT_TAKEN', status: 409 },
      reservationId: RES,
      nearestSlots: st.nearestSlots,
    });
    expect(await entries()).toEqual([]);
  });

  it('looks from a week before a far target', async () => {
    const { d, slotCalls } = deps([apiError('SLOT_TAKEN')], {}, []);
    const st = (await failure(bookSlot(d, request({ startTime: '2031-04-01T10:00:00.000Z' })))) as SlotTakenError;
    expect(slotCalls[0]!.body).toMatchObject({ start: '2031-03-25T10:00:00.000Z', end: '2031-04-08T10:00:00.000Z' });
    expect(st.nearestSlots).toEqual([]);
    expect(st.hint).toBe(
      `no free times within a week of it; fetch slots with: schedctl slots intro-call --reservation ${RES}`,
    );
  });

  it('keeps the error with the plain hint when the look-up fails, is turned off, or the time is long past', async () => {
    const plain = `the reservation is still usable: fetch slots with \`schedctl slots intro-call --reservation ${RES}\` and book another with the same --reservation`;
    const failing = deps([apiError('SLOT_TAKEN')], {}, new Error('down'));
    const a = (await failure(bookSlot(failing.d, request()))) as SlotTakenError;
    expect(failing.slotCalls).toHaveLength(1);
    expect([a.nearestSlots, a.hint]).toEqual([[], plain]);

    const off = deps([apiError('SLOT_TAKEN')], { suggestOnSlotTaken: false }, free);
    const b = (await failure(bookSlot(off.d, request()))) as SlotTakenError;
    expect(off.slotCalls).toEqual([]);
    expect([b.nearestSlots, b.hint]).toEqual([[], plain]);

    // More than a week in the past: nothing from now on is near it.
    const past = deps([apiError('SLOT_TAKEN')], {}, free);
    const c = (await failure(bookSlot(past.d, request({ startTime: '2031-02-01T10:00:00.000Z' })))) as SlotTakenError;
    expect(past.slotCalls).toEqual([]);
    expect(c.hint).toBe(plain);
    // Exactly a week ago: the window [now, now) is empty too.
    const edge = deps([apiError('SLOT_TAKEN')], {}, free);
    await failure(bookSlot(edge.d, request({ startTime: new Date(NOW.getTime() - 7 * DAY).toISOString() })));
    expect(edge.slotCalls).toEqual([]);
  });
});

describe("bookSlot: a confirmed booking's records in one step", () => {
  /** The meetings store with its calls to `record` (the slower, step-by-step way) counted. */
  const spiedMeetings = () => {
    const calls: string[] = [];
    const m = state.meetings;
    const meetings: NonNullable<BookDeps['meetings']> = {
      record: (input) => (calls.push(input.meeting.id), m.record(input)),
      recordWrite: (input) => m.recordWrite(input),
      ledger: m.ledger,
    };
    return { meetings, calls };
  };
  const learnt: string[] = [];
  const learnEvent = async (event: string, eventId: string) => learnt.push(`${event}=${eventId}`);
  const learnEventWrite = (event: string, eventId: string) => state.events.learnWrite(SCOPE, event, eventId);
  beforeEach(() => void learnt.splice(0));

  it('writes the meeting, the alias, the settled attempt and the used-up outcome together, none on its own', async () => {
    await state.outcomes.remember(SCOPE, 't1', LEAD, {
      executionId: EXEC,
      outcome: { type: 'scheduler', schedulerUrl: 'https://x', schedulingLinkId: 'intro-call' },
      firedAt: NOW.toISOString(),
      answersKey: 'k',
    });
    const { meetings, calls } = spiedMeetings();
    const r = await bookSlot(
      deps([meeting], { meetings, learnEvent, learnEventWrite }).d,
      request({ workflowExecutionId: EXEC }),
    );
    expect(r).toMatchObject({ status: 'booked', warnings: [] });
    expect(calls).toEqual([]);
    expect(learnt).toEqual([]);
    expect(await state.meetings.get(SCOPE, MEETING_ID)).toMatchObject({ source: 'booked', event: 'intro-call' });
    expect(await state.events.of(SCOPE, ['intro-call'])).toEqual({ 'intro-call': 'ev' });
    expect(await outcomesOf()).toEqual([`${LEAD} booked`]);
    expect(await state.outcomes.get(SCOPE, 't1', LEAD)).toBeUndefined();
  });

  it('takes the step-by-step way when a store cannot share the step: an alias only learnt, outcomes elsewhere', async () => {
    const { meetings, calls } = spiedMeetings();
    await bookSlot(deps([meeting], { meetings, learnEvent }).d, request());
    expect(calls).toEqual([MEETING_ID]);
    expect(learnt).toEqual(['intro-call=ev']);

    const elsewhere = openState(mkdtempSync(join(tmpdir(), 'booking-other-')), { now: () => clock });
    const forgotten: string[] = [];
    const outcomes: BookDeps['outcomes'] = {
      ledger: elsewhere.outcomes.ledger,
      forgetExecution: async (_scope, id) => forgotten.push(id),
    };
    const second = spiedMeetings();
    await bookSlot(
      deps([meetingFor({ id: 'm-b', personEmail: LEAD_B })], { meetings: second.meetings, outcomes, learnEventWrite })
        .d,
      request({ personEmail: LEAD_B, reservationId: RES_B, workflowExecutionId: EXEC_B }),
    );
    expect(second.calls).toEqual(['m-b']);
    expect(forgotten).toEqual([EXEC_B]);
  });

  it('says in one warning what the one step could not record, when it fails', async () => {
    const journal = journalOver(state.journal, {
      updateWrite: () => ({ statement: ['INSERT INTO schedctl_no_such_table (x) VALUES (?)', [1]] }),
    });
    const { meetings, calls } = spiedMeetings();
    const r = await bookSlot(deps([meeting], { journal, meetings, learnEvent, learnEventWrite }).d, request());
    expect(r.status).toBe('booked');
    expect(r.warnings).toEqual([
      expect.stringMatching(
        /^the meeting is booked, but the meeting in the local record \(schedctl meetings ls\), its event alias and the journal entry in .* could not be recorded \(.*no such table/,
      ),
    ]);
    // All or nothing: the meeting is not on record either, and the attempt stays sent, unknown.
    expect(calls).toEqual([]);
    expect(await state.meetings.get(SCOPE, MEETING_ID)).toBeUndefined();
    expect(await outcomesOf()).toEqual([`${LEAD} unknown`]);
  });

  it('takes a step per store when one cannot write its part into the step, warning only for what failed', async () => {
    // A journal on the same ledger that offers no write of its own.
    const journal = journalOver(state.journal);
    const failing = async () => {
      throw new Error('alias table gone');
    };
    const r = await bookSlot(
      deps([meeting], { journal, learnEvent: failing }).d,
      request({ workflowExecutionId: EXEC }),
    );
    expect(r.warnings).toEqual(['the meeting is booked, but the event alias could not be recorded (alias table gone)']);
    expect(await state.meetings.get(SCOPE, MEETING_ID)).toBeDefined();
    expect(await outcomesOf()).toEqual([`${LEAD} booked`]);

    // Meetings on the same ledger without a write of their own, and no meetings record at all.
    const m = state.meetings;
    const recordOnly: BookDeps['meetings'] = { record: (i) => m.record(i), ledger: m.ledger };
    const second = await bookSlot(
      deps([meetingFor({ id: 'm-b', personEmail: LEAD_B })], { meetings: recordOnly, learnEventWrite }).d,
      request({ personEmail: LEAD_B, reservationId: RES_B }),
    );
    expect(second.warnings).toEqual([]);
    expect(await state.meetings.get(SCOPE, 'm-b')).toBeDefined();
    const third = await bookSlot(
      deps([meetingFor({ id: 'm-c', personEmail: 'c@company.com' })], { journal, meetings: undefined }).d,
      request({ personEmail: 'c@company.com', reservationId: 'r-c' }),
    );
    expect(third.warnings).toEqual([]);
    expect(await state.meetings.get(SCOPE, 'm-c')).toBeUndefined();
  });
});

describe('bookSlot: the lead lock and the journal right before the bytes leave', () => {
  it('sends nothing when the lock was lost, and leaves no attempt', async () => {
    const lost = new Error('lock lost');
    const { d, booked } = deps([meeting], {
      assertHeld: async () => {
        throw lost;
      },
    });
    await expect(bookSlot(d, request())).rejects.toBe(lost);
    expect(booked).toHaveLength(1); // asked, but its beforeSend refused: nothing left the machine
    expect(await entries()).toEqual([]);
  });

  it('sends nothing when the attempt cannot be written', async () => {
    const j = state.journal;
    const full = new Error('ENOSPC');
    const journal: BookDeps['journal'] = {
      begin: async () => {
        throw full;
      },
      remove: (id) => j.remove(id),
      update: (id, patch) => j.update(id, patch),
      path: j.path,
    };
    await expect(bookSlot(deps([meeting], { journal }).d, request())).rejects.toBe(full);
  });

  it('says "nothing was sent", not exit 7, when the transport gives up while the lock was found lost', async () => {
    // The transport timed out while beforeSend was refusing (the lock gone): nothing left.
    const api: BookDeps['api'] = {
      book: async (_body, opts) => {
        await opts?.beforeSend?.().catch(() => undefined);
        throw lostError();
      },
      slots: async () => {
        throw new Error('unexpected slots call');
      },
    };
    const e = await failure(
      bookSlot(
        deps([], {
          api,
          assertHeld: async () => {
            throw new Error('lock lost');
          },
        }).d,
        request(),
      ),
    );
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.message).toMatch(/before the booking left this machine; nothing was sent$/);
    expect(await entries()).toEqual([]);
  });
});

/** The store's journal as BookDeps sees it, on its own ledger unless `o` says otherwise, without updateWrite unless given. */
function journalOver(j: State['journal'], o: Partial<BookDeps['journal']> = {}): BookDeps['journal'] {
  return {
    begin: (e, opts) => j.begin(e, opts),
    remove: (id) => j.remove(id),
    update: (id, patch, known) => j.update(id, patch, known),
    path: j.path,
    ledger: j.ledger,
    ...o,
  };
}
