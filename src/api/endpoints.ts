/**
 * Typed operations of the API, one function per endpoint of the spec, each with its
 * safety class (see client.ts). Commands and domain logic call these, never raw paths.
 */
import type { HttpClient } from './client.js';
import { PATHS } from './paths.js';
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

export function createApi(http: HttpClient) {
  return {
    http,
    listTriggers: (): Promise<TriggersList> =>
      http.request({ method: 'GET', path: PATHS.triggers, schema: schema('triggersList'), safety: 'retry' }),
    fireTrigger: (
      triggerId: string,
      body: FireRequest,
      opts: { beforeSend?: SendHook } = {},
    ): Promise<TriggerFireResult> =>
      withSendHook(opts.beforeSend, () =>
        http.request({
          method: 'POST',
          path: PATHS.trigger(triggerId),
          body,
          schema: schema('triggerFireResult'),
          safety: 'once',
        }),
      ),
    listEvents: (query: { cursor?: string; limit?: number } = {}): Promise<EventsList> =>
      http.request({ method: 'GET', path: PATHS.events, query, schema: schema('eventsList'), safety: 'retry' }),
    getEvent: (event: string): Promise<EventDetail> =>
      http.request({ method: 'GET', path: PATHS.event(event), schema: schema('eventDetail'), safety: 'retry' }),
    // Retrying a slots request is harmless: at worst it leaves an unused reservation that expires.
    slots: (event: string, body: SlotsRequest): Promise<SlotsResult> =>
      http.request({ method: 'POST', path: PATHS.slots(event), body, schema: schema('slotsResult'), safety: 'retry' }),
    book: (body: BookRequest, opts: { beforeSend?: SendHook } = {}): Promise<Meeting> =>
      withSendHook(opts.beforeSend, () =>
        http.request({ method: 'POST', path: PATHS.meetings, body, schema: schema('meeting'), safety: 'once' }),
      ),
    reschedule: (meetingId: string, startTime: string, opts: { beforeSend?: SendHook } = {}): Promise<Meeting> =>
      withSendHook(opts.beforeSend, () =>
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
