import { Command } from 'commander';
import type { SlotsResult } from '../api/schemas.js';
import type { Context } from '../context.js';
import { action } from './action.js';

export interface SlotsOptions {
  from?: string;
  to?: string;
  days?: string;
  reservation?: string;
  tz?: string;
}

export interface SlotsRun {
  event: string;
  result: SlotsResult;
  zone: string;
  from: Date;
  to: Date;
  requests: number;
}

export function slotsCommand(ctx: Context): Command {
  return new Command('slots')
    .description('list bookable start times of an event or scheduling link (creates or reuses a reservation)')
    .argument('<event-or-link>', 'event id or slug, or scheduling link id or slug (e.g. a schedulingLinkId)')
    .option('--from <time>', 'start of the range (default: now)')
    .option('--to <time>', 'end of the range, exclusive (a date means through that day)')
    .option('--days <n>', 'length of the range in days instead of --to (default 7, at most 365)')
    .option('--reservation <id>', 'reuse this reservation (same host selection)')
    .option('--tz <zone>', 'display time zone and zone of local times (default: the system zone)')
    .addHelpText(
      'after',
      '\nTimes: ISO 8601 with offset, "2026-12-01 14:00" (read in --tz), 2026-12-01, today, tomorrow, now.\nRanges over 63 days are fetched in several requests with one reservation.\nExample: schedctl slots intro-call --days 14 --tz Europe/Berlin',
    )
    .action(
      action<SlotsOptions>(ctx, async ([event], opts) => {
        const r = await run(event ?? '', opts, ctx);
        const ui = await ctx.ui();
        if (ctx.globals.json) return ui.json(r.result);
        const { renderSlotsByDay } = await import('../ui/slots-view.js');
        const { formatInZone, relativeMinutes } = await import('../domain/time.js');
        const res = r.result;
        ui.print(
          [
            `Reservation ${res.reservationId}, expires ${formatInZone(res.expiresAt, r.zone)} (${relativeMinutes(res.expiresAt, ctx.clock.now())})`,
            `Free times for ${r.event} from ${formatInZone(r.from, r.zone)} to ${formatInZone(r.to, r.zone)} (${r.zone}), ${res.slots.length} in all:`,
            renderSlotsByDay(res.slots, r.zone),
          ].join('\n'),
        );
        const first = res.slots[0];
        if (first) ui.info(`\nNext: schedctl book ${r.event} --start ${first} --reservation ${res.reservationId} --email <email>`);
      }),
    );
}

export async function run(event: string, opts: SlotsOptions, ctx: Context): Promise<SlotsRun> {
  const { UsageError } = await import('../errors.js');
  const { resolveZone, parseTimeInput } = await import('../domain/time.js');
  const { requireUuid } = await import('../domain/inputs.js');
  if (!event.trim()) throw new UsageError('missing <event-or-link>: pass an event id or slug, or a scheduling link id');
  const zone = resolveZone(opts.tz, '--tz');
  const now = ctx.clock.now();
  if (opts.to !== undefined && opts.days !== undefined) {
    throw new UsageError('--to and --days cannot be used together: pass one of them');
  }
  const from = opts.from !== undefined ? parseTimeInput(opts.from, { zone, now, flag: '--from' }) : now;
  let to: Date;
  if (opts.to !== undefined) {
    to = parseTimeInput(opts.to, { zone, now, flag: '--to', endOfDay: true });
    if (to <= from) throw new UsageError(`invalid --to "${opts.to}": it must be after --from (${from.toISOString()})`);
  } else {
    const days = opts.days === undefined ? 7 : Number(opts.days);
    if (!/^\d+$/.test(opts.days ?? '7') || !Number.isInteger(days) || days < 1 || days > 365) {
      throw new UsageError(`invalid --days "${opts.days}": expected a whole number of days from 1 to 365`);
    }
    const { DateTime } = await import('luxon');
    // Calendar days in the zone (a DST day is 23 or 25 hours long).
    to = DateTime.fromJSDate(from, { zone }).plus({ days }).toJSDate();
  }
  const reservationId = opts.reservation !== undefined ? requireUuid(opts.reservation, '--reservation', 'reservation') : undefined;
  const api = await ctx.api();
  const { fetchSlots } = await import('../domain/slots.js');
  const before = api.http.sent;
  try {
    const result = await fetchSlots(api, event, { from, to, reservationId });
    return { event, result, zone, from, to, requests: api.http.sent - before };
  } catch (error) {
    throw await slotsHint(error, event, reservationId);
  }
}

async function slotsHint(error: unknown, event: string, reservationId: string | undefined): Promise<unknown> {
  const { ApiError } = await import('../errors.js');
  if (!(error instanceof ApiError)) return error;
  const fresh = `fetch slots again without --reservation: schedctl slots ${event}`;
  const hints: Record<string, string> = {
    RESERVATION_EXPIRED: `the reservation's hold lapsed; ${fresh}`,
    RESERVATION_USED: `the reservation was already used by a booking; ${fresh}`,
    RESERVATION_MISMATCH: `reservation ${reservationId ?? ''} belongs to another event or link; pass that one, or ${fresh}`,
    NOT_FOUND: reservationId
      ? `check "${event}" (schedctl events ls) and the --reservation id`
      : `no event or scheduling link "${event}": list them with schedctl events ls`,
    MISSING_SCOPE: 'listing slots needs a key with scheduling:read',
    INVALID_API_KEY: 'the key is missing, malformed or revoked: add a current one with `schedctl profile add <name> --key-stdin`',
  };
  return error.withHint(hints[error.code]);
}
