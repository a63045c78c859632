/**
 * What `route --file` and `reschedule --file` share: validate every row before anything is
 * sent (and print the plan for --dry-run, or refuse on invalid rows), then work through the
 * rows one at a time with the run log (resume: finished rows are skipped), Ctrl-C finishing the
 * row in flight, and the reporter's output. Each command says how to check a row and how to do it.
 */
import { budgetId } from '../../api/rate-budget.js';
import { formatPlan, planSummary, type RequestCost } from '../../bulk/plan.js';
import type { RowResult } from '../../bulk/results.js';
import { resumeActionFor, runLogKey } from '../../bulk/run-log.js';
import type { Context } from '../../context.js';
import { pgBudgetInUse, type PostgresBackend } from '../../state/postgres/backend.js';
import { DEFAULT_LOCK_TIMING, rateCache, sqliteBudgetInUse } from '../../state/index.js';
import { CancelledError, UsageError, type ErrorDocument } from '../../errors.js';
import { jsonText } from '../../ui/sanitize.js';
import type { Ui } from '../../ui/ui.js';
import { batchReporter } from './report.js';
import type { BatchSource } from './source.js';

const MAX_LISTED = 20;

/** Invalid rows (exit 2); from --dry-run --json, the document carries the plan too. */
class InvalidRowsError extends UsageError {
  readonly dryRun: Record<string, unknown> | undefined;
  constructor(message: string, opts: { details: string[]; hint: string; dryRun: Record<string, unknown> | undefined }) {
    super(message, { details: opts.details, hint: opts.hint });
    this.dryRun = opts.dryRun;
  }
  override toDocument(): ErrorDocument & Record<string, unknown> {
    return { ...super.toDocument(), ...(this.dryRun ?? {}) };
  }
}

/** The batch flags given without --file: they make no sense alone. */
export const BATCH_ONLY_FLAGS = '--dry-run, --skip-invalid and --out go with --file <file> (or its older name --from)';

/** `--file`, or its older name `--from` (both at once: a usage error). */
export function batchFile(opts: { file?: string | undefined; from?: string | undefined }): string | undefined {
  if (opts.file !== undefined && opts.from !== undefined)
    throw new UsageError('pass the rows file once: --file (or its older name --from), not both');
  return opts.file ?? opts.from;
}

export interface BatchOptions {
  dryRun?: boolean | undefined;
  skipInvalid?: boolean | undefined;
  out?: string | undefined;
}

export interface BatchSpec<Row> {
  /** `route` or `reschedule`: with the scope, it keys the run log. */
  command: string;
  scope: string;
  cost: RequestCost;
  ratePerMinute: number;
  /** Checks one row: its typed form, or what is wrong with it (column: reason). */
  check(record: Record<string, string>): Promise<{ ok: true; row: Row } | { ok: false; errors: string[] }>;
  /**
   * Does one valid row (its requests); a failure of the row is a result, not a throw. Undefined:
   * not now (what it needs is another run's at the moment): tried again, `last`, after the rest.
   */
  run(row: Row, line: number, key: string, last: boolean): Promise<RowResult | undefined>;
  /** What identifies a row to a person (the email, the meeting). */
  keyOf(record: Record<string, string>): string;
  /** "Routing 40 leads": said before the first row. */
  starting(valid: number): string;
}

export async function runBatch<Row>(
  ctx: Context,
  ui: Ui,
  source: BatchSource,
  spec: BatchSpec<Row>,
  o: BatchOptions,
): Promise<void> {
  // The run log and the records must be writable: said before any row is sent (STATE_WRITE).
  if (!o.dryRun) await (await ctx.state()).assertWritable();
  // 1. Validate every row; nothing is sent yet.
  const invalid: Array<{ line: number; errors: string[] }> = [];
  let rows = 0;
  for await (const r of source.rows()) {
    rows += 1;
    const v = r.error !== undefined ? { ok: false as const, errors: [r.error] } : await spec.check(r.record);
    if (!v.ok) invalid.push({ line: r.line, errors: v.errors });
  }
  const rate = spec.ratePerMinute;
  // What other runs on this key left of the shared budget: a spent one adds to the least time.
  const target = rate > 0 ? await ctx.target().catch(() => undefined) : undefined;
  const inUseMsAgo = target ? await budgetInUseFor(ctx, target) : [];
  const plan = planSummary({
    rows,
    invalid: invalid.length,
    requestsPerRow: spec.cost.perRow,
    requestsPerFile: spec.cost.perFile,
    ratePerMinute: rate,
    inUseMsAgo,
  });
  // A dry run ends as the real run would start: invalid rows without --skip-invalid are exit 2.
  const refusal =
    invalid.length && !o.skipInvalid
      ? new InvalidRowsError(`${invalid.length} of ${rows} rows of ${source.label} are invalid: nothing was sent`, {
          details: invalid.slice(0, MAX_LISTED).map((i) => `line ${i.line}: ${i.errors.join('; ')}`),
          hint: 'fix them, or pass --skip-invalid to send the valid rows only (--dry-run lists every row)',
          dryRun: o.dryRun ? { plan, ratePerMinute: rate, invalid } : undefined,
        })
      : undefined;
  if (o.dryRun) {
    if (refusal && ctx.globals.json) throw refusal; // one document: the error, with the plan in it
    // One line, like every line of a --file run's JSON Lines (docs/json-output.md).
    if (ctx.globals.json) return void ctx.io.stdout.write(`${jsonText({ plan, ratePerMinute: rate, invalid }, 0)}\n`);
    ui.print(`${source.label}: ${formatPlan(plan, rate)}`);
    for (const i of invalid.slice(0, MAX_LISTED)) ui.print(`  line ${i.line}: ${i.errors.join('; ')}`);
    if (refusal) throw refusal;
    return;
  }
  if (refusal) throw refusal;

  // 2. Send, row by row, resuming from the run log: this machine's files, or the team state's
  // (where a run stopped on another machine resumes). Read once this run holds it.
  const store = await (await (await ctx.state()).backend()).runLogs();
  const id = { key: runLogKey(source.hash, `${spec.command}:${spec.scope}`), workspace: spec.scope };
  const report = batchReporter(ctx, ui, {
    total: rows,
    requestsPerRow: spec.cost.perRow,
    ratePerMinute: rate,
    out: o.out,
  });
  const log = await store.open(id, { now: () => ctx.clock.now() });
  let earlier;
  try {
    earlier = await store.read(id, { onWarning: (m) => ui.warn(m) });
  } catch (error) {
    await log.close();
    throw error;
  }
  if (!ctx.globals.json) ui.info(`${spec.starting(plan.valid)} from ${source.label}: ${formatPlan(plan, rate)}`);
  // Ctrl-C: the row in flight finishes and is recorded, then the run stops (exit 130).
  /** A row, its records around it; false: put off (spec.run said not now). */
  const runRow = async (row: Row, line: number, key: string, last: boolean): Promise<boolean> => {
    await log.append({ row: line, status: 'started' });
    const result = await spec.run(row, line, key, last);
    if (!result) return false;
    await log.append({
      row: line,
      status: result.status,
      ...(result.meetingId ? { meetingId: result.meetingId } : {}),
      ...(result.code ? { code: result.code } : {}),
    });
    report.row(result);
    return true;
  };
  /** Rows put off: done after the rest, in their order. */
  const later: Array<{ row: Row; line: number; key: string }> = [];
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
      const key = spec.keyOf(r.record);
      const v = await spec.check(r.record);
      if (!v.ok) {
        report.row({ row: r.line, key, status: 'invalid', message: v.errors.join('; ') });
        continue;
      }
      // A finished row stands (a failed one is tried again: that is what re-running is for).
      const prior = earlier.get(r.line);
      if (resumeActionFor(prior) === 'skip' && prior && prior.status !== 'failed') {
        report.row({
          row: r.line,
          key,
          status: 'skipped',
          ...(prior.meetingId ? { meetingId: prior.meetingId } : {}),
          code: prior.status,
        });
        continue;
      }
      if (!(await runRow(v.row, r.line, key, false))) later.push({ row: v.row, line: r.line, key });
    }
    for (const l of later) {
      if (stopping) throw new CancelledError(`stopped at line ${l.line}: run the same command again to continue`);
      await runRow(l.row, l.line, l.key, true);
    }
  } finally {
    process.off('SIGINT', onSigint);
    await log.close();
  }
  await report.finish();
}

/**
 * What other runs left of the key's budget: with a team state, every machine's draws (the shared
 * budget); else this machine's. An estimate: a budget that cannot be read counts as unused.
 */
async function budgetInUseFor(ctx: Context, target: { baseUrl: string; apiKey: string }): Promise<number[]> {
  const backend = await (await ctx.state()).backend();
  if (backend.kind !== 'postgres')
    return sqliteBudgetInUse(
      rateCache((await ctx.state()).dir, DEFAULT_LOCK_TIMING.waitMs),
      budgetId(target.baseUrl, target.apiKey),
    ).catch(() => []);
  return pgBudgetInUse(backend as PostgresBackend, budgetId(target.baseUrl, target.apiKey)).catch(() => []);
}
