import { workspaceOf } from '../workspace.js';
import type { Context } from '../../context.js';
import { formatInZone, formatWithUtc, resolveZone } from '../../domain/time.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { bookedViaLink, otherMachinesHint, view } from './records.js';
import { bookAgainCommand } from '../reschedule/gone.js';
import { sanitizeText } from '../../ui/sanitize.js';
import { unresolvedAttempts, unresolvedLine, unresolvedView } from './unresolved.js';

export async function run(ctx: Context, [id = '']: string[], opts: { tz?: string }): Promise<void> {
  if (!id.trim()) throw new UsageError('missing <meeting-id>: pass a meeting id (see `schedctl meetings ls`)');
  const zone = resolveZone(opts.tz, '--tz');
  const state = await ctx.state();
  const scope = await workspaceOf(ctx);
  const record = await state.meetings.get(scope, id.trim());
  if (!record) {
    // A booking whose answer was lost has no id on record yet (issue 52 finding 7): the meeting
    // looked for may be one of them; said so, with how to confirm each.
    const lost = (await unresolvedAttempts(state, scope)).map(unresolvedView);
    const unresolved = lost.length
      ? `; ${lost.length === 1 ? 'a booking' : `${lost.length} bookings`} sent here had its answer lost (its meeting's id never received), the meeting may be one: ${lost
          .slice(0, 3)
          .map((v) => unresolvedLine(v, zone))
          .join('; ')}`
      : '';
    // An email where an id goes: the lead's whole record is another command.
    if (id.includes('@'))
      throw new UsageError(
        `"${id.trim()}" is not a meeting id: for a lead's whole record: schedctl meetings history ${id.trim()}`,
      );
    throw new CliError('NOT_FOUND', `no meeting ${id} in the local record of this workspace`, EXIT.notFound, {
      hint: `only meetings booked or moved through schedctl are recorded (\`schedctl meetings ls --all\` lists them); ${await otherMachinesHint(state)}${unresolved}`,
    });
  }
  const pending = (await unresolvedAttempts(state, scope, record.personEmail)).map(unresolvedView);
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(view(record));
  const time = (iso: string) => formatWithUtc(iso, zone);
  const lines = [
    `Meeting ${record.id}`,
    `  title         ${record.title}`,
    `  time          ${time(record.date)}, ${record.duration} min`,
    record.goneAt !== undefined
      ? `  status        404: the API answered 404 NOT_FOUND to a move at ${formatInZone(record.goneAt, zone)} (deleted, another account's key, or a passing fault; last known status ${record.status}); the lead is not freed by it: if the meeting is really gone, ${bookAgainCommand(record)} --rebook books ${record.personEmail} anew`
      : `  status        ${record.status}${record.cancellationReason ? ` (${record.cancellationReason})` : ''}`,
    `  lead          ${record.personEmail}`,
    ...(record.additionalAttendees.length ? [`  guests        ${record.additionalAttendees.join(', ')}`] : []),
    ...(bookedViaLink(record)
      ? [
          `  event id      ${record.eventId}`,
          `  link id       ${record.event} (the scheduling link it was booked through)`,
        ]
      : [`  event         ${record.event}${record.event !== record.eventId ? ` (id ${record.eventId})` : ''}`]),
    ...(record.conferencingType === 'in_person'
      ? [`  location      ${record.location ?? '(none)'}`]
      : [`  link          ${record.meetingLink ?? record.location ?? '(none)'}`]),
    `  recorded      ${record.source} at ${formatInZone(record.recordedAt, zone)}${record.bookedBy ? ` by ${record.bookedBy}` : ''}`,
    ...(record.triggerId
      ? [`  trigger       ${record.triggerName ? `"${record.triggerName}" (${record.triggerId})` : record.triggerId}`]
      : []),
    '  moves',
    ...(record.history.length
      ? record.history.map(
          (m) =>
            `    ${formatInZone(m.at, zone)}: ${m.from ? `from ${formatInZone(m.from, zone)} ` : ''}to ${formatInZone(m.to, zone)}`,
        )
      : ['    (none)']),
    ...(record.pendingMove
      ? [
          `  move sent     to ${formatInZone(record.pendingMove.to, zone)} at ${formatInZone(record.pendingMove.sentAt, zone)}, its answer lost: it may be at either time (the next reschedule sends it again)`,
        ]
      : []),
    ...(record.refused?.length
      ? [
          `  refused       ${record.refused.map((r) => formatInZone(r.startTime, zone)).join(', ')} (the host refused a move to these, kept an hour)`,
        ]
      : []),
  ];
  ui.print(lines.join('\n'));
  for (const v of pending) ui.info(`unresolved: ${sanitizeText(unresolvedLine(v, zone))}`);
}
