/**
 * `schedctl route --from leads.csv`: one routed booking per row, at the rate budget's pace.
 * Everything is validated before anything is sent (one triggers request for the whole file);
 * each row then runs the same flow as `schedctl route ... --yes` (domain/route/flow.ts), so
 * the lost-response, remembered-outcome, SLOT_TAKEN, NO_HOST_AVAILABLE, RESERVATION_EXPIRED and
 * CONFLICT rules are route's own. The run log (bulk/run-log.ts, keyed by the input's content
 * hash) makes a re-run continue where it stopped; a row is never booked twice because the
 * journal, the remembered outcomes and the meetings record say what each lead already has.
 */
import type { Trigger } from '../../api/schemas.js';
import { formatPlan, planSummary, ROUTE_COST } from '../../bulk/plan.js';
import type { RowResult, RowStatus } from '../../bulk/results.js';
import { type RouteRow, unknownRouteColumns, validateRouteRow } from '../../bulk/route-rows.js';
import { openRunLog, readRunLog, resumeActionFor, runLogPath } from '../../bulk/run-log.js';
import { scopeOf } from '../../config/target.js';
import type { Context } from '../../context.js';
import { runRoute } from '../../domain/route/flow.js';
import { loadTimeExpressions } from '../../domain/human-time.js';
import { resolveZone } from '../../domain/time.js';
import { CancelledError, CliError, UsageError } from '../../errors.js';
import { RATE_PER_MINUTE } from '../../limits.js';
import { guardLead } from '../lead-guard.js';
import { flagAsker } from '../route/flag-asker.js';
import { batchReporter } from './report.js';
import { openSource } from './source.js';

export interface RouteBatchOptions {
  from: string;
  trigger?: string | undefined;
  tz?: string | undefined;
  days: number;
  dryRun?: boolean | undefined;
  skipInvalid?: boolean | undefined;
  out?: string | undefined;
  rebook?: boolean | undefined;
}

const MAX_LISTED = 20;

export async function routeBatch(ctx: Context, o: RouteBatchOptions): Promise<void> {
  const zone = resolveZone(o.tz, '--tz');
  const source = await openSource(ctx, o.from, '--from');
  await loadTimeExpressions();
  const [api, ui, target] = await Promise.all([ctx.api(), ctx.ui(), ctx.target()]);
  const { triggers } = await api.listTriggers();
  const rate = target.rate ?? RATE_PER_MINUTE;

  // 1. Validate every row; nothing is sent yet.
  const now = ctx.clock.now();
  const invalid: Array<{ line: number; errors: string[] }> = [];
  let rows = 0;
  let header: string[] | undefined;
  for await (const r of source.rows()) {
    rows += 1;
    if (r.error !== undefined) {
      invalid.push({ line: r.line, errors: [r.error] });
      continue;
    }
    if (!header) {
      header = Object.keys(r.record);
      const unknown = unknownRouteColumns(header, triggers);
      // Each entry reads `<column>: unknown column; did you mean …`: one detail line each, the names in the message.
      if (unknown.length) {
        const names = unknown.map((u) => `"${u.slice(0, u.lastIndexOf(': unknown column'))}"`).join(', ');
        throw new UsageError(`${source.label}: unknown column${unknown.length > 1 ? 's' : ''} ${names}: nothing was sent`, {
          details: unknown,
          hint: 'columns: email, trigger, one per form field (by name), slot, first_name, last_name, phone, guests, tz',
        });
      }
    }
    const v = validateRouteRow(r.record, { triggers, defaultTrigger: o.trigger, zone, now });
    if (!v.ok) invalid.push({ line: r.line, errors: v.errors });
  }
  const plan = planSummary({ rows, invalid: invalid.length, requestsPerRow: ROUTE_COST.perRow, requestsPerFile: ROUTE_COST.perFile, ratePerMinute: rate });
  if (o.dryRun) {
    if (ctx.globals.json) return ui.json({ plan, ratePerMinute: rate, invalid });
    ui.print(`${source.label}: ${formatPlan(plan, rate)}`);
    for (const i of invalid.slice(0, MAX_LISTED)) ui.print(`  line ${i.line}: ${i.errors.join('; ')}`);
    return;
  }
  if (invalid.length && !o.skipInvalid) {
    throw new UsageError(`${invalid.length} of ${rows} rows of ${source.label} are invalid: nothing was sent`, {
      details: invalid.slice(0, MAX_LISTED).map((i) => `line ${i.line}: ${i.errors.join('; ')}`),
      hint: 'fix them, or pass --skip-invalid to send the valid rows only (--dry-run lists every row)',
    });
  }

  // 2. Send, row by row, resuming from the run log.
  const scope = scopeOf(target);
  const state = await ctx.state();
  const logPath = runLogPath(ctx.configDir(), source.hash, `route:${scope}`);
  const earlier = readRunLog(logPath, { onWarning: (m) => ui.warn(m) });
  const log = await openRunLog(logPath, { now: () => ctx.clock.now() });
  const report = batchReporter(ctx, ui, { total: rows, requestsPerRow: ROUTE_COST.perRow, ratePerMinute: rate, out: o.out });
  if (!ctx.globals.json) ui.info(`Routing ${plan.valid} leads from ${source.label} on ${target.profileName ? `profile "${target.profileName}"` : 'SCHEDCTL_API_KEY'} at ${target.baseUrl}: ${formatPlan(plan, rate)}`);
  // Ctrl-C: the row in flight finishes and is recorded, then the run stops (exit 130).
  let stopping = false;
  const onSigint = () => {
    stopping = true;
  };
  process.on('SIGINT', onSigint);
  const cachedApi = { ...api, listTriggers: async () => ({ triggers }) };
  try {
    for await (const r of source.rows()) {
      if (stopping) throw new CancelledError(`stopped at line ${r.line}: run the same command again to continue`);
      if (r.error !== undefined) {
        report.row({ row: r.line, key: '', status: 'invalid', message: r.error });
        continue;
      }
      const v = validateRouteRow(r.record, { triggers, defaultTrigger: o.trigger, zone, now: ctx.clock.now() });
      const key = r.record.email ?? '';
      if (!v.ok) {
        report.row({ row: r.line, key, status: 'invalid', message: v.errors.join('; ') });
        continue;
      }
      const prior = earlier.get(r.line);
      if (resumeActionFor(prior) === 'skip' && prior && prior.status !== 'failed') {
        report.row({ row: r.line, key, status: 'skipped', ...(prior.meetingId ? { meetingId: prior.meetingId } : {}), code: prior.status });
        continue;
      }
      log.append({ row: r.line, status: 'started' });
      const result = await routeRow(ctx, { api: cachedApi, state, scope, zone, days: o.days, rebook: Boolean(o.rebook) }, v.row, r.line);
      log.append({ row: r.line, status: result.status, ...(result.meetingId ? { meetingId: result.meetingId } : {}), ...(result.code ? { code: result.code } : {}) });
      report.row(result);
    }
  } finally {
    process.off('SIGINT', onSigint);
    await log.close();
  }
  await report.finish();
}

interface RowDeps {
  api: Parameters<typeof runRoute>[0]['api'];
  state: Awaited<ReturnType<Context['state']>>;
  scope: string;
  zone: string;
  days: number;
  rebook: boolean;
}

async function routeRow(ctx: Context, d: RowDeps, row: RouteRow, line: number): Promise<RowResult> {
  const key = row.email;
  try {
    const result = await runRoute({
      api: d.api,
      asker: flagAsker(
        {
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
        undefined,
      ),
      notify: () => undefined,
      journal: d.state.journal,
      outcomes: d.state.outcomes,
      meetings: d.state.meetings,
      guard: ({ trigger, email, answersKey }: { trigger: Trigger; email: string; answersKey: string }) =>
        guardLead(ctx, d.state.meetings, { scope: d.scope, email, triggerId: trigger.id, answersKey, start: row.slot, zone: d.zone, rebook: d.rebook, again: `line ${line} with`, noPrompt: true }),
      scope: d.scope,
      now: () => ctx.clock.now(),
      days: d.days,
      leadTimezone: row.tz,
    });
    const status: RowStatus = result.status === 'other' ? 'failed' : result.status;
    return { row: line, key, status, ...(result.meeting ? { meetingId: result.meeting.id } : {}), ...(result.alreadyBookedCode ? { code: result.alreadyBookedCode } : {}) };
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    if (!(error instanceof CliError)) throw error;
    return { row: line, key, status: 'failed', code: error.code, message: error.message };
  }
}
