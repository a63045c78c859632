import { DateTime } from 'luxon';
import type { Api } from '../api/endpoints.js';
import type { SlotsResult } from '../api/schemas.js';
import type { Context } from '../context.js';
import { requireUuid } from '../domain/inputs.js';
import { fetchSlots } from '../domain/slots.js';
import { loadTimeExpressionsFor, parseLoadedTimeExpression } from '../domain/human-time.js';
import { formatInZone, relativeMinutes, resolveZone, serverNow } from '../domain/time.js';
import { ApiError, UsageError } from '../errors.js';
import { hintFor } from '../hints.js';
import { DEFAULT_DAYS, MAX_SLOTS_DAYS } from '../limits.js';
import { sanitizeText } from '../ui/sanitize.js';
import { renderSlotsByDay } from '../ui/slots-view.js';
import { renderWeekGrid, weekGrid } from '../ui/slots-grid.js';
import type { Ui } from '../ui/ui.js';

export interface SlotsOptions {
  from?: string;
  to?: string;
  days?: string;
  reservation?: string;
  tz?: string;
  leadTz?: string;
}

export interface SlotsRequest {
  event: string;
  zone: string;
  from: Date;
  to: Date;
  reservationId: string | undefined;
}

export async function run(ctx: Context, [event = '']: string[], opts: SlotsOptions): Promise<void> {
  await loadTimeExpressionsFor([opts.from, opts.to]);
  const request = parseSlotsOptions(event, opts, ctx.clock.now());
  const leadZone = opts.leadTz !== undefined ? resolveZone(opts.leadTz, '--lead-tz') : undefined;
  const api = await ctx.api();
  const result = await findSlots(api, request);
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(result);
  const { zone, from, to } = request;
  // expiresAt is an instant on the server's clock: count down from the server's now, not ours.
  const now = serverNow(ctx.clock.now(), api.http.serverSkewMs());
  ui.print(
    [
      `Reservation ${sanitizeText(result.reservationId)}, expires ${formatInZone(result.expiresAt, zone)} (${relativeMinutes(result.expiresAt, now)})`,
      `Free times for ${event} from ${formatInZone(from, zone)} to ${formatInZone(to, zone)} (${zone}), ${result.slots.length} in all:`,
      (ctx.io.isStdoutTTY && grid(ui, result.slots, request, leadZone, ctx.io.stdoutColumns)) ||
        renderSlotsByDay(result.slots, zone, ctx.io.isStdoutTTY ? ctx.io.stdoutColumns : undefined),
    ].join('\n'),
  );
  const first = result.slots[0];
  if (first)
    ui.info(`\nNext: schedctl book ${event} --start ${first} --reservation ${result.reservationId} --email <email>`);
}

/**
 * On a terminal, the week grid (ui/slots-grid.ts), colored as the terminal allows (ui.out honours
 * NO_COLOR and --no-color); undefined (the list then) when it would be wider than the terminal
 * or there is no free time to show.
 */
function grid(
  ui: Pick<Ui, 'out'>,
  slots: string[],
  request: SlotsRequest,
  leadZone: string | undefined,
  columns: number | undefined,
): string | undefined {
  const weeks = weekGrid({ slots, zone: request.zone, leadZone, from: request.from, to: request.to });
  if (weeks.length === 0) return undefined;
  const c = ui.out;
  const lines = renderWeekGrid(weeks, request.zone, leadZone, columns ?? 80, {
    head: (t) => c.bold(t),
    free: (t) => c.green(t),
    busy: (t) => c.dim(t),
  });
  return lines?.join('\n');
}

/** The free times of [from, to): one request per 63 days, all with one reservation; an API refusal gets its hint. The --json document. */
export async function findSlots(api: Pick<Api, 'slots'>, request: SlotsRequest): Promise<SlotsResult> {
  const { event } = request;
  try {
    return await fetchSlots(api, event, request);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw error.withHint(hintFor(error.code, { operation: 'slots', event, reservationId: request.reservationId }));
  }
}

export function parseSlotsOptions(event: string, opts: SlotsOptions, now: Date): SlotsRequest {
  if (!event.trim()) throw new UsageError('missing <event-or-link>: pass an event id or slug, or a scheduling link id');
  const zone = resolveZone(opts.tz, '--tz');
  if (opts.to !== undefined && opts.days !== undefined)
    throw new UsageError('--to and --days cannot be used together: pass one of them');
  const from =
    opts.from !== undefined
      ? parseLoadedTimeExpression(opts.from, { zone, now, name: '--from', zoneInput: '--tz', rangeStart: true })
      : now;
  let to: Date;
  if (opts.to !== undefined) {
    to = parseLoadedTimeExpression(opts.to, { zone, now, name: '--to', zoneInput: '--tz', endOfDay: true });
    if (to <= from) throw new UsageError(`invalid --to "${opts.to}": it must be after --from (${from.toISOString()})`);
  } else {
    const raw = opts.days ?? String(DEFAULT_DAYS);
    const days = Number(raw);
    if (!/^\d+$/.test(raw) || days < 1 || days > MAX_SLOTS_DAYS) {
      throw new UsageError(
        `invalid --days "${opts.days}": expected a whole number of days from 1 to ${MAX_SLOTS_DAYS}`,
      );
    }
    // Calendar days in the zone (a DST day is 23 or 25 hours long).
    to = DateTime.fromJSDate(from, { zone }).plus({ days }).toJSDate();
  }
  const reservationId =
    opts.reservation !== undefined ? requireUuid(opts.reservation, '--reservation', 'reservation') : undefined;
  return { event, zone, from, to, reservationId };
}
