/**
 * The reschedule picker: a day of the meeting's event's free times first (type a day to jump),
 * then a time of that day, with pages of later and earlier times, then a confirmation that
 * shows the move with full dates and the zone.
 */
import type { Api } from '../../api/endpoints.js';
import type { Context } from '../../context.js';
import { offerable } from '../../domain/move-search.js';
import { fetchSlots } from '../../domain/slots.js';
import { dayKey, dayLabel, timeLabel } from '../../domain/time.js';
import { CancelledError } from '../../errors.js';
import { DEFAULT_DAYS } from '../../limits.js';
import { fullTime, pickDayThenTime } from '../../ui/day-time-picker.js';
import { sanitizeText } from '../../ui/sanitize.js';

const DAY_MS = 86_400_000;
const LATER = '__later__';
const EARLIER = '__earlier__';

/** `Tue 24 Nov 10:00`, in the zone. */
export const shortTime = (iso: string | Date, zone: string) => `${dayLabel(iso, zone)} ${timeLabel(iso, zone)}`;

export async function pickTime(
  ctx: Context,
  api: Pick<Api, 'slots'> & Partial<Pick<Api, 'getEvent'>>,
  m: { id: string; event: string; was: string | undefined; title?: string | undefined },
  zone: string,
  /** A part of the day the user named (--start "tue afternoon"): its free times are offered first. */
  within?: { from: Date; to: Date },
  /**
   * Times this meeting's host refused (epoch ms, not lapsed): never offered as free, listed on
   * their day as refused. Asked after each slots answer, whose Date header tells the server's
   * time their lapse is judged by. `openAt`: open at that day (a choice just refused).
   */
  marks: { refused?: () => Promise<ReadonlySet<number>>; openAt?: Date | undefined; yes?: boolean } = {},
): Promise<Date> {
  const { confirm } = await import('@inquirer/prompts');
  const io = { input: ctx.io.stdin, output: ctx.io.stderr };
  const now = ctx.clock.now();
  let from = within && within.from > now ? within.from : now;
  let openDay: string | undefined;
  if (marks.openAt) {
    // Back after a refusal: the times around the refused one, on its day.
    const dayStart = new Date(marks.openAt.getTime() - DAY_MS);
    from = dayStart > now ? dayStart : now;
    openDay = dayKey(marks.openAt, zone);
  }
  let reservationId: string | undefined;
  let range = within;
  // The meeting by what people know it by: its title, date and host, not its id.
  const name = await meetingName(api, m, zone);
  for (;;) {
    const to = new Date(from.getTime() + DEFAULT_DAYS * DAY_MS);
    const page = await fetchSlots(api, m.event, { from, to, ...(reservationId ? { reservationId } : {}) });
    reservationId = page.reservationId;
    const refused = (await marks.refused?.()) ?? new Set<number>();
    const extras = [{ name: `later times (from ${shortTime(to, zone)}) →`, value: LATER }];
    if (from > now) extras.push({ name: '← earlier times', value: EARLIER });
    const answer = await pickDayThenTime(io, {
      message: sanitizeText(`New time for ${name}`),
      zone,
      now,
      slots: offerable(page.slots, refused),
      refused: [...refused]
        .filter((t) => t >= from.getTime() && t < to.getTime())
        .map((t) => new Date(t).toISOString()),
      extras,
      within: range,
      openDay,
      range: { from, to },
    });
    range = undefined;
    openDay = undefined;
    if (answer.kind === 'day') {
      from = answer.day > now ? answer.day : now;
      openDay = dayKey(answer.day, zone);
      continue;
    }
    if (answer.kind === 'extra') {
      from = answer.value === LATER ? to : new Date(Math.max(now.getTime(), from.getTime() - DEFAULT_DAYS * DAY_MS));
      continue;
    }
    const chosen = answer.slot;
    const move = m.was
      ? `from ${fullTime(m.was, zone)} (as schedctl last recorded it) to ${fullTime(chosen, zone)}`
      : `to ${fullTime(chosen, zone)}`;
    // --yes: the pick is the decision (gh's --yes skips the confirmation, never the choice).
    const ok = marks.yes || (await confirm({ message: sanitizeText(`Move ${name} ${move}?`), default: true }, io));
    if (!ok) throw new CancelledError('not rescheduled');
    return new Date(chosen);
  }
}

/**
 * `"Quarterly review with Ada" (Tue 1 Dec 15:00, host Hana Sato)`: the title and time from the
 * local record, the host from the event (one read; left out when it cannot be had). The id only
 * when nothing else is known.
 */
async function meetingName(
  api: Partial<Pick<Api, 'getEvent'>>,
  m: { id: string; event: string; was: string | undefined; title?: string | undefined },
  zone: string,
): Promise<string> {
  let hosts: string[] = [];
  try {
    hosts = ((await api.getEvent?.(m.event))?.hosts ?? []).map((h) => h.name);
  } catch {
    // The host is a courtesy: the picker works without it.
  }
  const facts = [
    ...(m.was ? [shortTime(m.was, zone)] : []),
    ...(hosts.length ? [`host${hosts.length > 1 ? 's' : ''} ${hosts.join(', ')}`] : []),
  ];
  if (!m.title) return `meeting ${m.id}${facts.length ? ` (${facts.join(', ')})` : ''}`;
  return `"${m.title}"${facts.length ? ` (${facts.join(', ')})` : ''}`;
}
