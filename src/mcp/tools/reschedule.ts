/** reschedule_meeting and the lead's meeting by email: the CLI's `reschedule` without its terminal picker. */
import { moveDocument } from '../../run/reschedule/document.js';
import * as z from 'zod/v4';
import { workspaceOf } from '../../run/workspace.js';
import { ApiError, OutcomeUnknownError, UsageError } from '../../errors.js';
import { MAX_MOVE_TRIES } from '../../domain/move-search.js';
import { formatInZone } from '../../domain/time.js';
import { findMeetingToMove, parseRescheduleOptions, searchIn } from '../../run/reschedule.js';
import { moveMeeting } from '../../run/session/move.js';
import type { MoveSearch } from '../../run/reschedule/search.js';
import { humanTimes } from '../../ui/human-times.js';
import { rescheduleText } from '../format.js';
import { OUTPUT } from '../output.js';
import { BUDGET, defineTool } from '../tool.js';
import { emailInput, idInput, timeInput, TZ } from './inputs.js';

const MOVE_LOST =
  'the meeting may already have moved: calling reschedule_meeting again with the same arguments is harmless (it moves it to the same time)';

const searchLost = (id: string, at: string) =>
  `the meeting may already have moved to ${at}: call reschedule_meeting with meeting_id ${id} and start ${at} (the same move again is harmless); do not search again before checking`;

export const rescheduleMeetingTool = defineTool({
  name: 'reschedule_meeting',
  title: 'Reschedule a meeting',
  description:
    "Moves a meeting to a new start time; it keeps its host. Name it by meeting_id, or by the lead's email (their one upcoming meeting in schedctl's local record; when there are several the error lists them, then pass meeting_id or event). start is ISO 8601 or as people say it ('tomorrow 15:00', 'next monday 9:30', 'dec 3 14:00', '2026-12-01 14:00'), read in tz; a time that could be read two ways is refused with both readings, never guessed. The host must be free then: the event's free times (find_slots) are those of all its hosts, and the API refuses a time this meeting's host cannot take (CONFLICT; nothing changes). A start that names a day or a part of it ('first friday', 'tuesday afternoon', 'thursday') tries the event's free times in it, one request each (at most tries, default 5), until the host accepts one; the result lists them in tried. Costs 1 API request for one time, 1 + the times tried for a day (" +
    BUDGET +
    '). If the answer is lost (OUTCOME_UNKNOWN) the meeting may already have moved; the error says which call is harmless to repeat.',
  input: {
    meeting_id: idInput('the meeting id (from book_meeting, route_lead or list_meetings)').optional(),
    email: emailInput(
      "instead of meeting_id: the lead's email, to find their upcoming meeting in the local record",
    ).optional(),
    event: idInput('with email: only meetings of this event or link').optional(),
    start: timeInput("the new start time, or a day or part of one to try the event's free times in"),
    tries: z
      .number()
      .int()
      .min(1)
      .max(MAX_MOVE_TRIES)
      .optional()
      .describe('when start names a day or part of one: free times to try at most, one request each (default 5)'),
    tz: TZ,
  },
  flags: {
    meeting_id: '<meeting-id>',
    email: '--email',
    event: '--event',
    start: '--start',
    tries: '--tries',
    tz: '--tz',
  },
  output: OUTPUT.reschedule_meeting,
  // Destructive: the meeting's earlier time is given up. Idempotent: the same call again moves it to the same
  // time; a searched one finds the meeting in its window and keeps it there (domain/move-search.ts).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async run(call, args) {
    const { ctx } = call;
    const request = await parseRescheduleOptions(
      args.meeting_id,
      { ...args, tries: args.tries === undefined ? undefined : String(args.tries) },
      ctx.clock.now(),
    );
    if (args.tries !== undefined && !request.range)
      throw new UsageError("tries is for a start that names a day or a part of one ('first friday')");
    const state = await ctx.state();
    const found = await findMeetingToMove(ctx, state, await workspaceOf(ctx), request);
    call.lostHint = MOVE_LOST;
    let search: MoveSearch | undefined;
    try {
      if (request.start) {
        const moved = await moveMeeting(ctx, found, request.start);
        const said =
          moved.status === 'unchanged' ? ['Nothing was sent: the meeting is already at that time on record.'] : [];
        return {
          doc: moveDocument(moved, found.was, undefined),
          text: [...said, ...rescheduleText(moved.meeting, found.was, request.zone)],
        };
      }
      if (!request.range) throw new UsageError('missing --start: pass the new start time');
      search = await searchIn(ctx, found, request.range, { zone: request.zone, tries: request.tries });
      const moved = await moveMeeting(ctx, found, search);
      const { meeting } = moved;
      const refused = search.tried.filter((t) => t.answer === 'CONFLICT');
      return {
        doc: moveDocument(moved, found.was, search),
        text: [
          ...rescheduleText(meeting, found.was, request.zone),
          refused.length
            ? `Tried first (this meeting's host refused them, nothing changed): ${refused.map((t) => formatInZone(t.startTime, request.zone)).join(', ')}.`
            : 'Its host accepted the first time tried.',
        ],
      };
    } catch (error) {
      if (error instanceof OutcomeUnknownError && search?.lost) call.lostHint = searchLost(found.id, search.lost);
      throw error instanceof ApiError && error.code === 'CONFLICT' ? inToolWords(error, request.zone) : error;
    }
  },
});

/**
 * A refusal in this tool's words and the caller's zone: the CLI's details end in `--start <time>`
 * (a command to paste); here the times read in `tz` with the ISO value to pass as start.
 */
function inToolWords(error: ApiError, zone: string): ApiError {
  const detail = (d: string) =>
    d.replace(/^(.*?)(\S+Z)(?: {3}--start \S+)?$/, (_all, label: string, iso: string) =>
      Number.isNaN(Date.parse(iso)) ? d : `${label}${formatInZone(iso, zone)} (start: ${iso})`,
    );
  return new ApiError({
    ...error.fields(),
    message: humanTimes(error.message, zone),
    ...(error.details ? { details: error.details.map(detail) } : {}),
  });
}
