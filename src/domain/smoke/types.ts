/** The shape of a smoke run: what `--json` prints and what the JUnit report is built from. */
export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  /** Time spent in this check's requests (including the HTTP layer's retries and 429 waits); null when skipped. */
  latencyMs: number | null;
  detail: string;
  /** Contract problems, one `<json path>: <reason>` each. */
  problems?: string[];
}

export interface SmokeReport {
  ok: boolean;
  /** Requests sent, retries included (the API allows 30 per minute per key). */
  requests: number;
  checks: CheckResult[];
  /** The meeting `--book` created, so a CI job can clean it up. */
  meetingId?: string;
}

/** Validated flags, ready to run (see options.ts). */
export interface SmokeInput {
  event?: string;
  trigger?: { ref: string; email: string; fields: Record<string, string> };
  book: boolean;
  /** The lead's email for `--book` (the trigger's `--email` when routed). */
  email?: string;
  maxLatencyMs?: number;
}
