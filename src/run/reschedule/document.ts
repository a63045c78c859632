import type { MoveOutcome } from '../session/move.js';
import type { MoveSearch } from './search.js';
import { apiMeeting } from '../../documents/meeting.js';
import type { MoveResultDocument } from '../../documents/schemas.js';

/**
 * The `reschedule --json` document (and reschedule_meeting's): a move result, `status` and the
 * moved Meeting like a booking result, `from` the start schedctl last recorded (null when this
 * machine never booked or moved it), and every time tried in order: a move to one time is one
 * try, `moved`; a move to the time on record sends nothing (`unchanged`, no try).
 */
export function moveDocument(
  { status, meeting }: MoveOutcome,
  was: string | undefined,
  search: MoveSearch | undefined,
): MoveResultDocument {
  const tried = search ? search.tried : [{ startTime: meeting.date, answer: 'moved' as const }];
  return { status, meeting: apiMeeting(meeting), from: was ?? null, tried: status === 'unchanged' ? [] : tried };
}
