/**
 * The API's limits and schedctl's own bounds, in one place. Pure constants: the command
 * definitions (the front) may import this module, so it must never import anything.
 */

/** Book: `guestEmails` holds at most 10 items (spec "Limits"). */
export const MAX_GUESTS = 10;
/** Slots: a range is at most 63 days (nine weeks), so one request covers at most that. */
export const MAX_SLOTS_RANGE_DAYS = 63;
/** `slots --days`: longer ranges are fetched in several requests with one reservation. */
export const MAX_SLOTS_DAYS = 365;
/** Days of free times shown per page by default (slots, route, reschedule). */
export const DEFAULT_DAYS = 7;
/** `events ls --limit`: schedctl's bound on the page size it asks for. */
export const MAX_EVENTS_PAGE = 50;
/** Request rate: 30 requests per minute per API key (spec "Limits"). */
export const RATE_PER_MINUTE = 30;
