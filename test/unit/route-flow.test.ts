/**
 * The route flow over a fake API and a scripted asker: every outcome and every recovery path,
 * with the exact requests each one costs.
 */
import { describe, expect, it } from 'vitest';
import type { BookRequest, Meeting, Trigger } from '../../src/api/schemas.js';
import { flagAsker, type RouteFlags } from '../../src/run/route/flag-asker.js';
import { runRoute, type OutcomeStore, type RouteDeps } from '../../src/domain/route/flow.js';
import type { RouteAsker, RouteNotice, SlotPage } from '../../src/domain/route/types.js';
import { routeCommandLine, shellWord } from '../../src/run/route/command-line.js';
import { memoryJournal } from '../../src/domain/journal.js';
import type { RememberedOutcome } from '../../src/domain/outcomes.js';
import { ApiError, CancelledError, OutcomeUnknownError } from '../../src/errors.js';

const NOW = new Date('2026-12-01T08:00:00Z');
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const TRIGGER: Trigger = {
  id: uuid(1),
  name: 'Inbound demo request',
  description: 'demo form',
  fields: [
    { name: 'email', label: 'Email', type: 'text', required: true, options: null },
    { name: 'company', label: 'Company', type: 'text', required: true, options: null },
    { name: 'region', label: 'Region', type: 'select', required: true, options: [{ value: 'emea', label: 'EMEA' }, { value: 'apac', label: 'APAC' }] },
  ],
};
const SLOTS = ['2026-12-01T09:00:00.000Z', '2026-12-01T09:30:00.000Z', '2026-12-02T10:00:00.000Z'];
const LATER = ['2026-12-09T09:00:00.000Z'];

const apiError = (code: string, status = 409) => new ApiError({ status, code, message: `server says ${code}`, method: 'POST', path: '/v1/scheduling/meetings' });
const meeting = (r: BookRequest): Meeting => ({
  id: uuid(900), eventId: uuid(901), title: 'Demo', status: 'scheduled', date: r.startTime, duration: 30, meetingLink: null,
  conferencingType: 'zoom', location: null, personEmail: r.personEmail, additionalAttendees: r.guestEmails ?? [],
  cancellationReason: null, createdAt: NOW.toISOString(), updatedAt: NOW.toISOString(),
});

/** A fake API: the outcome of each fire, and what each book attempt answers (a Meeting unless an error is queued). */
function fakeApi(o: { outcomes?: Array<{ type: string; [k: string]: unknown }>; bookErrors?: Error[] } = {}) {
  const calls: string[] = [];
  const books: BookRequest[] = [];
  const slotBodies: Array<{ event: string; reservationId?: string | undefined; start: string }> = [];
  let fires = 0;
  let reservations = 0;
  const outcomes = o.outcomes ?? [{ type: 'scheduler', schedulerUrl: 'https://x/book', schedulingLinkId: uuid(100) }];
  const bookErrors = [...(o.bookErrors ?? [])];
  const api: RouteDeps['api'] = {
    listTriggers: async () => (calls.push('list'), { triggers: [TRIGGER] }),
    fireTrigger: async () => {
      calls.push('fire');
      const outcome = outcomes[Math.min(fires, outcomes.length - 1)]!;
      fires += 1;
      return { executionId: uuid(200 + fires), outcome: (outcome.type === 'scheduler' ? { ...outcome, schedulingLinkId: uuid(100 + fires) } : outcome) as never };
    },
    slots: async (event, body) => {
      calls.push('slots');
      slotBodies.push({ event, reservationId: body.reservationId, start: body.start });
      const reservationId = body.reservationId ?? uuid(300 + ++reservations);
      const inWindow = [...SLOTS, ...LATER].filter((s) => s >= body.start && s < body.end);
      return { reservationId, eventId: uuid(901), expiresAt: '2026-12-01T08:10:00.000Z', slots: inWindow, activeHost: null };
    },
    book: async (r) => {
      calls.push('book');
      books.push(r);
      const error = bookErrors.shift();
      if (error) throw error;
      return meeting(r);
    },
  };
  return { api, calls, books, slotBodies };
}

function memoryOutcomes(initial: RememberedOutcome[] = []): OutcomeStore & { held: RememberedOutcome[] } {
  const held = [...initial];
  return {
    held,
    get: (_s, triggerId, email) => held.find((h) => h.triggerId === triggerId && h.email === email),
    remember: (_s, triggerId, email, r) => {
      if (r.outcome.type === 'scheduler') held.push({ triggerId, email, executionId: r.executionId, outcome: r.outcome as never, firedAt: r.firedAt });
    },
    forgetExecution: (_s, id) => {
      const i = held.findIndex((h) => h.executionId === id);
      if (i >= 0) held.splice(i, 1);
    },
  };
}

const FLAGS: RouteFlags = { trigger: 'Inbound demo request', email: 'ada@acme.example', fields: { company: 'Acme', region: 'emea' }, slot: 'first', yes: true, refire: false };

function route(api: RouteDeps['api'], o: { asker?: RouteAsker; outcomes?: OutcomeStore; flags?: Partial<RouteFlags> } = {}) {
  const notices: RouteNotice[] = [];
  const outcomes = o.outcomes ?? memoryOutcomes();
  const promise = runRoute({
    api,
    asker: o.asker ?? flagAsker({ ...FLAGS, ...o.flags }, undefined),
    notify: (n) => notices.push(n),
    journal: memoryJournal(),
    outcomes,
    scope: 'env@http://sandbox',
    now: () => NOW,
    days: 7,
  });
  return { promise, notices };
}

/** A terminal stand-in: answers from flags, slot picks from a script (a function of the page). */
function scripted(picks: Array<(p: SlotPage) => string | 'later'>, overrides: Partial<RouteAsker> = {}): RouteAsker & { pages: SlotPage[] } {
  const pages: SlotPage[] = [];
  const base = flagAsker({ ...FLAGS, slot: undefined, yes: false }, undefined);
  return {
    ...base,
    pages,
    confirmFire: async () => true,
    confirmBook: async () => true,
    reuse: async () => true,
    refire: async () => true,
    pickSlot: async (page) => {
      pages.push(page);
      const pick = picks.shift();
      if (!pick) throw new Error('no more scripted picks');
      const answer = pick(page);
      return answer === 'later' ? { kind: 'later' } : { kind: 'slot', slot: answer };
    },
    ...overrides,
  };
}

describe('route flow: outcomes', () => {
  it('books with the link id, the fired email and the execution id in exactly 4 requests', async () => {
    const f = fakeApi();
    const r = await route(f.api).promise;
    expect(r.status).toBe('booked');
    expect(f.calls).toEqual(['list', 'fire', 'slots', 'book']);
    expect(f.books[0]).toMatchObject({ event: uuid(101), personEmail: 'ada@acme.example', workflowExecutionId: uuid(201), startTime: SLOTS[0], reservationId: uuid(301) });
    expect(r.responses).toEqual({ company: 'Acme', region: 'emea' });
  });

  it.each(['redirect', 'none'])('stops after the fire on a %s outcome (2 requests)', async (type) => {
    const f = fakeApi({ outcomes: [type === 'redirect' ? { type, url: 'https://partners.example/apply' } : { type }] });
    const r = await route(f.api).promise;
    expect(r.status).toBe(type);
    expect(f.calls).toEqual(['list', 'fire']);
  });

  it('a missing required field fails naming --field after the list, before any fire', async () => {
    const f = fakeApi();
    await expect(route(f.api, { flags: { fields: { company: 'Acme' } } }).promise).rejects.toMatchObject({ exitCode: 2, details: [expect.stringContaining('--field region=')] });
    expect(f.calls).toEqual(['list']);
  });

  it('"later times" pages with the same reservation: one more slots request', async () => {
    const f = fakeApi();
    const asker = scripted([() => 'later', (p) => p.slots[0]!]);
    const r = await route(f.api, { asker }).promise;
    expect(r.slot).toBe(LATER[0]);
    expect(f.calls).toEqual(['list', 'fire', 'slots', 'slots', 'book']);
    expect(f.slotBodies[1]!.reservationId).toBe(uuid(301));
    expect(asker.pages[1]!.from.toISOString()).toBe('2026-12-08T08:00:00.000Z');
  });

  it('--slot with a later time pages forward to it by itself', async () => {
    const f = fakeApi();
    const r = await route(f.api, { flags: { slot: new Date(LATER[0]!) } }).promise;
    expect(r.slot).toBe(LATER[0]);
    expect(f.slotBodies.map((b) => b.reservationId)).toEqual([undefined, uuid(301)]);
  });
});

describe('route flow: recovery', () => {
  it('SLOT_TAKEN: refreshes the page with the same reservation, without the taken time, and books another', async () => {
    const f = fakeApi({ bookErrors: [apiError('SLOT_TAKEN')] });
    const asker = scripted([(p) => p.slots[0]!, (p) => p.slots[0]!]);
    const { promise, notices } = route(f.api, { asker });
    const r = await promise;
    expect(f.calls).toEqual(['list', 'fire', 'slots', 'book', 'slots', 'book']);
    expect(f.slotBodies[1]!.reservationId).toBe(uuid(301));
    expect(asker.pages[1]).toMatchObject({ reason: 'slot_taken', slots: SLOTS.slice(1) });
    expect(r.slot).toBe(SLOTS[1]);
    expect(notices.map((n) => n.type)).toContain('slot_taken');
  });

  it('NO_HOST_AVAILABLE: picks another time from the same page, no new request', async () => {
    const f = fakeApi({ bookErrors: [apiError('NO_HOST_AVAILABLE')] });
    const asker = scripted([(p) => p.slots[0]!, (p) => p.slots[0]!]);
    const r = await route(f.api, { asker }).promise;
    expect(f.calls).toEqual(['list', 'fire', 'slots', 'book', 'book']);
    expect(asker.pages[1]).toMatchObject({ reason: 'no_host', slots: SLOTS.slice(1) });
    expect(r.status).toBe('booked');
  });

  it('RESERVATION_EXPIRED: fetches a new reservation (no reservationId) and books with it', async () => {
    const f = fakeApi({ bookErrors: [apiError('RESERVATION_EXPIRED')] });
    const r = await route(f.api).promise;
    expect(f.calls).toEqual(['list', 'fire', 'slots', 'book', 'slots', 'book']);
    expect(f.slotBodies[1]!.reservationId).toBeUndefined();
    expect(f.books[1]!.reservationId).toBe(uuid(302));
    expect(r.reservationId).toBe(uuid(302));
  });

  it('CONFLICT: fires again once asked (forgetting the dead outcome) and restarts from slots with the new run', async () => {
    const f = fakeApi({ bookErrors: [apiError('CONFLICT')] });
    const outcomes = memoryOutcomes();
    const { promise, notices } = route(f.api, { outcomes });
    const r = await promise;
    expect(f.calls).toEqual(['list', 'fire', 'slots', 'book', 'fire', 'slots', 'book']);
    expect(f.books[1]).toMatchObject({ workflowExecutionId: uuid(202), event: uuid(102) });
    expect(f.slotBodies[1]).toMatchObject({ event: uuid(102), reservationId: undefined });
    expect(r).toMatchObject({ status: 'booked', executionId: uuid(202), refires: 1 });
    expect(notices.map((n) => n.type)).toContain('session_ended');
    // Booked: the new run's outcome is used up too.
    expect(outcomes.held).toEqual([]);
  });

  it('CONFLICT with --yes re-fires only once; a second ended session stops with the hint (exit 5)', async () => {
    const f = fakeApi({ bookErrors: [apiError('CONFLICT'), apiError('CONFLICT')] });
    const error = await route(f.api).promise.catch((e) => e);
    expect(error).toMatchObject({ code: 'CONFLICT', exitCode: 5, hint: expect.stringContaining('--yes') });
    expect(f.calls.filter((c) => c === 'fire')).toHaveLength(2);
  });

  it('CONFLICT without --yes and without a terminal: no re-fire, exit 5 naming --yes', async () => {
    const f = fakeApi({ bookErrors: [apiError('CONFLICT')] });
    const error = await route(f.api, { flags: { yes: false } }).promise.catch((e) => e);
    expect(error).toMatchObject({ code: 'CONFLICT', exitCode: 5, hint: expect.stringContaining('with --yes to fire the trigger again') });
    expect(f.calls).toEqual(['list', 'fire', 'slots', 'book']);
  });

  it('CONFLICT declined on the terminal: nothing more is sent', async () => {
    const f = fakeApi({ bookErrors: [apiError('CONFLICT')] });
    const asker = scripted([(p) => p.slots[0]!], { refire: async () => false });
    await expect(route(f.api, { asker }).promise).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(f.calls).toEqual(['list', 'fire', 'slots', 'book']);
  });

  it('a lost booking response is never retried: exit 7 and the attempt stays journaled', async () => {
    const f = fakeApi({ bookErrors: [new OutcomeUnknownError('no response; the request may have been processed')] });
    const error = await route(f.api).promise.catch((e) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.exitCode).toBe(7);
    expect(f.calls.filter((c) => c === 'book')).toHaveLength(1);
  });

  it('reuses a remembered scheduler outcome instead of firing (3 requests), and fires anew with --refire', async () => {
    const remembered: RememberedOutcome = {
      executionId: uuid(250), outcome: { type: 'scheduler', schedulerUrl: 'https://x', schedulingLinkId: uuid(150) }, firedAt: NOW.toISOString(),
      email: 'ada@acme.example', triggerId: TRIGGER.id,
    };
    const f = fakeApi();
    const r = await route(f.api, { outcomes: memoryOutcomes([remembered]) }).promise;
    expect(f.calls).toEqual(['list', 'slots', 'book']);
    expect(r).toMatchObject({ reused: true, executionId: uuid(250) });
    expect(f.books[0]).toMatchObject({ event: uuid(150), workflowExecutionId: uuid(250) });

    const g = fakeApi();
    const again = await route(g.api, { outcomes: memoryOutcomes([remembered]), flags: { refire: true } }).promise;
    expect(g.calls).toEqual(['list', 'fire', 'slots', 'book']);
    expect(again.reused).toBe(false);
  });

  it('a declined confirmation cancels before the request it guards (130)', async () => {
    const f = fakeApi();
    const asker = scripted([(p) => p.slots[0]!], { confirmBook: async () => false });
    await expect(route(f.api, { asker }).promise).rejects.toBeInstanceOf(CancelledError);
    expect(f.calls).toEqual(['list', 'fire', 'slots']);
    const g = fakeApi();
    await expect(route(g.api, { asker: scripted([], { confirmFire: async () => false }) }).promise).rejects.toBeInstanceOf(CancelledError);
    expect(g.calls).toEqual(['list']);
  });

  it('an explicit --slot that was taken fails listing the free times near it (exit 5)', async () => {
    const f = fakeApi({ bookErrors: [apiError('SLOT_TAKEN')] });
    const error = await route(f.api, { flags: { slot: new Date(SLOTS[0]!) } }).promise.catch((e) => e);
    expect(error).toMatchObject({ code: 'SLOT_UNAVAILABLE', exitCode: 5, message: expect.stringContaining('was just taken') });
    expect(error.details[0]).toBe(`free: ${SLOTS[1]}`);
  });
});

describe('route command line', () => {
  it('quotes for a POSIX shell and includes the email, fields, slot and guests', () => {
    expect(shellWord("Acme's")).toBe(`'Acme'\\''s'`);
    const line = routeCommandLine({
      trigger: TRIGGER, email: 'ada@acme.example', responses: { company: 'Acme & Co', region: 'emea' }, slot: SLOTS[0]!,
      guests: { firstName: 'Ada', guests: ['bob@acme.example'] },
    });
    expect(line).toBe(
      `schedctl route --trigger 'Inbound demo request' --email ada@acme.example --field 'company=Acme & Co' --field region=emea --slot ${SLOTS[0]} --first-name Ada --guest bob@acme.example --yes`,
    );
  });
});
