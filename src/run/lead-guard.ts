/**
 * "A lead is not booked twice by accident": before a new booking (book) or a new routed booking
 * (route), the local record of meetings booked through schedctl is asked for an upcoming one of
 * the same lead on the same event or link (book) or trigger (route). The same request again is
 * reported as already booked with that meeting; anything else is refused (exit 5) naming the
 * meeting and `--rebook`, or asked about on a terminal.
 */
import type { Context } from '../context.js';
import { formatInZone } from '../domain/time.js';
import { CancelledError, LeadHasMeetingError } from '../errors.js';
import type { MeetingRecord, Meetings } from '../state/index.js';

export interface LeadGuardQuery {
  scope: string;
  email: string;
  /** book: the event or link id; route: the trigger id with the answers' key. */
  event?: string | undefined;
  triggerId?: string | undefined;
  answersKey?: string | undefined;
  /** The time asked for; 'first' (route) matches any time. */
  start?: Date | 'first' | undefined;
  zone: string;
  rebook: boolean;
  /** The command that books another one anyway, for the refusal's hint. */
  again: string;
  /** Bulk runs never ask: a row that would book again fails with the refusal. */
  noPrompt?: boolean;
}

/** The meeting that makes this request a repeat (report it as already booked), or undefined to go ahead. */
export async function guardLead(
  ctx: Context,
  meetings: Pick<Meetings, 'findUpcoming'>,
  q: LeadGuardQuery,
): Promise<MeetingRecord | undefined> {
  if (q.rebook) return undefined;
  const upcoming = await meetings.findUpcoming(q.scope, {
    email: q.email,
    ...(q.triggerId !== undefined ? { triggerId: q.triggerId } : {}),
    ...(q.event !== undefined ? { event: q.event } : {}),
  });
  const held = upcoming.at(-1);
  if (!held) return undefined;
  const sameTime = q.start === 'first' || (q.start !== undefined && Date.parse(held.date) === q.start.getTime());
  const sameAnswers = q.triggerId === undefined || held.answersKey === q.answersKey;
  if (sameTime && sameAnswers) return held;
  const what = `${q.email} already has meeting ${held.id} at ${formatInZone(held.date, q.zone)} (booked through schedctl${held.triggerId ? ' by the same trigger' : ` on ${held.event}`})`;
  if (ctx.canPrompt() && !ctx.globals.json && !q.noPrompt) {
    const { confirm } = await import('@inquirer/prompts');
    const ok = await confirm(
      { message: `${what}. Book another one anyway?`, default: false },
      { input: ctx.io.stdin, output: ctx.io.stderr },
    );
    if (!ok) throw new CancelledError('nothing was booked');
    return undefined;
  }
  throw new LeadHasMeetingError(`${what}; nothing was sent`, {
    hint: `to move it: schedctl reschedule ${held.id} --start <time>; to book another one anyway: ${q.again} --rebook`,
  });
}
