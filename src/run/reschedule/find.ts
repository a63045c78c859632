/** `reschedule --email`: the lead's meeting from the local record; several ask on a terminal, fail in scripts. */
import { serverClockOf } from '../../api/server-clock.js';
import type { Context } from '../../context.js';
import { formatInZone } from '../../domain/time.js';
import { CancelledError, CliError, EXIT, LeadOutcomeUnknownError, SeveralMeetingsError } from '../../errors.js';
import type { State } from '../../state/index.js';
import { bookAgainCommand } from './gone.js';
import {
  allMeetings,
  eventLabel,
  isGone,
  filterMeetings,
  otherMachinesHint,
  type MeetingView,
} from '../meetings/records.js';
import { confirmHint, unresolvedAttempts, unresolvedView, unresolvedWhat } from '../meetings/unresolved.js';

export async function findMeetingByEmail(
  ctx: Context,
  state: State,
  scope: string,
  q: { email: string; event?: string | undefined; zone: string },
): Promise<MeetingView> {
  // Upcoming by the server's clock, as the ledger judges it (api/server-clock.ts), not this machine's alone.
  const upcomingFrom = serverClockOf(ctx).ledgerNow((await ctx.target()).baseUrl);
  const filter = { email: q.email, event: q.event, upcomingFrom };
  const listed = await allMeetings(state, scope, filter);
  const all = filterMeetings(listed, filter);
  const candidates = all.filter((m): m is MeetingView => m.id !== null && m.status !== 'canceled');
  const line = (m: MeetingView) => `${formatInZone(m.date, q.zone)}  ${m.title}  (${m.event})  ${m.id}`;
  if (candidates.length === 0) {
    // On record without its id (booked under a lost answer): it exists; said so, and how to move it.
    const lost = all.find((m) => m.id === null);
    if (lost)
      throw new CliError(
        'MEETING_ID_UNKNOWN',
        `${q.email} has a meeting at ${formatInZone(lost.date, q.zone)} on ${eventLabel(lost)}, but its id was never received (the booking's answer was lost; a retry proved it booked), so it cannot be moved by --email`,
        EXIT.notFound,
        {
          hint: 'move it by its id, from the scheduling app or the calendar invite: schedctl reschedule <meeting-id> --start <time> (the record then keeps the id)',
        },
      );
    // Sent with its answer lost (issue 52 finding 7): the meeting almost certainly exists, its id
    // is not known yet. Said so, with how to learn it, not "nothing on record".
    const [unresolved] = (await unresolvedAttempts(state, scope, q.email)).filter(
      (e) => q.event === undefined || e.event === q.event || e.eventId === q.event,
    );
    if (unresolved) {
      const v = unresolvedView(unresolved);
      throw new LeadOutcomeUnknownError(`${unresolvedWhat(v, q.zone)}; nothing was moved`, {
        hint: `${confirmHint(v)}; its meeting is then on record: schedctl reschedule --email ${q.email} --start <time>`,
      });
    }
    const gone = filterMeetings(listed, { ...filter, upcomingFrom: undefined }).find(isGone);
    throw new CliError(
      'NOT_FOUND',
      `no upcoming meeting of ${q.email}${q.event ? ` on ${q.event}` : ''} in the local record`,
      EXIT.notFound,
      {
        hint: gone
          ? `the API answered 404 for its meeting ${gone.id} (to a move, ${formatInZone(gone.goneAt, q.zone)}): check it in the scheduling app; if it is really gone, ${bookAgainCommand(gone)} --rebook books ${q.email} anew`
          : `${await otherMachinesHint(state)}; \`schedctl meetings ls --all\` lists what is on record; for another meeting pass its id`,
      },
    );
  }
  const [only] = candidates;
  if (only && candidates.length === 1) return only;
  if (!ctx.canPrompt()) {
    throw new SeveralMeetingsError(
      `${candidates.length} upcoming meetings of ${q.email} are on record: pass the meeting id (or --event)`,
      candidates.map((m) => ({ id: m.id, date: m.date, title: m.title, event: m.event, line: line(m) })),
      { hint: `schedctl reschedule <meeting-id> --start <time> (one of the ids above)` },
    );
  }
  const { select } = await import('@inquirer/prompts');
  const id = await select(
    { message: `Which meeting of ${q.email}?`, choices: candidates.map((m) => ({ name: line(m), value: m.id })) },
    { input: ctx.io.stdin, output: ctx.io.stderr },
  );
  const chosen = candidates.find((m) => m.id === id);
  if (!chosen) throw new CancelledError('nothing was moved');
  return chosen;
}
