/**
 * What a `--file` run prints as it goes: a JSON line per finished row (--json) or, on a
 * terminal, one progress line (rows done of total, counts by status, time left at the rate
 * budget); `--out` writes the same rows as CSV. Memory stays flat: only counts are kept.
 */
import { displayZoneOf, humanTimes } from '../../ui/human-times.js';
import { createWriteStream, openSync, type WriteStream } from 'node:fs';
import { formatDuration, minDurationSeconds } from '../../bulk/plan.js';
import {
  createCsvResultWriter,
  type CsvResultWriter,
  type RowResult,
  summarize,
  toJsonLine,
} from '../../bulk/results.js';
import type { Context } from '../../context.js';
import { RowsFailedError, UsageError } from '../../errors.js';
import type { Ui } from '../../ui/ui.js';

export interface BatchReporter {
  row(result: RowResult): void;
  /** Prints the summary; throws RowsFailedError (exit 8) when a row failed. */
  finish(): Promise<void>;
}

export function batchReporter(
  ctx: Context,
  ui: Ui,
  o: { total: number; requestsPerRow: number; ratePerMinute: number; out?: string | undefined },
): BatchReporter {
  const counts = new Map<string, number>();
  const failed: number[] = [];
  let done = 0;
  let out: { file: WriteStream; csv: CsvResultWriter } | undefined;
  let outError: Error | undefined;
  if (o.out) {
    // Opened here, synchronously: a path that cannot be written is a usage error before any
    // row is sent, not an unhandled stream error (a crash) once the run has begun.
    let fd: number;
    try {
      fd = openSync(o.out, 'w', 0o644);
    } catch (error) {
      throw new UsageError(
        `invalid --out "${o.out}": cannot write it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); nothing was sent`,
      );
    }
    const file = createWriteStream(o.out, { fd });
    // A later write error (disk full) must not crash the run in the middle of a row: it is reported at the end.
    file.on('error', (error) => {
      outError ??= error;
    });
    out = { file, csv: createCsvResultWriter(file) };
  }
  const live = ctx.io.isStderrTTY && !ctx.globals.json && !ctx.globals.quiet;
  const progress = () => {
    const left = (o.total - done) * o.requestsPerRow;
    const byStatus = [...counts].map(([s, n]) => `${n} ${s}`).join(', ');
    return `${done}/${o.total} rows${byStatus ? ` (${byStatus})` : ''}${left > 0 && o.ratePerMinute > 0 ? `, at least ${formatDuration(minDurationSeconds(left, o.ratePerMinute))} left at ${o.ratePerMinute} requests/min` : ''}`;
  };
  const summary = () =>
    summarize(
      [...counts].flatMap(([status, n]) => Array.from({ length: n }, () => ({ row: 0, key: '', status }) as RowResult)),
    );
  return {
    row(result) {
      done += 1;
      counts.set(result.status, (counts.get(result.status) ?? 0) + 1);
      if (result.status === 'failed' || result.status === 'invalid') failed.push(result.row);
      out?.csv.write(result);
      if (ctx.globals.json) ctx.io.stdout.write(toJsonLine(result));
      else if (live) ctx.io.stderr.write(`\r\x1b[2K${progress()}`);
      else if (result.status === 'failed')
        // The API's message may name instants: shown in the run's zone (--tz, else the system's).
        ui.warn(
          humanTimes(
            `line ${result.row} (${result.key}): ${result.code ?? 'failed'}: ${result.message ?? ''}`,
            displayZoneOf(ctx.invocation?.argv ?? []),
          ),
        );
    },
    async finish() {
      if (live) ctx.io.stderr.write('\r\x1b[2K');
      const file = out?.file;
      if (file && !outError) await new Promise<void>((resolve) => file.end(resolve));
      if (outError)
        ui.warn(`--out ${o.out}: writing the results failed (${outError.message}); --json or the run log has them`);
      const s = summary();
      const byStatus = Object.fromEntries(counts);
      if (ctx.globals.json)
        ctx.io.stdout.write(`${JSON.stringify({ summary: { rows: done, byStatus, failedRows: failed } })}\n`);
      else
        ui.print(
          `${done} rows: ${[...counts].map(([st, n]) => `${n} ${st}`).join(', ') || 'nothing to do'}${o.out ? ` (results in ${o.out})` : ''}`,
        );
      if (s.failedRows.length > 0 || failed.length > 0) {
        throw new RowsFailedError(
          `${failed.length} of ${done} rows failed (line${failed.length > 1 ? 's' : ''} ${failed.slice(0, 20).join(', ')}${failed.length > 20 ? ', …' : ''})`,
          {
            hint: 'fix what the rows name and run the same command again: finished rows are skipped, lost answers are resolved, nothing books twice',
          },
        );
      }
    },
  };
}
