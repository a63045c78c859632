import type { Meeting } from '../../api/schemas.js';
import type { MoveSearch } from './search.js';
import { apiMeeting } from '../../documents/meeting.js';
import type { MoveResultDocument } from '../../documents/schemas.js';

/**
 * The `reschedule --json` document (and reschedule_meeting's): a move result, `status` and the
 * moved Meeting like a booking result, `from` the start schedctl last recorded (null when this
 * machine never booked or moved it), and every time tried in order: a move to one time is one
 * try, `moved`.
 */
export function moveDocument(
  meeting: Meeting,
  was: string | undefined,
  search: MoveSearch | undefined,
): MoveResultDocument {
  return {
    status: 'moved',
    meeting: apiMeeting(meeting),
    from: was ?? null,
    tried: search ? search.tried : [{ startTime: meeting.date, answer: 'moved' }],
  };
}
