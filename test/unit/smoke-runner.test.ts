/**
 * The smoke run over a fake HTTP client (canned JSON per request, or an error): which checks
 * pass, fail or are skipped, what each one sends, and how the report and its failure read.
 */
import { describe, expect, it } from 'vitest';
import type { HttpClient, RequestOptions } from '../../src/api/client.js';
import { describeFailure, probe } from '../../src/domain/smoke/probe.js';
import { problemLines, summaryLine, tableRows, type Paint } from '../../src/domain/smoke/render.js';
import { runSmoke } from '../../src/domain/smoke/runner.js';
import { requestsNeeded, type CheckResult, type SmokeInput, type SmokeReport } from '../../src/domain/smoke/types.js';
import { schemas, strictSchemas } from '../../src/api/schemas.js';
import { ApiError, BadResponseError, CliError, NetworkError } from '../../src/errors.js';
import { SmokeFailedError } from '../../src/run/smoke/failed.js';
import { SMOKE_FLAGS } from '../../src/run/smoke/options.js';
import { formatInZone } from '../../src/domain/time.js';

// Every date below is relative to this injected clock (far from the real date on purpose).
const NOW = new Date('2031-03-01T12:00:00.000Z');
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const EVENT = uuid(10);
const TRIGGER = uuid(20);
const LINK = uuid(30);
const EXEC = uuid(40);
const RES = uuid(50);
const MEETING = uuid(60);
const SLOT = '2031-03-02T09:00:00.000Z';

const trigger = {
  id: TRIGGER,
  name: 'Inbound demo request',
  description: 'demo',
  fields: [
    { name: 'email', label: 'Email', type: 'email', required: true, options: null },
    { name: 'company', label: 'Company', type: 'text', required: true, options: null },
  ],
};
const eventSummary = (id: string, slug: string) => ({
  id,
  slug,
  name: 'Intro',
  schedulerTitle: 'Intro',
  schedulerDescription: '',
  duration: 30,
  timeslotIncrement: 15,
  conferencingType: 'zoom',
  location: '',
  createdAt: NOW.toISOString(),
  updatedAt: NOW.toISOString(),
});
const { createdAt: _c, updatedAt: _u, ...detailBase } = eventSummary(EVENT, 'intro');
const eventDetail = {
  ...detailBase,
  hosts: [{ name: 'Ann', profilePictureUrl: '', isQueue: false, isPrimary: true }],
  questions: [],
};
const slots = (list: string[] = [SLOT, '2031-03-02T09:30:00.000Z']) => ({
  reservationId: RES,
  eventId: EVENT,
  expiresAt: '2031-03-01T12:10:00.000Z',
  slots: list,
  activeHost: null,
});
const meeting = (body: { startTime: string; personEmail: string }) => ({
  id: MEETING,
  eventId: EVENT,
  title: 'Intro',
  status: 'scheduled',
  date: body.startTime,
  duration: 30,
  meetingLink: null,
  conferencingType: 'zoom',
  location: null,
  personEmail: body.personEmail,
  additionalAttendees: [],
  cancellationReason: null,
  createdAt: NOW.toISOString(),
  updatedAt: NOW.toISOString(),
});

type Answer = unknown | Error | ((body: never) => unknown);
/** Each answer may also cost extra tries (the HTTP layer's retries) and may not connect at all. */
interface Route {
  answer: Answer;
  tries?: number;
  connected?: boolean;
  /** Time this request waits for the rate budget (reported by the client's rateWaitMs). */
  rateWait?: number;
}

const apiError = (status: number, code: string, message = `server says ${code}`, details?: string[]) =>
  new ApiError({ status, code, message, method: 'GET', path: '/v1/x', ...(details ? { details } : {}) });

function fakeHttp(routes: Record<string, Answer | Route>) {
  let sent = 0;
  let attempts = 0;
  let rateWaitMs = 0;
  const calls: Array<Pick<RequestOptions<unknown>, 'method' | 'path' | 'body' | 'safety'>> = [];
  const http: HttpClient = {
    baseUrl: 'http://api.test',
    get sent() {
      return sent;
    },
    get attempts() {
      return attempts;
    },
    serverSkewMs: () => 0,
    get rateWaitMs() {
      return rateWaitMs;
    },
    request: async <T>(opts: RequestOptions<T>): Promise<T> => {
      calls.push({ method: opts.method, path: opts.path, body: opts.body, safety: opts.safety });
      const key = `${opts.method} ${opts.path}`;
      const held = routes[key];
      if (held === undefined) throw new Error(`unexpected request ${key}`);
      const route: Route =
        typeof held === 'object' && held !== null && 'answer' in held ? (held as Route) : { answer: held };
      const tries = route.tries ?? 1;
      attempts += tries;
      rateWaitMs += route.rateWait ?? 0;
      if (route.connected !== false) sent += tries;
      const answer = route.answer;
      if (answer instanceof Error) throw answer;
      return structuredClone(
        typeof answer === 'function' ? (answer as (b: unknown) => unknown)(opts.body) : answer,
      ) as T;
    },
  };
  return { http, calls };
}

const HAPPY = {
  'GET /v1/triggers': { triggers: [trigger] },
  'GET /v1/scheduling/events': {
    events: [eventSummary(EVENT, 'intro'), eventSummary(uuid(11), 'other')],
    nextCursor: 'next',
  },
  [`GET /v1/scheduling/events/${EVENT}`]: eventDetail,
  [`POST /v1/scheduling/events/${EVENT}/slots`]: slots(),
  [`POST /v1/triggers/${TRIGGER}`]: {
    executionId: EXEC,
    outcome: { type: 'scheduler', schedulerUrl: 'https://x', schedulingLinkId: LINK },
  },
  [`POST /v1/scheduling/events/${LINK}/slots`]: { ...slots(), eventId: LINK },
  'POST /v1/scheduling/meetings': (body: { startTime: string; personEmail: string }) => meeting(body),
};

const run = (input: Partial<SmokeInput>, routes: Record<string, Answer | Route> = HAPPY) => {
  const f = fakeHttp(routes);
  return {
    report: runSmoke({ book: false, ...input }, { http: f.http, now: () => NOW, names: SMOKE_FLAGS }),
    calls: f.calls,
  };
};
const byName = (report: SmokeReport) => Object.fromEntries(report.checks.map((c) => [c.name, c]));
const statuses = (report: SmokeReport) => report.checks.map((c) => `${c.name}:${c.status}`);
const ROUTED = { ref: 'Inbound demo request', email: 'lead@acme.example', fields: { company: 'Acme' } };

describe('smoke run: waits for the rate budget', () => {
  it('reports a wait apart from the latency, never against --max-latency, and sums every wait', async () => {
    const routes = {
      ...HAPPY,
      'GET /v1/scheduling/events': { answer: HAPPY['GET /v1/scheduling/events'], rateWait: 5000 },
      [`POST /v1/scheduling/events/${LINK}/slots`]: {
        answer: HAPPY[`POST /v1/scheduling/events/${LINK}/slots`],
        rateWait: 300,
      },
      'POST /v1/scheduling/meetings': { answer: HAPPY['POST /v1/scheduling/meetings'], rateWait: 200 },
    };
    const report = await run({ maxLatencyMs: 1000, budgetWaitMs: 40, book: true, trigger: ROUTED }, routes).report;
    const c = byName(report);
    expect(report.ok).toBe(true);
    expect(c['events.list']).toMatchObject({ status: 'pass', latencyMs: 0, rateWaitMs: 5000 });
    expect(c.booking).toMatchObject({ status: 'pass', latencyMs: 0, rateWaitMs: 500 });
    expect(c.slots!.rateWaitMs).toBeUndefined();
    expect(report.rateWaitMs).toBe(5540);
  });

  it('a run that never waited reports a wait of 0', async () => {
    expect((await run({}).report).rateWaitMs).toBe(0);
  });
});

describe('smoke run: a healthy API', () => {
  it('passes every read check with what it saw, skips the opt-in ones, and counts 4 requests', async () => {
    const { report: p, calls } = run({});
    const report = await p;
    expect(statuses(report)).toEqual([
      'auth:pass',
      'triggers.list:pass',
      'events.list:pass',
      'events.detail:pass',
      'slots:pass',
      'trigger.fire:skip',
      'booking:skip',
    ]);
    const c = byName(report);
    expect(c.auth!.detail).toBe('the API key is accepted');
    expect(c['triggers.list']!.detail).toBe('1 trigger');
    expect(c['events.list']!.detail).toBe('2 events on the first page, more pages follow');
    expect(c['events.detail']!.detail).toBe('Intro (intro): 1 host, 0 questions');
    expect(c.slots!.detail).toBe(`2 slots in the next 7 days; reservation ${RES} until 2031-03-01 12:10 UTC`);
    expect(c['trigger.fire']).toEqual({
      name: 'trigger.fire',
      status: 'skip',
      latencyMs: null,
      detail: 'skipped: pass --trigger, --email and --field to fire one',
    });
    expect(c.booking!.detail).toBe('skipped: pass --book to book a real meeting on the first slot');
    expect(report).toMatchObject({ ok: true, requests: 4 });
    expect(report).not.toHaveProperty('meetingId');
    expect(calls).toEqual([
      { method: 'GET', path: '/v1/triggers', body: undefined, safety: 'retry' },
      { method: 'GET', path: '/v1/scheduling/events', body: undefined, safety: 'retry' },
      { method: 'GET', path: `/v1/scheduling/events/${EVENT}`, body: undefined, safety: 'retry' },
      {
        method: 'POST',
        path: `/v1/scheduling/events/${EVENT}/slots`,
        body: { start: NOW.toISOString(), end: '2031-03-08T12:00:00.000Z' },
        safety: 'retry',
      },
    ]);
  });

  it('words single counts in the singular, and says when there are no more pages', async () => {
    const routes = {
      ...HAPPY,
      'GET /v1/triggers': { triggers: [] },
      'GET /v1/scheduling/events': { events: [eventSummary(EVENT, 'intro')], nextCursor: '' },
      [`GET /v1/scheduling/events/${EVENT}`]: {
        ...eventDetail,
        hosts: [],
        questions: [
          {
            id: uuid(1),
            type: 'text',
            title: 'Why',
            description: '',
            placeholder: '',
            isRequired: false,
            order: 1,
            options: [],
            requireWorkEmail: false,
          },
        ],
      },
      [`POST /v1/scheduling/events/${EVENT}/slots`]: slots([SLOT]),
    };
    const c = byName(await run({}, routes).report);
    expect(c['triggers.list']!.detail).toBe('0 triggers');
    expect(c['events.list']!.detail).toBe('1 event on the first page');
    expect(c['events.detail']!.detail).toBe('Intro (intro): 0 hosts, 1 question');
    expect(c.slots!.detail).toMatch(/^1 slot in the next 7 days/);
  });

  it('books the first slot of the checked event with --book, and reports the meeting to clean up', async () => {
    const { report: p, calls } = run(
      { book: true, email: 'qa@acme.example', event: 'intro' },
      { ...HAPPY, 'GET /v1/scheduling/events/intro': eventDetail },
    );
    const report = await p;
    // The detail's id, not the slug that was passed.
    expect(calls.at(-1)).toEqual({
      method: 'POST',
      path: '/v1/scheduling/meetings',
      body: { startTime: SLOT, reservationId: RES, event: EVENT, personEmail: 'qa@acme.example' },
      safety: 'once',
    });
    expect(byName(report).booking).toMatchObject({
      status: 'pass',
      detail: `meeting ${MEETING} booked for ${formatInZone(SLOT, 'UTC')}; it is real and the API has no cancel`,
    });
    expect(report).toMatchObject({ ok: true, meetingId: MEETING, requests: 5 });
  });

  it('fires the trigger with validated responses, then books on the routed link with the execution', async () => {
    const { report: p, calls } = run({ book: true, trigger: ROUTED });
    const report = await p;
    const fire = calls.find((c) => c.path === `/v1/triggers/${TRIGGER}`)!;
    expect(fire).toEqual({
      method: 'POST',
      path: `/v1/triggers/${TRIGGER}`,
      body: { email: 'lead@acme.example', responses: { company: 'Acme' } },
      safety: 'once',
    });
    expect(calls.map((c) => c.path).slice(-2)).toEqual([
      `/v1/scheduling/events/${LINK}/slots`,
      '/v1/scheduling/meetings',
    ]);
    expect(calls.at(-1)!.body).toEqual({
      startTime: SLOT,
      reservationId: RES,
      event: LINK,
      personEmail: 'lead@acme.example',
      workflowExecutionId: EXEC,
    });
    const c = byName(report);
    expect(c['trigger.fire']).toMatchObject({
      status: 'pass',
      detail: `fired "Inbound demo request": outcome scheduler, link ${LINK}; execution ${EXEC}`,
    });
    expect(c.booking!.detail).toBe(
      `meeting ${MEETING} booked for ${formatInZone(SLOT, 'UTC')} (routed, execution ${EXEC}); it is real and the API has no cancel`,
    );
    expect(report.requests).toBe(7);
  });
});

describe('smoke run: failures become checks', () => {
  it('stops after a refused key: every other check skipped, one request', async () => {
    const report = await run({}, { 'GET /v1/triggers': apiError(401, 'INVALID_API_KEY', 'bad key') }).report;
    expect(statuses(report)).toEqual([
      'auth:fail',
      'triggers.list:skip',
      'events.list:skip',
      'events.detail:skip',
      'slots:skip',
      'trigger.fire:skip',
      'booking:skip',
    ]);
    expect(report.checks[0]!.detail).toBe(
      'the API key is refused: GET /v1/x answered HTTP 401 INVALID_API_KEY: bad key',
    );
    expect(report.checks[1]!.detail).toBe('skipped: the API key is refused');
    expect(report).toMatchObject({ ok: false, requests: 1 });
  });

  it('stops when the API cannot be reached, counting no request that never connected', async () => {
    const down = new NetworkError('could not reach http://api.test (ECONNREFUSED)');
    const report = await run({}, { 'GET /v1/triggers': { answer: down, tries: 3, connected: false } }).report;
    // The tries are counted in the HTTP layer's message (failures.ts); the check says it is not about the key.
    expect(report.checks[0]).toMatchObject({
      status: 'fail',
      detail: 'API unreachable, the key was not checked: could not reach http://api.test (ECONNREFUSED)',
    });
    expect(report.checks[1]!.detail).toBe('skipped: the API is unreachable');
    expect(report).toMatchObject({ requests: 0, tries: 3, unreachable: true });
  });

  it('lets the events list decide the key when the triggers answer proves nothing', async () => {
    const report = await run(
      { trigger: ROUTED },
      { ...HAPPY, 'GET /v1/triggers': { answer: apiError(502, 'INTERNAL_ERROR', 'bad gateway'), tries: 3 } },
    ).report;
    const c = byName(report);
    expect(c.auth).toMatchObject({ status: 'pass', detail: 'the API key is accepted (seen on the events list)' });
    expect(c['triggers.list']).toMatchObject({
      status: 'fail',
      detail: 'GET /v1/x answered HTTP 502 INTERNAL_ERROR: bad gateway (after 3 attempts)',
    });
    expect(c['trigger.fire']!.detail).toBe(
      'skipped: triggers.list failed, so the trigger cannot be resolved and checked before firing',
    );
    expect(report.requests).toBe(6);
  });

  it('says it could not confirm the key when neither answer proves anything', async () => {
    const routes = {
      ...HAPPY,
      'GET /v1/triggers': apiError(503, 'INTERNAL_ERROR', 'down'),
      'GET /v1/scheduling/events': apiError(503, 'INTERNAL_ERROR', 'down'),
    };
    const c = byName(await run({}, routes).report);
    expect(c.auth).toMatchObject({
      status: 'fail',
      detail: 'could not confirm the key: GET /v1/x answered HTTP 503 INTERNAL_ERROR: down',
    });
    expect(c['events.detail']!.detail).toBe('skipped: events.list failed (pass --event to check one anyway)');
    expect(c.slots!.detail).toBe('skipped: no event to fetch slots for');
  });

  it('stops when the events list then refuses the key', async () => {
    const routes = {
      ...HAPPY,
      'GET /v1/triggers': apiError(500, 'INTERNAL_ERROR'),
      'GET /v1/scheduling/events': apiError(401, 'INVALID_API_KEY', 'revoked'),
    };
    const report = await run({}, routes).report;
    expect(statuses(report)).toEqual([
      'auth:fail',
      'triggers.list:fail',
      'events.list:skip',
      'events.detail:skip',
      'slots:skip',
      'trigger.fire:skip',
      'booking:skip',
    ]);
    expect(report.checks[0]!.detail).toBe(
      'the API key is refused: GET /v1/x answered HTTP 401 INVALID_API_KEY: revoked (seen on the events list)',
    );
    expect(report.checks[0]!.latencyMs).not.toBeNull();
  });

  it('fails a body that breaks the contract, listing its problems, yet goes on with what is usable', async () => {
    const routes = { ...HAPPY, 'GET /v1/triggers': { triggers: [{ ...trigger, extra: 1 }] } };
    const report = await run({ trigger: ROUTED }, routes).report;
    const c = byName(report);
    expect(c.auth!.status).toBe('pass');
    expect(c['triggers.list']).toMatchObject({ status: 'fail', problems: [expect.stringContaining('extra')] });
    expect(c['triggers.list']!.detail).toMatch(
      /^GET \/v1\/triggers: the body breaks the API contract \(1 problem\): .*extra/,
    );
    expect(c['triggers.list']!.detail).not.toContain('…');
    // The tolerant read still resolves the trigger.
    expect(c['trigger.fire']!.status).toBe('pass');
  });

  it('counts several contract problems', async () => {
    const routes = { ...HAPPY, 'GET /v1/triggers': { triggers: [{ ...trigger, id: 'not-a-uuid', extra: 1 }] } };
    const c = byName(await run({}, routes).report);
    expect(c['triggers.list']!.detail).toMatch(/\(2 problems\): [^…]* …$/);
    expect(c['triggers.list']!.problems).toHaveLength(2);
  });

  it('skips what depends on an event when the first page lists none', async () => {
    const report = await run(
      { book: true, email: 'qa@acme.example' },
      { ...HAPPY, 'GET /v1/scheduling/events': { events: [], nextCursor: '' } },
    ).report;
    const c = byName(report);
    expect(c['events.detail']!.detail).toBe('skipped: the first page lists no events (pass --event)');
    expect(c.slots!.detail).toBe('skipped: no event to fetch slots for');
    expect(c.booking!.detail).toBe('skipped: slots did not answer a usable reservation');
    expect(report.ok).toBe(true);
  });

  it('skips slots when the event detail gave no usable event', async () => {
    const routes = { ...HAPPY, [`GET /v1/scheduling/events/${EVENT}`]: apiError(404, 'NOT_FOUND', 'gone') };
    const c = byName(await run({}, routes).report);
    expect(c['events.detail']!.status).toBe('fail');
    expect(c.slots!.detail).toBe('skipped: events.detail did not answer a usable event');
  });

  it('names the missing scope of a 403', async () => {
    const routes = {
      ...HAPPY,
      'GET /v1/scheduling/events': apiError(403, 'MISSING_SCOPE', 'this key lacks scheduling:read'),
    };
    const c = byName(await run({}, routes).report);
    expect(c['events.list']!.detail).toBe(
      'missing scope scheduling:read: GET /v1/x answered HTTP 403 MISSING_SCOPE: this key lacks scheduling:read',
    );
    expect(c.auth).toMatchObject({ status: 'pass', detail: 'the API key is accepted' });
  });

  it('does not fire a trigger whose name or responses are wrong: no request is spent on it', async () => {
    const { report: p, calls } = run({ trigger: { ...ROUTED, fields: {} } });
    const c = byName(await p);
    expect(c['trigger.fire']).toMatchObject({ status: 'fail', latencyMs: null });
    expect(c['trigger.fire']!.detail).toMatch(
      /^not fired: invalid input for trigger "Inbound demo request": fix company; nothing was fired \[company: required/,
    );
    expect(calls.some((x) => x.path.startsWith('/v1/triggers/'))).toBe(false);
    const typo = byName(await run({ trigger: { ...ROUTED, ref: 'Nope' } }).report);
    expect(typo['trigger.fire']!.detail).toBe('not fired: no trigger "Nope" in this workspace');
  });

  it('reports a failed fire, and then has nothing to book with', async () => {
    const routes = {
      ...HAPPY,
      [`POST /v1/triggers/${TRIGGER}`]: apiError(400, 'WORK_EMAIL_REQUIRED', 'work email please'),
    };
    const c = byName(await run({ book: true, trigger: ROUTED }, routes).report);
    expect(c['trigger.fire']).toMatchObject({
      status: 'fail',
      detail: 'GET /v1/x answered HTTP 400 WORK_EMAIL_REQUIRED: work email please',
    });
    expect(c.booking!.detail).toBe('skipped: trigger.fire gave no outcome to book with');
  });

  it.each([
    [{ type: 'redirect', url: 'https://partners.example' }, 'redirect to https://partners.example', 'redirect'],
    [{ type: 'none' }, 'none (no meeting offered)', 'none'],
  ])('does not book on a %j outcome', async (outcome, wording, type) => {
    const routes = { ...HAPPY, [`POST /v1/triggers/${TRIGGER}`]: { executionId: EXEC, outcome } };
    const c = byName(await run({ book: true, trigger: ROUTED }, routes).report);
    expect(c['trigger.fire']!.detail).toBe(`fired "Inbound demo request": outcome ${wording}; execution ${EXEC}`);
    expect(c.booking!.detail).toBe(`skipped: the trigger's outcome is "${type}", not a scheduler: nothing to book`);
  });

  it('fails the booking when the routed link has no slots, or its slots request fails', async () => {
    const empty = byName(
      await run({ book: true, trigger: ROUTED }, { ...HAPPY, [`POST /v1/scheduling/events/${LINK}/slots`]: slots([]) })
        .report,
    );
    expect(empty.booking).toMatchObject({
      status: 'fail',
      detail: `no free slot in the next 7 days to book on ${LINK}`,
    });
    expect(empty.booking!.latencyMs).toEqual(expect.any(Number));
    const failing = byName(
      await run(
        { book: true, trigger: ROUTED },
        { ...HAPPY, [`POST /v1/scheduling/events/${LINK}/slots`]: apiError(409, 'CONFLICT', 'session ended') },
      ).report,
    );
    expect(failing.booking).toMatchObject({
      status: 'fail',
      detail: `slots of the routed link ${LINK}: GET /v1/x answered HTTP 409 CONFLICT: session ended`,
    });
  });

  it('fails a refused booking with the API error, and keeps a booked meeting whose body breaks the contract', async () => {
    const refused = await run(
      { book: true, email: 'qa@acme.example' },
      { ...HAPPY, 'POST /v1/scheduling/meetings': apiError(409, 'SLOT_TAKEN', 'taken') },
    ).report;
    expect(byName(refused).booking).toMatchObject({
      status: 'fail',
      detail: 'GET /v1/x answered HTTP 409 SLOT_TAKEN: taken',
    });
    expect(refused).not.toHaveProperty('meetingId');

    const odd = await run(
      { book: true, email: 'qa@acme.example' },
      {
        ...HAPPY,
        'POST /v1/scheduling/meetings': (b: { startTime: string; personEmail: string }) => ({
          ...meeting(b),
          extra: true,
        }),
      },
    ).report;
    const booking = byName(odd).booking!;
    expect(booking.status).toBe('fail');
    expect(booking.detail).toMatch(
      new RegExp(
        `^POST /v1/scheduling/meetings: the body breaks the API contract .*\\[meeting ${MEETING} booked for ${formatInZone(SLOT, 'UTC')}; it is real and the API has no cancel\\]$`,
      ),
    );
    expect(odd.meetingId).toBe(MEETING);
    expect(odd.ok).toBe(false);
  });

  it('fails passing checks over the latency budget, never the auth check', async () => {
    const report = await run({ maxLatencyMs: -1 }).report;
    expect(statuses(report)).toEqual([
      'auth:pass',
      'triggers.list:fail',
      'events.list:fail',
      'events.detail:fail',
      'slots:fail',
      'trigger.fire:skip',
      'booking:skip',
    ]);
    expect(byName(report)['triggers.list']!.detail).toMatch(
      /^took \d+ ms, over the --max-latency budget of -1 ms \(1 trigger\)$/,
    );
  });
});

describe('smoke probe', () => {
  it('reads the answer against the strict schema, and measures the time', async () => {
    const { http } = fakeHttp({ 'GET /v1/triggers': { triggers: [trigger] } });
    const r = await probe(
      http,
      { method: 'GET', path: '/v1/triggers', safety: 'retry' },
      strictSchemas.triggersList,
      schemas.triggersList,
    );
    expect(r).toEqual({ ok: true, data: { triggers: [trigger] }, latencyMs: expect.any(Number) });
  });

  it('keeps the status of an error answer and of an unreadable one', async () => {
    const bad = new BadResponseError('GET /v1/triggers: not JSON', { status: 502, details: ['<html>'] });
    const { http } = fakeHttp({
      'GET /a': bad,
      'GET /b': new BadResponseError('no status'),
      'GET /c': new NetworkError('socket hang up'),
    });
    const req = (path: string) =>
      probe(http, { method: 'GET', path, safety: 'retry' }, strictSchemas.triggersList, schemas.triggersList);
    expect(await req('/a')).toEqual({
      ok: false,
      latencyMs: expect.any(Number),
      detail: 'GET /v1/triggers: not JSON: <html>',
      status: 502,
    });
    expect(await req('/b')).toEqual({ ok: false, latencyMs: expect.any(Number), detail: 'no status' });
    // A network error that is not "could not reach" may have reached the server.
    expect(await req('/c')).toEqual({ ok: false, latencyMs: expect.any(Number), detail: 'socket hang up' });
  });

  it('describes each kind of failure in one line', () => {
    expect(describeFailure(apiError(400, 'INVALID_REQUEST', 'bad', ['a: x', 'b: y']))).toBe(
      'GET /v1/x answered HTTP 400 INVALID_REQUEST: bad [a: x; b: y]',
    );
    expect(describeFailure(apiError(403, 'MISSING_SCOPE', 'no'))).toBe(
      'missing scope (not named by the server): GET /v1/x answered HTTP 403 MISSING_SCOPE: no',
    );
    expect(describeFailure(apiError(400, 'MISSING_SCOPE', 'needs triggers:write'))).toMatch(
      /^missing scope triggers:write: /,
    );
    expect(describeFailure(new CliError('X', 'plain cli', 1))).toBe('plain cli');
    expect(describeFailure(new TypeError('boom'))).toBe('unexpected failure: boom');
    expect(describeFailure('text')).toBe('text');
  });
});

describe('smoke report', () => {
  const checks: CheckResult[] = [
    { name: 'auth', status: 'pass', latencyMs: 12, detail: 'ok' },
    { name: 'slots', status: 'fail', latencyMs: null, detail: 'bad', problems: ['$.a: x', '$.b: y'] },
    { name: 'booking', status: 'skip', latencyMs: null, detail: 'skipped' },
  ];

  it('renders rows with the painted result, and one line per contract problem', () => {
    const paint = { pass: (s: string) => `+${s}`, fail: (s: string) => `!${s}`, skip: (s: string) => `~${s}` };
    const rows = tableRows(checks, paint);
    expect(rows.map((r) => [r[0], (r[1] as { text: string }).text, r[2], r[3]])).toEqual([
      ['auth', 'PASS', '12 ms', 'ok'],
      ['slots', 'FAIL', '-', 'bad'],
      ['booking', 'SKIP', '-', 'skipped'],
    ]);
    expect(rows.map((r) => (r[1] as { style: (s: string) => string }).style('x'))).toEqual(['+x', '!x', '~x']);
    expect(problemLines(checks)).toEqual(['  slots: $.a: x', '  slots: $.b: y']);
  });

  it('sums up the run in one line', () => {
    expect(summaryLine({ ok: false, requests: 1, tries: 1, rateWaitMs: 0, checks })).toBe(
      'smoke FAILED: 1 passed, 1 failed, 1 skipped; 1 request used (the API allows 30 per minute)',
    );
    expect(summaryLine({ ok: true, requests: 4, tries: 4, rateWaitMs: 0, checks: [checks[0]!] })).toBe(
      'smoke passed: 1 passed, 0 failed, 0 skipped; 4 requests used (the API allows 30 per minute)',
    );
  });

  it('shows a wait for the rate budget beside the latency, and its total in the summary', () => {
    const waited: CheckResult[] = [{ name: 'slots', status: 'pass', latencyMs: 7, rateWaitMs: 2345, detail: 'ok' }];
    const plain: Paint = { pass: (s) => s, fail: (s) => s, skip: (s) => s };
    expect(tableRows(waited, plain)[0]![2]).toBe('7 ms (+2.3 s budget wait)');
    expect(summaryLine({ ok: true, requests: 4, tries: 4, rateWaitMs: 3060, checks: waited })).toBe(
      "smoke passed: 1 passed, 0 failed, 0 skipped; 4 requests used (the API allows 30 per minute); waited 3.1 s for the key's rate budget (not counted as latency)",
    );
  });

  it("counts the requests a run needs: 4 reads, the fire, and the booking (with the routed link's slots)", () => {
    expect(requestsNeeded({ book: false })).toBe(4);
    expect(requestsNeeded({ book: true })).toBe(5);
    expect(requestsNeeded({ book: false, trigger: { ref: 't', email: 'a@b.co', fields: {} } })).toBe(5);
    expect(requestsNeeded({ book: true, trigger: { ref: 't', email: 'a@b.co', fields: {} } })).toBe(7);
  });

  it('fails with the failed checks named, and the whole report as its JSON document', () => {
    const report: SmokeReport = { ok: false, requests: 3, tries: 3, rateWaitMs: 0, checks };
    const e = new SmokeFailedError(report);
    expect(e.message).toBe('1 smoke check failed: slots');
    expect(e.hint).toBe('see the DETAIL column (or "checks" with --json) for each failure');
    expect(e.toDocument()).toEqual({
      ...report,
      error: expect.objectContaining({ code: 'SMOKE_FAILED', message: '1 smoke check failed: slots' }),
    });
    const two = new SmokeFailedError({ ...report, checks: [...checks, { ...checks[1]!, name: 'booking' }] });
    expect(two.message).toBe('2 smoke checks failed: slots, booking');
  });
});
