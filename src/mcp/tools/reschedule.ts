/** reschedule_meeting and the lead's meeting by email: the CLI's `reschedule` without its terminal picker. */
import { workspaceOf } from '../../run/workspace.js';
import { UsageError } from '../../errors.js';
import { findMeetingToMove, moveMeeting, parseRescheduleOptions } from '../../run/reschedule.js';
import { rescheduleText } from '../format.js';
import { OUTPUT } from '../output.js';
import { BUDGET, defineTool } from '../tool.js';
import { emailInput, idInput, timeInput, TZ } from './inputs.js';

const MOVE_LOST =
  'the meeting may already have moved: calling reschedule_meeting again with the same arguments is harmless (it moves it to the same time)';

export const rescheduleMeetingTool = defineTool({
  name: 'reschedule_meeting',
  title: 'Reschedule a meeting',
  description:
    "Moves a meeting to a new start time; it keeps its host. Name it by meeting_id, or by the lead's email (their one upcoming meeting in schedctl's local record; when there are several the error lists them, then pass meeting_id or event). start is ISO 8601 or as people say it ('tomorrow 15:00', 'next monday 9:30', 'dec 3 14:00', '2026-12-01 14:00'), read in tz; a time that could be read two ways is refused with both readings, never guessed. The host must be free then (CONFLICT otherwise: look with find_slots on the meeting's event). Costs 1 API request (" +
    BUDGET +
    '). If the answer is lost (OUTCOME_UNKNOWN) the meeting may already have moved; calling again with the same arguments is harmless.',
  input: {
    meeting_id: idInput('the meeting id (from book_meeting, route_lead or list_meetings)').optional(),
    email: emailInput(
      "instead of meeting_id: the lead's email, to find their upcoming meeting in the local record",
    ).optional(),
    event: idInput('with email: only meetings of this event or link').optional(),
    start: timeInput('the new start time'),
    tz: TZ,
  },
  flags: { meeting_id: '<meeting-id>', email: '--email', event: '--event', start: '--start', tz: '--tz' },
  output: OUTPUT.reschedule_meeting,
  // Destructive: the meeting's earlier time is given up. Idempotent: the same call again moves it to the same time.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async run(call, args) {
    const { ctx } = call;
    const request = await parseRescheduleOptions(args.meeting_id, args, ctx.clock.now());
    const state = await ctx.state();
    const found = await findMeetingToMove(ctx, state, await workspaceOf(ctx), request);
    if (!request.start) throw new UsageError('missing --start: pass the new start time');
    call.lostHint = MOVE_LOST;
    const meeting = await moveMeeting(ctx, found, request.start);
    return { doc: meeting, text: rescheduleText(meeting, found.was, request.zone) };
  },
});
