/**
 * `schedctl route --file leads.csv`: one routed booking per row, at the rate budget's pace.
 * Everything is validated before anything is sent (one triggers request for the whole file);
 * each row then runs `schedctl route ... --yes` (src/run/route.ts, domain/route/flow.ts), so
 * the lost-response, remembered-outcome, SLOT_TAKEN, NO_HOST_AVAILABLE, RESERVATION_EXPIRED and
 * CONFLICT rules are route's own. The run log (bulk/run-log.ts, keyed by the input's content
 * hash) makes a re-run continue where it stopped; a row is never booked twice because the
 * journal, the remembered outcomes and the meetings record say what each lead already has.
 */
import type { Trigger } from '../../api/schemas.js';
import { ROUTE_COST } from '../../bulk/plan.js';
import type { RowResult, RowStatus } from '../../bulk/results.js';
import { type RouteRow, unknownRouteColumns, validateRouteRow } from '../../bulk/route-rows.js';
import { workspaceOf } from '../workspace.js';
import type { Context } from '../../context.js';
import { loadTimeExpressions } from '../../domain/human-time.js';
import { resolveZone } from '../../domain/time.js';
import { CancelledError, CliError, UsageError } from '../../errors.js';
import { RATE_PER_MINUTE } from '../../limits.js';
import { type BatchOptions, runBatch } from './batch.js';
import { openSource } from './source.js';
import type { RouteNotice } from '../../domain/route/types.js';
import type { ParsedRouteOptions } from '../route/options.js';
import type { RouteRun } from '../route/types.js';

/**
 * One routed booking, as a bulk row asks for it: run/route.ts's routeParsed, passed in by
 * route.ts (a batch is `route --file`). Importing it from there would make the two files a cycle.
 */
export type RouteOne = (
  ctx: Context,
  parsed: ParsedRouteOptions,
  o: {
    rebook: boolean;
    notify: (n: RouteNotice) => void;
    again: string;
    noPrompt: true;
    triggers: Trigger[];
    leadWaitMs?: number | undefined;
  },
) => Promise<Pick<RouteRun, 'result'>>;

export interface RouteBatchOptions extends BatchOptions {
  from: string;
  trigger?: string | undefined;
  tz?: string | undefined;
  days: number;
  rebook?: boolean | undefined;
}

export async function routeBatch(ctx: Context, routeOne: RouteOne, o: RouteBatchOptions): Promise<void> {
  const zone = resolveZone(o.tz, '--tz');
  const source = await openSource(ctx, o.from, '--file');
  await loadTimeExpressions();
  const [api, ui, target] = await Promise.all([ctx.api(), ctx.ui(), ctx.target()]);
  const { triggers } = await api.listTriggers();
  let headerChecked = false;
  await runBatch<RouteRow>(
    ctx,
    ui,
    source,
    {
      command: 'route',
      scope: await workspaceOf(ctx),
      cost: ROUTE_COST,
      ratePerMinute: target.rate ?? RATE_PER_MINUTE,
      keyOf: (record) => record.email ?? '',
      starting: (valid) =>
        `Routing ${valid} leads on ${target.profileName ? `profile "${target.profileName}"` : 'SCHEDCTL_API_KEY'} at ${target.baseUrl}`,
      async check(record) {
        if (!headerChecked) {
          headerChecked = true;
          checkColumns(Object.keys(record), triggers, source.label);
        }
        return validateRouteRow(record, { triggers, defaultTrigger: o.trigger, zone, now: ctx.clock.now() });
      },
      run: (row, line, key, last) =>
        routeRow(ctx, { routeOne, triggers, zone, days: o.days, rebook: Boolean(o.rebook) }, row, line, key, last),
    },
    o,
  );
}

/** Each entry reads `<column>: unknown column; did you mean …`: one detail line each, the names in the message. */
function checkColumns(header: string[], triggers: Trigger[], label: string): void {
  const unknown = unknownRouteColumns(header, triggers);
  if (unknown.length === 0) return;
  const names = unknown.map((u) => `"${u.slice(0, u.lastIndexOf(': unknown column'))}"`).join(', ');
  throw new UsageError(`${label}: unknown column${unknown.length > 1 ? 's' : ''} ${names}: nothing was sent`, {
    details: unknown,
    hint: 'columns: email, trigger, one per form field (by name), slot, first_name, last_name, phone, guests, tz',
  });
}

/** One row's route; undefined when its lead is another run's right now and this is not its `last` try. */
async function routeRow(
  ctx: Context,
  d: { routeOne: RouteOne; triggers: Trigger[]; zone: string; days: number; rebook: boolean },
  row: RouteRow,
  line: number,
  key: string,
  last: boolean,
): Promise<RowResult | undefined> {
  try {
    const { result } = await d.routeOne(
      ctx,
      {
        flags: {
          trigger: row.trigger.id,
          email: row.email,
          fields: row.responses,
          slot: row.slot,
          firstName: row.firstName,
          lastName: row.lastName,
          phone: row.phone,
          guests: row.guests,
          yes: true,
          refire: false,
        },
        zone: row.tz ?? d.zone,
        leadZone: row.tz,
        days: d.days,
      },
      {
        rebook: d.rebook,
        notify: () => undefined,
        again: `line ${line} with`,
        noPrompt: true,
        triggers: d.triggers,
        // Another run (a machine of the team with the same leads) is booking it: the rows after
        // it first, then this one, waiting as a route does (it then finds that run's meeting).
        ...(last ? {} : { leadWaitMs: 0 }),
      },
    );
    const status: RowStatus = result.status === 'other' ? 'failed' : result.status;
    return {
      row: line,
      key,
      status,
      ...(result.meeting ? { meetingId: result.meeting.id, meeting: result.meeting } : {}),
      ...(result.alreadyBookedCode ? { code: result.alreadyBookedCode } : {}),
    };
  } catch (error) {
    if (error instanceof CancelledError || !(error instanceof CliError)) throw error;
    if (!last && error.code === 'LEAD_BUSY') return undefined;
    return { row: line, key, status: 'failed', code: error.code, message: error.message };
  }
}
