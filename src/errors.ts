/**
 * Typed errors and the one place that maps them to exit codes.
 * The exit code table is a public contract (docs/exit-codes-and-errors.md): keep it stable.
 */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  conflict: 5,
  rateLimited: 6,
  outcomeUnknown: 7,
  someRowsFailed: 8,
  stateUnavailable: 9,
  cancelled: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Exit code of each API error code; unknown codes fall back on the HTTP status. */
const EXIT_BY_API_CODE: Record<string, ExitCode> = {
  INVALID_REQUEST: EXIT.usage,
  RESERVATION_MISMATCH: EXIT.usage,
  WORK_EMAIL_REQUIRED: EXIT.usage,
  INVALID_API_KEY: EXIT.auth,
  MISSING_SCOPE: EXIT.auth,
  NOT_FOUND: EXIT.notFound,
  RESERVATION_EXPIRED: EXIT.conflict,
  RESERVATION_USED: EXIT.conflict,
  SLOT_TAKEN: EXIT.conflict,
  NO_HOST_AVAILABLE: EXIT.conflict,
  CONFLICT: EXIT.conflict,
  RATE_LIMITED: EXIT.rateLimited,
  INTERNAL_ERROR: EXIT.error,
};

function exitForStatus(status: number): ExitCode {
  if (status === 400 || status === 422) return EXIT.usage;
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 409) return EXIT.conflict;
  if (status === 429) return EXIT.rateLimited;
  return EXIT.error;
}

/** A detail of an error document: a line, or a record (a meeting with its id) in `--json`. */
export type ErrorDetail = string | Readonly<Record<string, string | null>>;

export interface ErrorDocument {
  error: { code: string; message: string; details?: ErrorDetail[]; status?: number; hint?: string };
}

/** Base of every expected failure: one line of message, an optional hint, an exit code. */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;
  readonly details: string[] | undefined;
  constructor(
    code: string,
    message: string,
    exitCode: ExitCode,
    opts: { hint?: string; details?: string[]; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
    this.hint = opts.hint;
    this.details = opts.details;
  }
  toDocument(): ErrorDocument {
    const doc: ErrorDocument = { error: { code: this.code, message: this.message } };
    if (this.details?.length) doc.error.details = this.details;
    if (this.hint) doc.error.hint = this.hint;
    return doc;
  }
}

/** Bad input caught locally, before any request is sent. */
export class UsageError extends CliError {
  constructor(message: string, opts: { hint?: string; details?: string[] } = {}) {
    super('USAGE', message, EXIT.usage, opts);
  }
}

/** No key, or a key that may not be used (e.g. over plain http to a remote host). */
export class ConfigError extends CliError {
  constructor(
    code: 'NO_API_KEY' | 'INSECURE_BASE_URL' | 'CONFIG',
    message: string,
    opts: { hint?: string; exitCode?: ExitCode } = {},
  ) {
    super(code, message, opts.exitCode ?? EXIT.auth, opts);
  }
}

/** An error answered by the API, parsed from its envelope. */
export interface ApiErrorOptions {
  status: number;
  code: string;
  message: string;
  method: string;
  path: string;
  details?: string[];
  hint?: string;
  retryAfterSeconds?: number;
}

export class ApiError extends CliError {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly retryAfterSeconds: number | undefined;
  constructor(opts: ApiErrorOptions) {
    super(opts.code, opts.message, EXIT_BY_API_CODE[opts.code] ?? exitForStatus(opts.status), opts);
    this.status = opts.status;
    this.method = opts.method;
    this.path = opts.path;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
  override toDocument(): ErrorDocument {
    const doc = super.toDocument();
    doc.error.status = this.status;
    return doc;
  }
  /** The options that rebuild this error (to derive one with more context). */
  fields(): ApiErrorOptions {
    return {
      status: this.status,
      code: this.code,
      message: this.message,
      method: this.method,
      path: this.path,
      ...(this.details ? { details: this.details } : {}),
      ...(this.hint ? { hint: this.hint } : {}),
      ...(this.retryAfterSeconds !== undefined ? { retryAfterSeconds: this.retryAfterSeconds } : {}),
    };
  }
  /** The same error with a hint of what to do next (errors are immutable). */
  withHint(hint: string | undefined): ApiError {
    return !hint || hint === this.hint ? this : new ApiError({ ...this.fields(), hint });
  }
}

/** The server answered something that is not the API's JSON (an HTML page, a cut-off body, a schema break). */
export class BadResponseError extends CliError {
  readonly status: number | undefined;
  constructor(message: string, opts: { status?: number; details?: string[]; hint?: string } = {}) {
    super('BAD_RESPONSE', message, EXIT.error, opts);
    this.status = opts.status;
  }
  override toDocument(): ErrorDocument {
    const doc = super.toDocument();
    if (this.status !== undefined) doc.error.status = this.status;
    return doc;
  }
}

/** The server could not be reached at all: nothing was processed. */
export class NetworkError extends CliError {
  constructor(message: string, opts: { hint?: string; cause?: unknown } = {}) {
    super('NETWORK_ERROR', message, EXIT.error, opts);
  }
}

/**
 * A request that changes something may have been processed, but no answer came back. Never
 * repeat it blindly. `lostBy` tells how (shared/ledger-rules.md): `no_answer` (timeout, dropped
 * connection, unreadable 2xx, 3xx) or `error_answer` (an explicit 5xx, an HTML 502): after the
 * latter, a retry's RESERVATION_EXPIRED or CONFLICT proves nothing.
 */
export class OutcomeUnknownError extends CliError {
  readonly lostBy: 'no_answer' | 'error_answer';
  constructor(
    message: string,
    opts: { hint?: string; cause?: unknown; lostBy?: 'no_answer' | 'error_answer' | undefined } = {},
  ) {
    super('OUTCOME_UNKNOWN', message, EXIT.outcomeUnknown, opts);
    this.lostBy = opts.lostBy ?? (opts.cause instanceof OutcomeUnknownError ? opts.cause.lostBy : 'no_answer');
  }
}

/** The lead has a sent booking attempt whose outcome is unknown: a new booking is not sent by accident. */
export class LeadOutcomeUnknownError extends CliError {
  constructor(message: string, opts: { hint?: string } = {}) {
    super('LEAD_OUTCOME_UNKNOWN', message, EXIT.conflict, opts);
  }
}

/**
 * Several meetings match where one is needed (`reschedule --email` without a terminal): a line
 * each for people, and in `--json` an object each, with its id, so a script can pick one, and
 * its `line` (the string every other error's `details` item is).
 */
export class SeveralMeetingsError extends UsageError {
  constructor(
    message: string,
    readonly meetings: ReadonlyArray<{ id: string; date: string; title: string; event: string; line: string }>,
    opts: { hint?: string } = {},
  ) {
    super(message, { ...opts, details: meetings.map((m) => m.line) });
  }
  override toDocument(): ErrorDocument {
    const doc = super.toDocument();
    // `line`: the text the person sees (what `details` holds everywhere else), beside the fields.
    doc.error.details = this.meetings.map(({ id, date, title, event, line }) => ({ id, date, title, event, line }));
    return doc;
  }
}

/** The lead already has an upcoming meeting booked through schedctl: a new booking is not sent by accident. */
export class LeadHasMeetingError extends CliError {
  constructor(message: string, opts: { hint?: string } = {}) {
    super('LEAD_HAS_MEETING', message, EXIT.conflict, opts);
  }
}

/** A bulk `--file` run finished, but some rows failed or were invalid (the summary names them). */
export class RowsFailedError extends CliError {
  constructor(message: string, opts: { hint?: string; details?: string[] } = {}) {
    super('ROWS_FAILED', message, EXIT.someRowsFailed, opts);
  }
}

export class CancelledError extends CliError {
  constructor(message = 'cancelled') {
    super('CANCELLED', message, EXIT.cancelled);
  }
}

export function isCliError(error: unknown): error is CliError {
  return error instanceof CliError;
}
