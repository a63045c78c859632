/**
 * The smoke run: a fixed sequence of checks, each one or two requests, every response
 * held against the strict schemas. It uses at most 8 requests (plus the HTTP layer's
 * retries), far inside the API's 30 per minute, and never throws for an API failure:
 * each becomes a failed check, and checks that depend on it are skipped.
 */
import type { HttpClient } from '../../api/client.js';
import { PATHS } from '../../api/paths.js';
import {
  schemas,
  strictSchemas,
  type Meeting,
  type SlotsResult,
  type TriggerFireResult,
  type Trigger,
} from '../../api/schemas.js';
import { buildResponses, resolveTrigger } from '../triggers.js';
import { formatInZone } from '../time.js';
import { probe, type ProbeResult, type Timing } from './probe.js';
import type { CheckResult, SmokeInput, SmokeInputNames, SmokeReport } from './types.js';
import { API_UNREACHABLE, cliMessage, describeOutcome, judgeAuth, overBudget } from './verdicts.js';

const SLOT_DAYS = 7;
/** `1 slot`, `3 slots`. */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

export interface SmokeDeps {
  http: HttpClient;
  now(): Date;
  /** How the caller names the run's inputs in its texts (the CLI: its flags). */
  names: SmokeInputNames;
  /** A meeting the booking check created (the caller records it, so it can be found again). */
  onBooked?(meeting: Meeting, event: string): Promise<void>;
  /** The zone of the times in the checks' texts (the system zone; default UTC). */
  zone?: string;
}

export async function runSmoke(
  input: SmokeInput,
  { http, now, names, onBooked, zone = 'UTC' }: SmokeDeps,
): Promise<SmokeReport> {
  const sentBefore = http.sent;
  const triesBefore = http.attempts;
  const checks: CheckResult[] = [];
  let meetingId: string | undefined;

  const record = (check: CheckResult, budget = true): void => {
    checks.push(budget ? overBudget(check, input.maxLatencyMs, names.maxLatency) : check);
  };
  const skip = (name: string, why: string) =>
    checks.push({ name, status: 'skip', latencyMs: null, detail: `skipped: ${why}` });
  const waitOf = (r: Timing) => (r.rateWaitMs ? { rateWaitMs: r.rateWaitMs } : {});
  const failed = (name: string, r: Extract<ProbeResult<unknown>, { ok: false }>, prefix = ''): CheckResult => ({
    name,
    status: 'fail',
    latencyMs: r.latencyMs,
    ...waitOf(r),
    detail: prefix + r.detail,
    ...(r.problems ? { problems: r.problems } : {}),
  });
  const passed = (name: string, r: Timing, detail: string): CheckResult => ({
    name,
    status: 'pass',
    latencyMs: r.latencyMs,
    ...waitOf(r),
    detail,
  });
  const dataOf = <T>(r: ProbeResult<T> | undefined): T | undefined =>
    r === undefined ? undefined : r.ok ? r.data : r.usable;
  const window = () => {
    const start = now();
    return { start: start.toISOString(), end: new Date(start.getTime() + SLOT_DAYS * 86_400_000).toISOString() };
  };
  const slotsFor = (event: string) =>
    probe<SlotsResult>(
      http,
      { method: 'POST', path: PATHS.slots(event), body: window(), safety: 'retry' },
      strictSchemas.slotsResult,
      schemas.slotsResult,
    );

  // 1. auth, answered by the first request (the triggers list): any API answer but 401 means the key was accepted.
  const triggers = await probe(
    http,
    { method: 'GET', path: PATHS.triggers, safety: 'retry' },
    strictSchemas.triggersList,
    schemas.triggersList,
  );
  let auth = judgeAuth(triggers);
  const rest = ['triggers.list', 'events.list', 'events.detail', 'slots', 'trigger.fire', 'booking'];
  let unreachable = false;
  if (auth.stop) {
    unreachable = auth.stop === API_UNREACHABLE;
    record(auth.check, false);
    for (const name of rest) skip(name, auth.stop);
    return finish();
  }

  // 2. triggers.list
  const triggersCheck: CheckResult = triggers.ok
    ? passed('triggers.list', triggers, count(triggers.data.triggers.length, 'trigger'))
    : failed('triggers.list', triggers);

  // 3. events.list; when the triggers answer could not prove the key (a 5xx, a gateway page), this one decides auth.
  const events = await listEvents();
  if (auth.undecided) {
    const second = judgeAuth(events);
    auth = second.undecided
      ? { check: { ...auth.check, detail: `could not confirm the key: ${auth.check.detail}` } }
      : {
          ...second,
          check: {
            ...second.check,
            latencyMs: events.latencyMs,
            detail: `${second.check.detail} (seen on the events list)`,
          },
        };
  }
  record(auth.check, false);
  record(triggersCheck);
  if (auth.stop) {
    for (const name of rest.slice(1)) skip(name, auth.stop);
    return finish();
  }
  if (events.ok) {
    const n = events.data.events.length;
    record(
      passed(
        'events.list',
        events,
        `${count(n, 'event')} on the first page${events.data.nextCursor ? ', more pages follow' : ''}`,
      ),
    );
  } else {
    record(failed('events.list', events));
  }

  // 4. events.detail for the requested event or the first listed event
  const firstEvent = dataOf(events)?.events[0];
  const target = input.event ?? firstEvent?.id;
  let slotsEvent: string | undefined;
  if (target === undefined) {
    skip(
      'events.detail',
      events.ok
        ? `the first page lists no events (pass ${names.event})`
        : `events.list failed (pass ${names.event} to check one anyway)`,
    );
  } else {
    const detail = await probe(
      http,
      { method: 'GET', path: PATHS.event(target), safety: 'retry' },
      strictSchemas.eventDetail,
      schemas.eventDetail,
    );
    const d = dataOf(detail);
    if (detail.ok) {
      const e = detail.data;
      record(
        passed(
          'events.detail',
          detail,
          `${e.name} (${e.slug}): ${count(e.hosts.length, 'host')}, ${count(e.questions.length, 'question')}`,
        ),
      );
    } else {
      record(failed('events.detail', detail));
    }
    // The id the detail answered with, so slots and booking use the event itself even when the request named a slug.
    if (d) slotsEvent = d.id;
  }

  // 5. slots for that event, 7 days from now
  let eventSlots: ProbeResult<SlotsResult> | undefined;
  if (slotsEvent === undefined) {
    skip('slots', target === undefined ? 'no event to fetch slots for' : 'events.detail did not answer a usable event');
  } else {
    eventSlots = await slotsFor(slotsEvent);
    if (eventSlots.ok) {
      const s = eventSlots.data;
      record(
        passed(
          'slots',
          eventSlots,
          `${count(s.slots.length, 'slot')} in the next ${SLOT_DAYS} days; reservation ${s.reservationId} until ${formatInZone(s.expiresAt, zone)}`,
        ),
      );
    } else {
      record(failed('slots', eventSlots));
    }
  }

  // 6. trigger.fire: resolve and validate locally first, so a typo costs no workflow run.
  let fire: ProbeResult<TriggerFireResult> | undefined;
  if (!input.trigger) {
    skip('trigger.fire', `pass ${names.trigger}, ${names.email} and ${names.field} to fire one`);
  } else {
    const list = dataOf(triggers)?.triggers;
    if (!list) {
      skip('trigger.fire', 'triggers.list failed, so the trigger cannot be resolved and checked before firing');
    } else {
      let trigger: Trigger | undefined;
      let responses: Record<string, string> | undefined;
      try {
        trigger = resolveTrigger(list, input.trigger.ref);
        responses = buildResponses(trigger, { email: input.trigger.email, fields: input.trigger.fields }, names);
      } catch (error) {
        record({ name: 'trigger.fire', status: 'fail', latencyMs: null, detail: `not fired: ${cliMessage(error)}` });
      }
      if (trigger && responses) {
        fire = await probe<TriggerFireResult>(
          http,
          {
            method: 'POST',
            path: PATHS.trigger(trigger.id),
            body: { email: input.trigger.email, responses },
            safety: 'once',
          },
          strictSchemas.triggerFireResult,
          schemas.triggerFireResult,
        );
        record(
          fire.ok
            ? passed('trigger.fire', fire, describeOutcome(trigger.name, fire.data))
            : failed('trigger.fire', fire),
        );
      }
    }
  }

  // 7. booking (opt-in: it creates a real meeting)
  if (!input.book) {
    skip('booking', `pass ${names.book} to book a real meeting on the first slot`);
  } else if (input.trigger) {
    const fired = dataOf(fire);
    const outcome = fired?.outcome as { type: string; schedulingLinkId?: unknown } | undefined;
    if (!fired || !outcome) skip('booking', 'trigger.fire gave no outcome to book with');
    else if (outcome.type !== 'scheduler' || typeof outcome.schedulingLinkId !== 'string') {
      skip('booking', `the trigger's outcome is "${outcome.type}", not a scheduler: nothing to book`);
    } else {
      await book('booking', outcome.schedulingLinkId, input.trigger.email, fired.executionId);
    }
  } else {
    const s = dataOf(eventSlots);
    if (!s || slotsEvent === undefined) skip('booking', 'slots did not answer a usable reservation');
    else await book('booking', slotsEvent, input.email ?? '', undefined, s);
  }

  return finish();

  async function listEvents() {
    return probe(
      http,
      { method: 'GET', path: PATHS.events, safety: 'retry' },
      strictSchemas.eventsList,
      schemas.eventsList,
    );
  }

  /** Slots for the routed link (unless already fetched), then POST /meetings on the first slot. */
  async function book(
    name: string,
    event: string,
    email: string,
    executionId: string | undefined,
    held?: SlotsResult,
  ): Promise<void> {
    let spent = 0;
    let waited = 0;
    let slots = held;
    if (!slots) {
      const fetched = await slotsFor(event);
      spent += fetched.latencyMs;
      waited += fetched.rateWaitMs ?? 0;
      if (!fetched.ok) return record(failed(name, fetched, `slots of the routed link ${event}: `));
      slots = fetched.data;
    }
    const startTime = slots.slots[0];
    if (startTime === undefined) {
      return record({
        name,
        status: 'fail',
        latencyMs: spent,
        ...waitOf({ latencyMs: spent, rateWaitMs: waited }),
        detail: `no free slot in the next ${SLOT_DAYS} days to book on ${event}`,
      });
    }
    const body = {
      startTime,
      reservationId: slots.reservationId,
      event,
      personEmail: email,
      ...(executionId ? { workflowExecutionId: executionId } : {}),
    };
    const booked = await probe<Meeting>(
      http,
      { method: 'POST', path: PATHS.meetings, body, safety: 'once' },
      strictSchemas.meeting,
      schemas.meeting,
    );
    const meeting = dataOf(booked);
    if (meeting) {
      meetingId = meeting.id;
      await onBooked?.(meeting, event).catch(() => undefined);
    }
    const latencyMs = spent + booked.latencyMs;
    const timing = { latencyMs, ...waitOf({ latencyMs, rateWaitMs: waited + (booked.rateWaitMs ?? 0) }) };
    const created = meeting
      ? `meeting ${meeting.id} booked for ${formatInZone(meeting.date, zone)}${executionId ? ` (routed, execution ${executionId})` : ''}; it is real and the API has no cancel`
      : '';
    if (booked.ok) return record(passed(name, timing, created));
    record({ ...failed(name, booked), ...timing, ...(meeting ? { detail: `${booked.detail} [${created}]` } : {}) });
  }

  function finish(): SmokeReport {
    const rateWaitMs = checks.reduce((sum, c) => sum + (c.rateWaitMs ?? 0), input.budgetWaitMs ?? 0);
    return {
      ok: checks.every((c) => c.status !== 'fail'),
      requests: http.sent - sentBefore,
      tries: http.attempts - triesBefore,
      ...(unreachable ? { unreachable: true as const } : {}),
      rateWaitMs,
      checks,
      ...(meetingId ? { meetingId } : {}),
    };
  }
}
