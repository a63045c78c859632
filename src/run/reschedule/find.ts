/** `reschedule --email`: the lead's meeting from the local record; several ask on a terminal, fail in scripts. */
import { serverClockOf } from '../../api/server-clock.js';
import type { Context } from '../../context.js';
import { formatInZone } from '../../domain/time.js';
import { CancelledError, CliError, EXIT, UsageError } from '../../errors.js';
import type { State } from '../../state/index.js';
import { allMeetings, filterMeetings, type MeetingView } from '../meetings/records.js';

export async function findMeetingByEmail(
  ctx: Context,
  state: State,
  scope: string,
  q: { email: string; event?: string | undefined; zone: string },
): Promise<MeetingView> {
  const all = filterMeetings(await allMeetings(state, scope), {
    email: q.email,
    event: q.event,
    // Upcoming by the server's clock, as the ledger judges it (api/server-clock.ts), not this machine's alone.
    upcomingFrom: serverClockOf(ctx).ledgerNow((await ctx.target()).baseUrl),
  });
  const candidates = all.filter((m): m is MeetingView => m.id !== null && m.status !== 'canceled');
  const line = (m: MeetingView) => `${formatInZone(m.date, q.zone)}  ${m.title}  (${m.event})  ${m.id}`;
  if (candidates.length === 0) {
    throw new CliError(
      'NOT_FOUND',
      `no upcoming meeting of ${q.email}${q.event ? ` on ${q.event}` : ''} in the local record`,
      EXIT.notFound,
      {
        hint: 'the record holds meetings booked or moved through schedctl with this profile (`schedctl meetings ls --all`); for another one pass its id',
      },
    );
  }
  const [only] = candidates;
  if (only && candidates.length === 1) return only;
  if (!ctx.canPrompt()) {
    throw new UsageError(
      `${candidates.length} upcoming meetings of ${q.email} are on record: pass the meeting id (or --event)`,
      {
        details: candidates.map(line),
      },
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
