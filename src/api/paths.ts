/**
 * The API's paths (spec "Endpoints"), in one place: the endpoints (endpoints.ts), the smoke
 * checks and the lead guard's clock read use them; no other module writes an API path.
 *
 * Every id put in a path passes one check: `encodeURIComponent` leaves `.` alone, and URL parsing
 * removes dot segments, so an id of `..` would turn `GET /v1/scheduling/events/..` into
 * `GET /v1/scheduling/`, and an empty one names the collection. Refused (exit 2), before anything
 * is sent, naming the input.
 */
import { UsageError } from '../errors.js';

/** One path segment: the id encoded, or a UsageError naming `name` when it would change the endpoint. */
export function pathSegment(value: string, name: string): string {
  if (value === '' || value === '.' || value === '..')
    throw new UsageError(
      `invalid ${name} "${value}": ${value === '' ? 'an empty id' : `an id of "${value}"`} would name another endpoint of the API; nothing was sent`,
      { hint: `pass the ${name} as listed (an id or slug)` },
    );
  return encodeURIComponent(value);
}

export const PATHS = {
  triggers: '/v1/triggers',
  trigger: (triggerId: string) => `/v1/triggers/${pathSegment(triggerId, 'trigger')}`,
  events: '/v1/scheduling/events',
  event: (event: string) => `/v1/scheduling/events/${pathSegment(event, 'event')}`,
  slots: (event: string) => `/v1/scheduling/events/${pathSegment(event, 'event')}/slots`,
  meetings: '/v1/scheduling/meetings',
  meeting: (meetingId: string) => `/v1/scheduling/meetings/${pathSegment(meetingId, 'meeting id')}`,
} as const;
