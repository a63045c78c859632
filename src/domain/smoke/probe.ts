/**
 * One request of a smoke check: sent through the normal HTTP layer (auth, 429 waits,
 * safe retries) but without its tolerant schema, so the raw JSON can be held against
 * the strict schema of the spec. Never throws: every failure becomes a detail line.
 */
import type { ZodMiniType as ZodType } from '../../api/zod.js';
import type { HttpClient, RequestOptions } from '../../api/client.js';
import { SCOPES } from '../../api/schemas.js';
import { formatSchemaIssues } from '../../api/zod.js';
import { ApiError, BadResponseError, CliError, NetworkError } from '../../errors.js';

/** What a request took: the API's own time, and apart from it the time spent waiting for the rate budget. */
export interface Timing {
  latencyMs: number;
  /** Present when the request waited for the rate budget (or a 429's Retry-After): never counted as latency. */
  rateWaitMs?: number;
}

export type ProbeResult<T> =
  | ({ ok: true; data: T } & Timing)
  | ({
      ok: false;
      detail: string;
      /** Contract problems (the body arrived but breaks the strict schema). */
      problems?: string[];
      /** The body read with the tolerant schema, when it is usable despite breaking the contract. */
      usable?: T;
      /** HTTP status of the answer, when one came (an API error, or a body that could not be read as JSON). */
      status?: number;
      /** The API could not be reached at all (nothing else will work either). */
      unreachable?: boolean;
    } & Timing);

export interface ProbeRequest {
  method: RequestOptions<unknown>['method'];
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  safety: RequestOptions<unknown>['safety'];
}

export async function probe<T>(
  http: HttpClient,
  req: ProbeRequest,
  strict: ZodType<T>,
  tolerant: ZodType<T>,
): Promise<ProbeResult<T>> {
  const started = performance.now();
  const waitedBefore = http.rateWaitMs ?? 0;
  const triesBefore = http.attempts;
  // The request's own time: what it waited for the rate budget is reported apart.
  const timing = (): Timing => {
    const rateWaitMs = Math.round((http.rateWaitMs ?? 0) - waitedBefore);
    const latencyMs = Math.max(0, Math.round(performance.now() - started) - rateWaitMs);
    return rateWaitMs > 0 ? { latencyMs, rateWaitMs } : { latencyMs };
  };
  let json: unknown;
  try {
    json = await http.request<unknown>({ ...req, schema: undefined });
  } catch (error) {
    const unreachable = error instanceof NetworkError && /could not reach/.test(error.message);
    return {
      ok: false,
      ...timing(),
      // A transport failure's message counts its tries itself (sent, reset, not connected: the HTTP layer's record).
      detail: describeFailure(error) + (error instanceof NetworkError ? '' : attempts(http.attempts - triesBefore)),
      ...(error instanceof ApiError || (error instanceof BadResponseError && error.status !== undefined)
        ? { status: error.status as number }
        : {}),
      ...(unreachable ? { unreachable: true } : {}),
    };
  }
  const took = timing();
  const parsed = strict.safeParse(json);
  if (parsed.success) return { ok: true, data: parsed.data, ...took };
  const problems = formatSchemaIssues(parsed.error);
  const loose = tolerant.safeParse(json);
  return {
    ok: false,
    ...took,
    detail: `${req.method} ${req.path}: the body breaks the API contract (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${problems[0]}${problems.length > 1 ? ' …' : ''}`,
    problems,
    ...(loose.success ? { usable: loose.data } : {}),
  };
}

/** The HTTP layer retries reads on 5xx and waits on 429: say so, since the latency includes it. */
function attempts(n: number): string {
  return n <= 1 ? '' : ` (after ${n} attempts)`;
}

/** One line for the DETAIL column: what failed, with the API's code and, for a 403, the missing scope. */
export function describeFailure(error: unknown): string {
  if (error instanceof ApiError) {
    const where = `${error.method} ${error.path}`;
    if (error.status === 403 || error.code === 'MISSING_SCOPE') {
      const scope = SCOPES.find((s) => error.message.includes(s));
      return `missing scope ${scope ?? '(not named by the server)'}: ${where} answered HTTP ${error.status} ${error.code}: ${error.message}`;
    }
    const details = error.details?.length ? ` [${error.details.join('; ')}]` : '';
    return `${where} answered HTTP ${error.status} ${error.code}: ${error.message}${details}`;
  }
  if (error instanceof BadResponseError)
    return error.details?.length ? `${error.message}: ${error.details.join('; ')}` : error.message;
  if (error instanceof CliError) return error.message;
  return error instanceof Error ? `unexpected failure: ${error.message}` : String(error);
}
