/**
 * `schedctl reschedule --from moves.csv`: one move per row (one request each), at the rate
 * budget's pace. Rows are validated first, emails resolved through the local record of
 * meetings (no request); a re-run skips the rows already moved and sends the others again
 * (moving a meeting to the time it already has changes nothing).
 */
import type { Meeting } from '../../api/schemas.js';
import { formatPlan, planSummary, RESCHEDULE_COST } from '../../bulk/plan.js';
import type { RowResult } from '../../bulk/results.js';
import { type RescheduleRow, validateRescheduleRow } from '../../bulk/reschedule-rows.js';
import { openRunLog, readRunLog, resumeActionFor, runLogPath } from '../../bulk/run-log.js';
import { scopeOf } from '../../config/target.js';
import type { Context } from '../../context.js';
import { loadTimeExpressions } from '../../domain/human-time.js';
import { resolveZone } from '../../domain/time.js';
import { CancelledError, CliError, UsageError } from '../../errors.js';
import { RATE_PER_MINUTE } from '../../limits.js';
import type { State } from '../../state/index.js';
import { allMeetings, filterMeetings } from '../meetings/records.js';
import { batchReporter } from './report.js';
import { openSource } from './source.js';

export interface RescheduleBatchOptions {
  from: string;
  tz?: string | undefined;
  dryRun?: boolean | undefined;
  skipInvalid?: boolean | undefined;
  out?: string | undefined;
}

const MAX_LISTED = 20;

export async function rescheduleBatch(ctx: Context, o: RescheduleBatchOptions): Promise<void> {
  const zone = resolveZone(o.tz, '--tz');
  const source = await openSource(ctx, o.from, '--from');
  await loadTimeExpressions();
  const [ui, target, state] = await Promise.all([ctx.ui(), ctx.target(), ctx.state()]);
  const scope = scopeOf(target);
  const rate = target.rate ?? RATE_PER_MINUTE;

  const invalid: Array<{ line: number; errors: string[] }> = [];
  let rows = 0;
  for await (const r of source.rows()) {
    rows += 1;
    if (r.error !== undefined) {
      invalid.push({ line: r.line, errors: [r.error] });
      continue;
    }
    const v = validateRescheduleRow(r.record, { zone, now: ctx.clock.now() });
    if (!v.ok) invalid.push({ line: r.line, errors: v.errors });
    else if (v.row.email !== undefined) {
      const found = await meetingOf(state, scope, v.row, ctx.clock.now());
      if (typeof found === 'string') invalid.push({ line: r.line, errors: [found] });
    }
  }
  const plan = planSummary({ rows, invalid: invalid.length, requestsPerRow: RESCHEDULE_COST.perRow, requestsPerFile: RESCHEDULE_COST.perFile, ratePerMinute: rate });
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

  const api = await ctx.api();
  const logPath = runLogPath(ctx.configDir(), source.hash, `reschedule:${scope}`);
  const earlier = readRunLog(logPath, { onWarning: (m) => ui.warn(m) });
  const log = await openRunLog(logPath, { now: () => ctx.clock.now() });
  const report = batchReporter(ctx, ui, { total: rows, requestsPerRow: RESCHEDULE_COST.perRow, ratePerMinute: rate, out: o.out });
  if (!ctx.globals.json) ui.info(`Moving ${plan.valid} meetings from ${source.label} on ${target.profileName ? `profile "${target.profileName}"` : 'SCHEDCTL_API_KEY'} at ${target.baseUrl}: ${formatPlan(plan, rate)}`);
  let stopping = false;
  const onSigint = () => {
    stopping = true;
  };
  process.on('SIGINT', onSigint);
  try {
    for await (const r of source.rows()) {
      if (stopping) throw new CancelledError(`stopped at line ${r.line}: run the same command again to continue`);
      if (r.error !== undefined) {
        report.row({ row: r.line, key: '', status: 'invalid', message: r.error });
        continue;
      }
      const v = validateRescheduleRow(r.record, { zone, now: ctx.clock.now() });
      const key = r.record.meeting || r.record.email || '';
      if (!v.ok) {
        report.row({ row: r.line, key, status: 'invalid', message: v.errors.join('; ') });
        continue;
      }
      const prior = earlier.get(r.line);
      if (resumeActionFor(prior) === 'skip' && prior && prior.status !== 'failed') {
        report.row({ row: r.line, key, status: 'skipped', ...(prior.meetingId ? { meetingId: prior.meetingId } : {}), code: prior.status });
        continue;
      }
      const id = await meetingOf(state, scope, v.row, ctx.clock.now());
      if (typeof id === 'string' && v.row.meeting === undefined) {
        report.row({ row: r.line, key, status: 'invalid', message: id });
        continue;
      }
      const meetingId = v.row.meeting ?? (id as { id: string }).id;
      log.append({ row: r.line, status: 'sent', meetingId });
      let result: RowResult;
      try {
        const moved: Meeting = await api.reschedule(meetingId, v.row.start.toISOString());
        await state.meetings.recordMove(scope, meetingId, moved, ctx.clock.now()).catch(() => undefined);
        result = { row: r.line, key, status: 'moved', meetingId };
      } catch (error) {
        if (!(error instanceof CliError)) throw error;
        result = { row: r.line, key, status: 'failed', meetingId, code: error.code, message: error.message };
      }
      log.append({ row: r.line, status: result.status, meetingId, ...(result.code ? { code: result.code } : {}) });
      report.row(result);
    }
  } finally {
    process.off('SIGINT', onSigint);
    await log.close();
  }
  await report.finish();
}

/** The meeting a row names by email: exactly one upcoming meeting of that lead on record, else why not. */
async function meetingOf(state: State, scope: string, row: RescheduleRow, now: Date): Promise<{ id: string } | string> {
  if (row.meeting !== undefined) return { id: row.meeting };
  const found = filterMeetings(await allMeetings(state, scope), { email: row.email, upcomingFrom: now }).filter((m) => m.id !== null && m.status !== 'canceled');
  const only = found.length === 1 ? found[0]?.id : undefined;
  if (only) return { id: only };
  return found.length === 0
    ? `email: no upcoming meeting of ${row.email} in the local record (give its meeting id instead)`
    : `email: ${found.length} upcoming meetings of ${row.email} are on record (give the meeting id instead)`;
}
