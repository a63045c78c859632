import type { Meeting } from '../api/schemas.js';

/** What the local record keeps beside a meeting (state/schemas.ts recordShape): not the API's Meeting. */
const RECORD_ONLY = [
  'scope',
  'source',
  'recordedAt',
  'event',
  'triggerId',
  'answersKey',
  'bookedBy',
  'history',
  'goneAt',
  'triggerName',
  'refused',
] as const;

/**
 * The API's Meeting of a meeting on record: a booking's or a move's document carries the
 * Meeting the API answered, field for field, wherever it comes from (`meetings ls` is where the
 * record's own fields are shown).
 */
export function apiMeeting(m: Meeting): Meeting {
  const copy: Record<string, unknown> = { ...m };
  for (const k of RECORD_ONLY) delete copy[k];
  return copy as Meeting;
}
