/**
 * Typed operations of the API, one function per endpoint of the spec, each with its
 * safety class (see client.ts). Commands and domain logic call these, never raw paths.
 */
import type { HttpClient } from './client.js';
import {
  schemas,
  type BookRequest,
  type EventDetail,
  type EventsList,
  type FireRequest,
  type Meeting,
  type SlotsRequest,
  type SlotsResult,
  type TriggerFireResult,
  type TriggersList,
} from './schemas.js';

const seg = (s: string) => encodeURIComponent(s);

export function createApi(http: HttpClient) {
  return {
    http,
    listTriggers: (): Promise<TriggersList> =>
      http.request({ method: 'GET', path: '/v1/triggers', schema: schemas.triggersList, safety: 'retry' }),
    fireTrigger: (triggerId: string, body: FireRequest): Promise<TriggerFireResult> =>
      http.request({ method: 'POST', path: `/v1/triggers/${seg(triggerId)}`, body, schema: schemas.triggerFireResult, safety: 'once' }),
    listEvents: (query: { cursor?: string; limit?: number } = {}): Promise<EventsList> =>
      http.request({ method: 'GET', path: '/v1/scheduling/events', query, schema: schemas.eventsList, safety: 'retry' }),
    getEvent: (event: string): Promise<EventDetail> =>
      http.request({ method: 'GET', path: `/v1/scheduling/events/${seg(event)}`, schema: schemas.eventDetail, safety: 'retry' }),
    // Retrying a slots request is harmless: at worst it leaves an unused reservation that expires.
    slots: (event: string, body: SlotsRequest): Promise<SlotsResult> =>
      http.request({ method: 'POST', path: `/v1/scheduling/events/${seg(event)}/slots`, body, schema: schemas.slotsResult, safety: 'retry' }),
    book: (body: BookRequest): Promise<Meeting> =>
      http.request({ method: 'POST', path: '/v1/scheduling/meetings', body, schema: schemas.meeting, safety: 'once' }),
    reschedule: (meetingId: string, startTime: string): Promise<Meeting> =>
      http.request({ method: 'PATCH', path: `/v1/scheduling/meetings/${seg(meetingId)}`, body: { startTime }, schema: schemas.meeting, safety: 'once' }),
  };
}

export type Api = ReturnType<typeof createApi>;
