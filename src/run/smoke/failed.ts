/**
 * A smoke run with a failed check exits 1 through the one error path (report.ts), which
 * prints a one-line summary on stderr. With --json, report.ts prints `toDocument()`, so
 * the document is the whole report (ok, requests, checks) plus the `error` member every
 * failure carries: still exactly one JSON document on stdout. (A run module's, not the
 * domain's: its hint speaks of the CLI's table and flags.)
 */
import { CliError, EXIT, type ErrorDocument } from '../../errors.js';
import type { SmokeReport } from '../../domain/smoke/types.js';

export class SmokeFailedError extends CliError {
  readonly report: SmokeReport;
  constructor(report: SmokeReport) {
    const failed = report.checks.filter((c) => c.status === 'fail').map((c) => c.name);
    // An API that cannot be reached is not a failed key: say what happened, not "auth failed".
    super(
      'SMOKE_FAILED',
      report.unreachable
        ? `API unreachable: no smoke check could run (${report.tries} ${report.tries === 1 ? 'try' : 'tries'}, ${report.requests} sent)`
        : `${failed.length} smoke check${failed.length === 1 ? '' : 's'} failed: ${failed.join(', ')}`,
      EXIT.error,
      {
        hint: report.unreachable
          ? 'check --base-url / the profile and that the API is up (for the local sandbox: `schedctl sandbox`); the key was not checked'
          : 'see the DETAIL column (or "checks" with --json) for each failure',
      },
    );
    this.report = report;
  }
  override toDocument(): ErrorDocument {
    const base = super.toDocument();
    const doc: SmokeReport & ErrorDocument = { ...this.report, error: base.error };
    return doc;
  }
}
