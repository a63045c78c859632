/**
 * Typed operations of the API, one function per endpoint of the spec, each with its
 * safety class (see client.ts). Commands and domain logic call these, never raw paths.
 */
import type { HttpClient } from './client.js';
import { PATHS } from './paths.js';
import { bodyControlProblem, CONTROL_REFUSAL } from './request-text.js';
import { UsageError } from '../errors.js';
import { schemas } from './schemas.js';
import { type SendHook, withSendHook } from './send-hook.js';
import type {
  SchemaSet,
  BookRequest,
  EventDetail,
  EventsList,
  FireRequest,
  Meeting,
  SlotsRequest,
  SlotsResult,
  TriggerFireResult,
  TriggersList,
} from './schemas.js';

/** The response schema of an operation, built on first use (see schemas.ts). */
const schema =
  <K extends keyof SchemaSet>(key: K) =>
  async () =>
    schemas[key];

/**
 * The last check of a body's free text before it leaves, whichever command built it (the
 * commands and tools refuse it earlier, naming their flag or argument; this names the field).
 * Only the members a person types: a fire's `responses` are checked against the trigger's form
 * (domain/triggers.ts), where a field's name and a select's options are the server's own words.
 */
function plainBody<B extends object>(body: B, members: ReadonlyArray<keyof B>): B {
  for (const member of members) {
    const problem = bodyControlProblem(body[member], String(member));
    if (problem)
      throw new UsageError(
        `invalid request: ${problem.where} holds the control character ${problem.char}; ${CONTROL_REFUSAL}, and nothing was sent`,
      );
  }
  return body;
}

/** What a person types into a booking. */
const BOOK_TEXT = ['guestFirstName', 'guestLastName', 'guestPhone', 'responses', 'fieldResponses'] as const;

export function createApi(http: HttpClient) {
  return {
    http,
    // Each endpoint is async: a path or body refused while the request is built is a rejection, never a throw.
    listTriggers: async (): Promise<TriggersList> =>
      http.request({ method: 'GET', path: PATHS.triggers, schema: schema('triggersList'), safety: 'retry' }),
    fireTrigger: async (
      triggerId: string,
      body: FireRequest,
      opts: { beforeSend?: SendHook } = {},
    ): Promise<TriggerFireResult> =>
      withSendHook(opts.beforeSend, async () =>
        http.request({
          method: 'POST',
          path: PATHS.trigger(triggerId),
          body: plainBody(body, ['context']),
          schema: schema('triggerFireResult'),
          safety: 'once',
        }),
      ),
    listEvents: async (query: { cursor?: string; limit?: number } = {}): Promise<EventsList> =>
      http.request({ method: 'GET', path: PATHS.events, query, schema: schema('eventsList'), safety: 'retry' }),
    getEvent: async (event: string): Promise<EventDetail> =>
      http.request({ method: 'GET', path: PATHS.event(event), schema: schema('eventDetail'), safety: 'retry' }),
    // Retrying a slots request is harmless: at worst it leaves an unused reservation that expires.
    slots: async (event: string, body: SlotsRequest): Promise<SlotsResult> =>
      http.request({
        method: 'POST',
        path: PATHS.slots(event),
        body,
        schema: schema('slotsResult'),
        safety: 'retry',
      }),
    book: async (body: BookRequest, opts: { beforeSend?: SendHook } = {}): Promise<Meeting> =>
      withSendHook(opts.beforeSend, async () =>
        http.request({
          method: 'POST',
          path: PATHS.meetings,
          body: plainBody(body, BOOK_TEXT),
          schema: schema('meeting'),
          safety: 'once',
        }),
      ),
    reschedule: async (meetingId: string, startTime: string, opts: { beforeSend?: SendHook } = {}): Promise<Meeting> =>
      withSendHook(opts.beforeSend, async () =>
        http.request({
          method: 'PATCH',
          path: PATHS.meeting(meetingId),
          body: { startTime },
          schema: schema('meeting'),
          safety: 'once',
        }),
      ),
  };
}

export type Api = ReturnType<typeof createApi>;
