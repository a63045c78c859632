/**
 * The reschedule picker: free times of the meeting's event grouped by day (as in the route
 * wizard), with pages of later and earlier times, then a confirmation that shows the move.
 */
import type { Api } from '../../api/endpoints.js';
import type { Context } from '../../context.js';
import { fetchSlots, groupByDay } from '../../domain/slots.js';
import { dayLabel, timeLabel } from '../../domain/time.js';
import { CancelledError } from '../../errors.js';
import { DEFAULT_DAYS } from '../../limits.js';
import { sanitizeText } from '../../ui/sanitize.js';

const DAY_MS = 86_400_000;
const LATER = '__later__';
const EARLIER = '__earlier__';

/** `Tue 24 Nov 10:00`, in the zone. */
export const shortTime = (iso: string | Date, zone: string) => `${dayLabel(iso, zone)} ${timeLabel(iso, zone)}`;

export async function pickTime(
  ctx: Context,
  api: Pick<Api, 'slots'>,
  m: { id: string; event: string; was: string | undefined },
  zone: string,
): Promise<Date> {
  const prompts = await import('@inquirer/prompts');
  const io = { input: ctx.io.stdin, output: ctx.io.stderr };
  const now = ctx.clock.now();
  let from = now;
  let reservationId: string | undefined;
  for (;;) {
    const to = new Date(from.getTime() + DEFAULT_DAYS * DAY_MS);
    const page = await fetchSlots(api, m.event, { from, to, ...(reservationId ? { reservationId } : {}) });
    reservationId = page.reservationId;
    // The ways on sit above the times, so each is one key away from the first time.
    const choices: Array<{ name: string; value: string } | InstanceType<typeof prompts.Separator>> = [];
    choices.push({ name: 'later times →', value: LATER });
    if (from > now) choices.push({ name: '← earlier times', value: EARLIER });
    for (const { slots } of groupByDay(page.slots, zone)) {
      const [first] = slots;
      if (first) choices.push(new prompts.Separator(`── ${dayLabel(first, zone)}`));
      for (const s of slots) choices.push({ name: `   ${timeLabel(s, zone)}`, value: s });
    }
    if (page.slots.length === 0) choices.push(new prompts.Separator('  (no free times in this range)'));
    const chosen = await prompts.select(
      {
        message: sanitizeText(`New time for meeting ${m.id} (${zone})`),
        choices,
        pageSize: 14,
        loop: false,
        ...(page.slots[0] ? { default: page.slots[0] } : {}),
      },
      io,
    );
    if (chosen === LATER) {
      from = to;
      continue;
    }
    if (chosen === EARLIER) {
      from = new Date(Math.max(now.getTime(), from.getTime() - DEFAULT_DAYS * DAY_MS));
      continue;
    }
    const move = m.was
      ? `from ${shortTime(m.was, zone)} (as schedctl last recorded it) to ${shortTime(chosen, zone)}`
      : `to ${shortTime(chosen, zone)}`;
    const ok = await prompts.confirm({ message: `Move meeting ${m.id} ${move} (${zone})?`, default: true }, io);
    if (!ok) throw new CancelledError('not rescheduled');
    return new Date(chosen);
  }
}
