/**
 * The one HTTP layer (ky). Every command's request goes through `request()`:
 * auth header, JSON in and out, per-request timeout, 429 handling within a wait budget,
 * retries only where they are safe, debug logging with the key redacted, and one
 * typed error for every way a request can fail.
 *
 * Safety classes (the spec's lost-response rules depend on them):
 * - 'retry': reads, and requests that only (re)create a reservation. Network errors,
 *   timeouts and 5xx are retried with backoff.
 * - 'once': booking, firing a trigger, rescheduling, raw non-GET calls. Never repeated
 *   once the request may have reached the server; such a failure is OutcomeUnknownError.
 * A 429 is retried for both: the server did not act on it.
 *
 * A 2xx answer that cannot be read (empty, not JSON, not the expected shape) is, for a 'once'
 * request, OutcomeUnknownError: the server said it acted, but not what it did. For a read it
 * is a BadResponseError naming the operation.
 *
 * The server's clock: each response's Date header gives the offset between the server's clock
 * and ours (`serverSkewMs()`), so countdowns to server instants (a hold's expiresAt) are
 * computed in the server's time.
 */
import ky, { HTTPError, TimeoutError } from 'ky';
import type { ZodMiniType as ZodType } from './zod.js';
import { redact, redactKeyLike } from '../config/mask.js';
import type { Clock } from '../context-basics.js';
import { ApiError, BadResponseError, CliError, NetworkError, OutcomeUnknownError } from '../errors.js';
import {
  describeFailure,
  errorFromResponse,
  isJson,
  isNetworkError,
  isNotConnected,
  isRedirect,
  isRefusal,
  capRetryAfter,
  MAX_RETRY_AFTER_SECONDS,
  notSent,
  parseRetryAfter,
  redirectError,
  type TryRecord,
  transportError,
  unreadableAnswer,
} from './failures.js';
import { sanitizeText } from '../ui/sanitize.js';
import type { RateBudget } from './rate-budget.js';
import { asUnrepeatable, isCancelled } from './send-hook.js';
import { formatSchemaIssues } from './zod.js';
import { wireTry } from './transport.js';

export type Safety = 'retry' | 'once';

export interface RequestOptions<T> {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** The response schema, or a loader started as the request goes out (see endpoints.ts). */
  schema?: ZodType<T> | (() => Promise<ZodType<T>>);
  safety: Safety;
}

export interface HttpClient {
  readonly baseUrl: string;
  request<T>(opts: RequestOptions<T>): Promise<T>;
  /**
   * Requests that may have reached the server (retries included), for `--json` summaries and
   * request-economy checks. A try that provably never connected (connection refused, DNS) is
   * not counted: it used none of the API's budget.
   */
  readonly sent: number;
  /** Every try, including those that never connected. */
  readonly attempts: number;
  /** The server's clock minus ours, in ms, from the latest response's Date header; 0 before any. */
  serverSkewMs(): number;
  /**
   * Time spent waiting for the rate budget (the shared one, and a 429's Retry-After), in ms,
   * over every request so far: not the API's latency (smoke reports it apart).
   */
  readonly rateWaitMs?: number;
  /**
   * Waits once, before any of them is sent, until the key's budget has room for `n` requests
   * (at most its limit); `onWait` hears the wait and how many requests are left. Resolves to the
   * time waited (0 without a budget).
   */
  waitForBudget?(n: number, onWait?: (ms: number, left: number, limit: number) => void): Promise<number>;
  /** The next `n` requests go one after another: the budget draws them at once (RateBudget.drawAhead). */
  drawAhead?(n: number): void;
  /** drawAhead, drawn now: the budget's wait happens here, not between the requests (RateBudget.reserve). */
  reserve?(n: number): Promise<void>;
  /** What was drawn ahead and not sent goes back to the budget (RateBudget.giveBack): a command's end, a bulk row's. */
  giveBack?(): Promise<void>;
}

export interface HttpClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  /** Total time the client may spend waiting on 429 Retry-After before giving up (exit 6). */
  rateLimitBudgetMs?: number;
  maxBodyBytes?: number;
  debug: ((line: string) => void) | undefined;
  /** Says that the client is about to wait `waitMs` (a 429's Retry-After). */
  notify: (line: string, waitMs: number) => void;
  clock: Clock;
  userAgent?: string;
  /**
   * The fetch under ky: schedctl's own transport (transport.ts), which calls the send hook
   * (send-hook.ts) once the connection is up, proxied or not.
   */
  fetch: (request: Request) => Promise<Response>;
  /**
   * The key's rate budget shared by every schedctl process (rate-budget.ts): each try draws
   * from it before it goes out, and a 429's Retry-After is written to it for everyone.
   */
  budget?: Pick<RateBudget, 'draw' | 'recordRetryAfter'> &
    Partial<Pick<RateBudget, 'waitForRoom' | 'limit' | 'drawAhead' | 'reserve' | 'giveBack'>>;
  /** Each answer's server time (its Date header, + 500 ms: the header has whole seconds), in ms since the epoch. */
  onServerDate?: ((serverMs: number) => void) | undefined;
  /** Test-only (SCHEDCTL_TEST_RETRY_BASE_MS): the first retry's backoff, doubling each time; unset, ky's 300 ms. */
  testRetryBaseMs?: number | undefined;
}

const RETRYABLE_STATUS = [500, 502, 503, 504];
const MAX_RETRIES = 3;
/** A 429 is retried at most this often; the wait budget bounds the total time as well. */
const MAX_RATE_LIMIT_RETRIES = 3;

/**
 * Whether a failed try was written to a connection. Our transport knows (wireTry); for another
 * fetch, a failure that proves nothing left (refused, no such host) or schedctl's own refusal
 * in the transport (a key that would travel in clear) sent nothing, and anything else may have.
 */
function wasSent(req: Request, error: unknown): boolean {
  const wire = wireTry(req);
  if (wire) return wire.sent;
  return !(isNotConnected(error) || error instanceof CliError);
}

/** How a failed try ended, in a word: its error code, or `timed out` (ky aborts the try on its timeout). */
function tryOutcome(error: unknown): string {
  if (error instanceof TimeoutError || (error instanceof Error && error.name === 'AbortError')) return 'timed out';
  return describeFailure(error);
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const budgetMs = options.rateLimitBudgetMs ?? 90_000;
  const waitingFor = (ms: number) =>
    options.notify(
      `waiting for the rate budget (shared by every schedctl process on this key), ${Math.ceil(ms / 1000)} s`,
      ms,
    );
  const maxBody = options.maxBodyBytes ?? 5 * 1024 * 1024;
  const { testRetryBaseMs } = options;
  const secrets = [options.apiKey];
  // Key-shaped text too: a path or body may carry a key pasted as an argument by mistake.
  // Sanitized too: a debug line quotes paths and bodies that carry server text (slots, ids).
  const debug = (line: string) => options.debug?.(sanitizeText(redactKeyLike(redact(line, secrets))));
  let attempts = 0;
  let notConnected = 0;
  let skewMs = 0;
  let rateWaitMs = 0;
  // Every try goes through here (ky calls fetch once per attempt): count it, and take back the
  // ones that never left the machine; `tries` (the request's own) hears how each one ended.
  const countingFetch = async (req: Request, tries: TryRecord[]): Promise<Response> => {
    attempts++;
    try {
      const response = await options.fetch(req);
      tries.push({ sent: true, outcome: `HTTP ${response.status}` });
      return response;
    } catch (error) {
      const sent = wasSent(req, error);
      if (!sent) notConnected++;
      tries.push({ sent, outcome: tryOutcome(error) });
      throw error;
    }
  };
  /** The Date header has whole seconds: the server's now is, on average, half a second past it. */
  const recordSkew = (response: Response) => {
    const date = Date.parse(response.headers.get('date') ?? '');
    if (!Number.isFinite(date)) return;
    skewMs = date + 500 - options.clock.now().getTime();
    options.onServerDate?.(date + 500);
  };

  /**
   * A base URL that ends in /v1 (copied from the API's docs, where every path starts with it) makes
   * every path /v1/v1/…: a 404 that says only "no route". Said, with what to change.
   */
  // A base URL that does not parse fails each request as "could not be sent" (notSent), not here.
  const basePath = URL.canParse(options.baseUrl) ? new URL(options.baseUrl).pathname.replace(/\/+$/, '') : '';
  const doubledPrefix = (error: Error, path: string): Error => {
    if (!/\/v1$/i.test(basePath) || !path.startsWith('/v1/')) return error;
    const status = error instanceof ApiError || error instanceof BadResponseError ? error.status : undefined;
    if (status !== 404) return error;
    const hint = `the base URL ends in /v1 and every API path starts with /v1 (this request went to ${basePath}${path}): drop the /v1 from --base-url, SCHEDCTL_BASE_URL or the profile's URL`;
    if (error instanceof ApiError) return error.withHint(hint);
    return new BadResponseError(error.message, { status, hint });
  };

  async function request<T>(opts: RequestOptions<T>): Promise<T> {
    const url = new URL(options.baseUrl + opts.path);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const label = `${opts.method} ${opts.path}`;
    const schemaReady = typeof opts.schema === 'function' ? opts.schema() : Promise.resolve(opts.schema);
    // Not awaited until the body is in; a failed request must not leave it unhandled.
    schemaReady.catch(() => undefined);
    const once = opts.safety === 'once';
    let waitedMs = 0;
    let started = 0;
    // Aborts a body that trickles in past the timeout (ky's timeout covers only the headers).
    const bodyAbort = new AbortController();
    // Whether any try reached the transport: a failure before that (a URL fetch refuses) sent nothing.
    let reachedTransport = false;
    // What each try did, for the messages of a failure (transportError counts from them).
    const tries: TryRecord[] = [];
    // A request that must not be repeated is tried again only once, and only when nothing left.
    let unsentRetried = false;

    const client = ky.create({
      timeout: options.timeoutMs,
      throwHttpErrors: true,
      redirect: 'manual',
      signal: bodyAbort.signal,
      fetch: ((req: Request) => {
        reachedTransport = true;
        return countingFetch(req, tries);
      }) as typeof fetch,
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        accept: 'application/json',
        'user-agent': options.userAgent ?? 'schedctl',
      },
      retry: {
        limit: 20,
        methods: ['get', 'post', 'patch', 'put', 'delete'],
        statusCodes: [429, ...RETRYABLE_STATUS],
        afterStatusCodes: [429],
        // ky reads Retry-After itself when shouldRetry leaves the wait to it (below): never past the API's window.
        maxRetryAfter: Math.min(budgetMs, MAX_RETRY_AFTER_SECONDS * 1000),
        backoffLimit: 4000,
        ...(testRetryBaseMs ? { delay: (n: number) => testRetryBaseMs * 2 ** (n - 1) } : {}),
        shouldRetry: ({ error, retryCount }) => {
          // A cancelled MCP tool call: its request was refused before it left, and stays unsent.
          if (isCancelled()) return false;
          // schedctl's own refusals (the rate budget's wait is over the limit) are final, and so is
          // the send hook's (the transport's failure carries it as its cause: a lead lock lost, a
          // time another run is booking): another try would only draw from the budget again.
          if (error instanceof CliError || (error as { cause?: unknown }).cause instanceof CliError) return false;
          if (error instanceof HTTPError && error.response.status === 429) {
            const { headers } = error.response;
            const seconds = parseRetryAfter(headers.get('retry-after'), Date.now(), headers.get('date'));
            // Another client uses this key too: every schedctl process waits, not only this one;
            // for at most the API's one-minute window, whatever the server says (capRetryAfter).
            if (seconds !== undefined) void options.budget?.recordRetryAfter(capRetryAfter(seconds), { debug });
            // A server that asks for longer than this command may wait is answered with exit 6 at
            // once; a shorter wait counts for at most the API's one-minute window.
            const waitMs = seconds === undefined ? 1000 : capRetryAfter(seconds) * 1000;
            if (waitedMs + (seconds ?? 1) * 1000 > budgetMs || retryCount > MAX_RATE_LIMIT_RETRIES) {
              debug(
                `${label}: 429, Retry-After ${error.response.headers.get('retry-after') ?? '(none)'}; over the wait budget, giving up`,
              );
              return false;
            }
            waitedMs += waitMs;
            rateWaitMs += waitMs;
            options.notify(`rate limited (429); retrying ${label} in ${Math.ceil(waitMs / 1000)} s`, waitMs);
            debug(`${label}: 429, waiting ${waitMs} ms then retrying (attempt ${retryCount + 1})`);
            // A usable Retry-After: let ky wait exactly that long. Otherwise force a backoff retry.
            return seconds === undefined ? true : undefined;
          }
          // A try whose bytes never left (the connection failed before the request was written):
          // nothing was sent, so once more on a fresh connection (issue 52 finding 9).
          if (
            once &&
            tries.at(-1)?.sent === false &&
            !unsentRetried &&
            !isRefusal(error) &&
            !(error instanceof TimeoutError)
          ) {
            unsentRetried = true;
            debug(
              `${label}: ${describeFailure(error)} before the request was written; retrying once on a new connection`,
            );
            return true;
          }
          if (once) {
            debug(`${label}: not retried (it may have reached the server)`);
            return false;
          }
          const retryable =
            (error instanceof HTTPError && RETRYABLE_STATUS.includes(error.response.status)) ||
            error instanceof TimeoutError ||
            (isNetworkError(error) && !isRefusal(error));
          if (!retryable || retryCount > MAX_RETRIES) return false;
          debug(`${label}: ${describeFailure(error)}; retrying (attempt ${retryCount + 1})`);
          return true;
        },
      },
      hooks: {
        beforeRequest: [
          async () => {
            // Outside ky's timeout (hooks run before it starts): waiting for the budget is not the API being slow.
            if (options.budget) {
              const before = Date.now();
              await options.budget.draw({ maxWaitMs: Math.max(0, budgetMs - waitedMs), onWait: waitingFor, debug });
              waitedMs += Date.now() - before;
              rateWaitMs += Date.now() - before;
            }
            started = Date.now();
            debug(`→ ${label} ${url.toString()}${opts.body !== undefined ? ` ${JSON.stringify(opts.body)}` : ''}`);
          },
        ],
        afterResponse: [
          (_req, _opts, response) => {
            recordSkew(response);
            debug(`← ${response.status} ${label} (${Date.now() - started} ms)`);
          },
        ],
      },
    });

    let response: Response;
    try {
      const send = () => client(url, { method: opts.method, ...(opts.body !== undefined ? { json: opts.body } : {}) });
      response = await (once ? asUnrepeatable(send) : send());
    } catch (error) {
      if (error instanceof HTTPError && isRedirect(error.response)) throw redirectError(error.response, label, once);
      if (error instanceof HTTPError)
        return Promise.reject(doubledPrefix(await errorFromResponse(error.response, label, once, readBody), opts.path));
      if (error instanceof CliError) throw error;
      if (!reachedTransport) throw notSent(error, label);
      // The send hook refused to let the request leave (a lead lock lost): nothing was sent.
      const cause = (error as { cause?: unknown } | null)?.cause;
      if (cause instanceof CliError) throw cause;
      throw transportError(error, label, once, options.timeoutMs, tries);
    }
    if (isRedirect(response)) throw redirectError(response, label, once);
    const text = await readBody(response).catch((error: unknown) => {
      throw once
        ? new OutcomeUnknownError(
            `${label} answered HTTP ${response.status} but its body did not arrive completely: the request may have been processed`,
            { cause: error },
          )
        : error;
    });
    // Only a raw call (`schedctl api`, no schema) may be answered with nothing (a 204).
    if (!text && !opts.schema) return undefined as T;
    if (!text) throw unreadableAnswer(label, response.status, 'an empty body', once);
    let json: unknown;
    try {
      if (!isJson(response)) throw new Error('not json');
      json = JSON.parse(text);
    } catch {
      const what = isJson(response)
        ? 'JSON that does not parse (a cut-off body?)'
        : `${response.headers.get('content-type') ?? 'no content type'}, not JSON`;
      throw unreadableAnswer(label, response.status, what, once);
    }
    const schema = await schemaReady;
    if (!schema) return json as T;
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const details = formatSchemaIssues(parsed.error);
      throw unreadableAnswer(
        label,
        response.status,
        `a body that does not match the API contract (${details[0]}${details.length > 1 ? ' …' : ''})`,
        once,
        details,
      );
    }
    return parsed.data;

    async function readBody(res: Response): Promise<string> {
      if (!res.body) return '';
      const timer = setTimeout(() => bodyAbort.abort(new Error('body timeout')), options.timeoutMs);
      try {
        const reader = res.body.getReader();
        const chunks: Uint8Array[] = [];
        let size = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          size += value.byteLength;
          if (size > maxBody) {
            await reader.cancel().catch(() => undefined);
            throw new BadResponseError(
              `${label} answered a body larger than ${Math.round(maxBody / 1024 / 1024)} MB; refusing to read it`,
              { status: res.status },
            );
          }
          chunks.push(value);
        }
        return Buffer.concat(chunks).toString('utf8');
      } catch (error) {
        if (error instanceof BadResponseError) throw error;
        throw new NetworkError(`${label}: the response body did not arrive within ${options.timeoutMs / 1000} s`, {
          cause: error,
        });
      } finally {
        clearTimeout(timer);
      }
    }
  }

  return {
    baseUrl: options.baseUrl,
    request,
    get sent() {
      return attempts - notConnected;
    },
    get attempts() {
      return attempts;
    },
    serverSkewMs: () => skewMs,
    get rateWaitMs() {
      return rateWaitMs;
    },
    drawAhead: (n) => options.budget?.drawAhead?.(n),
    reserve: async (n) => {
      const before = Date.now();
      await options.budget?.reserve?.(n, { maxWaitMs: budgetMs, onWait: waitingFor, debug });
      rateWaitMs += Date.now() - before;
    },
    giveBack: async () => options.budget?.giveBack?.({ debug }).catch(() => {}),
    waitForBudget: async (n, onWait) => {
      const { budget } = options;
      if (!budget?.waitForRoom) return 0;
      const limit = budget.limit ?? n;
      const before = Date.now();
      await budget.waitForRoom(n, {
        maxWaitMs: budgetMs,
        onWait: (ms, left) => onWait?.(ms, left, limit),
        debug,
      });
      return Date.now() - before;
    },
  };
}
