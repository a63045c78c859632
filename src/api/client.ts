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
 */
import ky, { HTTPError, TimeoutError } from 'ky';
import type { ZodType } from 'zod';
import { redact, redactKeyLike } from '../config/mask.js';
import type { Clock } from '../context.js';
import { ApiError, BadResponseError, NetworkError, OutcomeUnknownError } from '../errors.js';
import { schemas } from './schemas.js';
import { formatSchemaIssues } from './validate.js';

export type Safety = 'retry' | 'once';

export interface RequestOptions<T> {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  schema?: ZodType<T>;
  safety: Safety;
}

export interface HttpClient {
  readonly baseUrl: string;
  request<T>(opts: RequestOptions<T>): Promise<T>;
  /** Requests sent (including retries), for `--json` summaries and request-economy checks. */
  readonly sent: number;
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
  /** The fetch under ky; defaults to Node's own. */
  fetch?: (request: Request) => Promise<Response>;
}

const RETRYABLE_STATUS = [500, 502, 503, 504];
const MAX_RETRIES = 3;
/** A 429 is retried at most this often; the wait budget bounds the total time as well. */
const MAX_RATE_LIMIT_RETRIES = 3;
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const budgetMs = options.rateLimitBudgetMs ?? 90_000;
  const maxBody = options.maxBodyBytes ?? 5 * 1024 * 1024;
  const secrets = [options.apiKey];
  // Key-shaped text too: a path or body may carry a key pasted as an argument by mistake.
  const debug = (line: string) => options.debug?.(redactKeyLike(redact(line, secrets)));
  let sent = 0;

  async function request<T>(opts: RequestOptions<T>): Promise<T> {
    const url = new URL(options.baseUrl + opts.path);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const label = `${opts.method} ${opts.path}`;
    const once = opts.safety === 'once';
    let waitedMs = 0;
    let started = 0;
    // Aborts a body that trickles in past the timeout (ky's timeout covers only the headers).
    const bodyAbort = new AbortController();

    const client = ky.create({
      timeout: options.timeoutMs,
      throwHttpErrors: true,
      redirect: 'manual',
      signal: bodyAbort.signal,
      ...(options.fetch ? { fetch: options.fetch as typeof fetch } : {}),
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
        maxRetryAfter: budgetMs,
        backoffLimit: 4000,
        shouldRetry: ({ error, retryCount }) => {
          if (error instanceof HTTPError && error.response.status === 429) {
            const seconds = parseRetryAfter(error.response.headers.get('retry-after'));
            const waitMs = seconds === undefined ? 1000 : seconds * 1000;
            if (waitedMs + waitMs > budgetMs || retryCount > MAX_RATE_LIMIT_RETRIES) {
              debug(`${label}: 429, Retry-After ${error.response.headers.get('retry-after') ?? '(none)'}; over the wait budget, giving up`);
              return false;
            }
            waitedMs += waitMs;
            options.notify(`rate limited (30 requests/minute); retrying ${label} in ${Math.ceil(waitMs / 1000)} s`, waitMs);
            debug(`${label}: 429, waiting ${waitMs} ms then retrying (attempt ${retryCount + 1})`);
            // A usable Retry-After: let ky wait exactly that long. Otherwise force a backoff retry.
            return seconds === undefined ? true : undefined;
          }
          if (once) {
            debug(`${label}: not retried (it may have reached the server)`);
            return false;
          }
          const retryable =
            (error instanceof HTTPError && RETRYABLE_STATUS.includes(error.response.status)) ||
            error instanceof TimeoutError ||
            isNetworkError(error);
          if (!retryable || retryCount > MAX_RETRIES) return false;
          debug(`${label}: ${describe(error)}; retrying (attempt ${retryCount + 1})`);
          return true;
        },
      },
      hooks: {
        beforeRequest: [
          () => {
            sent++;
            started = Date.now();
            debug(`→ ${label} ${url.toString()}${opts.body !== undefined ? ` ${JSON.stringify(opts.body)}` : ''}`);
          },
        ],
        afterResponse: [
          (_req, _opts, response) => {
            debug(`← ${response.status} ${label} (${Date.now() - started} ms)`);
          },
        ],
      },
    });

    let response: Response;
    try {
      response = await client(url, { method: opts.method, ...(opts.body !== undefined ? { json: opts.body } : {}) });
    } catch (error) {
      if (error instanceof HTTPError && isRedirect(error.response)) throw redirectError(error.response, label);
      if (error instanceof HTTPError) return Promise.reject(await errorFromResponse(error.response, label, once, readBody));
      throw transportError(error, label, once, options.timeoutMs);
    }
    if (isRedirect(response)) throw redirectError(response, label);
    const text = await readBody(response).catch((error: unknown) => {
      throw once
        ? new OutcomeUnknownError(`${label} answered HTTP ${response.status} but its body did not arrive completely: the request may have been processed`, { cause: error })
        : error;
    });
    if (!text) return undefined as T;
    let json: unknown;
    try {
      if (!isJson(response)) throw new Error('not json');
      json = JSON.parse(text);
    } catch {
      const what = isJson(response) ? 'JSON that does not parse (a cut-off body?)' : `${response.headers.get('content-type') ?? 'no content type'}, not JSON`;
      if (once) {
        throw new OutcomeUnknownError(`${label} answered HTTP ${response.status} with ${what}: it was probably processed, but the result could not be read`);
      }
      throw new BadResponseError(`${label} answered HTTP ${response.status} with ${what}`, { status: response.status });
    }
    if (!opts.schema) return json as T;
    const parsed = opts.schema.safeParse(json);
    if (!parsed.success) {
      const details = formatSchemaIssues(parsed.error);
      if (once) {
        throw new OutcomeUnknownError(`${label} answered HTTP ${response.status} with a body that does not match the API contract: ${details.join('; ')}`);
      }
      throw new BadResponseError(`${label} answered HTTP ${response.status} with a body that does not match the API contract`, {
        status: response.status,
        details,
      });
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
            throw new BadResponseError(`${label} answered a body larger than ${Math.round(maxBody / 1024 / 1024)} MB; refusing to read it`, { status: res.status });
          }
          chunks.push(value);
        }
        return Buffer.concat(chunks).toString('utf8');
      } catch (error) {
        if (error instanceof BadResponseError) throw error;
        throw new NetworkError(`${label}: the response body did not arrive within ${options.timeoutMs / 1000} s`, { cause: error });
      } finally {
        clearTimeout(timer);
      }
    }
  }

  return {
    baseUrl: options.baseUrl,
    request,
    get sent() {
      return sent;
    },
  };
}

function isRedirect(response: Response): boolean {
  return response.status >= 300 && response.status < 400;
}

/** fetch would otherwise follow it, perhaps to another host; the key is never sent onward. */
function redirectError(response: Response, label: string): BadResponseError {
  return new BadResponseError(
    `${label} answered a redirect (HTTP ${response.status}) to ${response.headers.get('location') ?? '(no location)'}; schedctl does not follow redirects, so the key is never sent to another address`,
    { status: response.status, hint: 'set --base-url to the final address' },
  );
}

function isJson(response: Response): boolean {
  return /\bjson\b/i.test(response.headers.get('content-type') ?? '');
}

/** Integer seconds, or undefined when missing, negative or not a number (then a short backoff is used). */
export function parseRetryAfter(raw: string | null): number | undefined {
  if (raw === null || !/^\s*\d+\s*$/.test(raw)) return undefined;
  return Number(raw);
}

function errorCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError || errorCode(error) !== undefined;
}

function describe(error: unknown): string {
  if (error instanceof HTTPError) return `HTTP ${error.response.status}`;
  if (error instanceof TimeoutError) return 'timed out';
  return errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}

function transportError(error: unknown, label: string, once: boolean, timeoutMs: number): Error {
  if (error instanceof ApiError || error instanceof BadResponseError || error instanceof NetworkError) return error;
  const code = errorCode(error);
  if (!(error instanceof TimeoutError) && code && NOT_CONNECTED.has(code)) {
    return new NetworkError(`could not reach the API for ${label} (${code}); nothing was sent`, {
      hint: 'check --base-url / the profile, your network or proxy settings; for the local sandbox run `schedctl sandbox`',
    });
  }
  const what = error instanceof TimeoutError ? `no response within ${timeoutMs / 1000} s` : `the connection failed (${code ?? describe(error)})`;
  if (once) {
    return new OutcomeUnknownError(`${label}: ${what}; the request may have been processed`, {
      hint: 'do not repeat it blindly; check its result first',
    });
  }
  return new NetworkError(`${label}: ${what}`, { hint: 'try again, or raise --timeout' });
}

async function errorFromResponse(
  response: Response,
  label: string,
  once: boolean,
  readBody: (res: Response) => Promise<string>,
): Promise<Error> {
  const status = response.status;
  const [method = '', path = ''] = label.split(' ');
  let text = '';
  try {
    text = await readBody(response);
  } catch {
    text = '';
  }
  let envelope: ReturnType<typeof schemas.apiError.safeParse> | undefined;
  try {
    envelope = schemas.apiError.safeParse(JSON.parse(text));
  } catch {
    envelope = undefined;
  }
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  if (once && status >= 500) {
    const said = envelope?.success ? `${envelope.data.error.code}: ${envelope.data.error.message}` : `HTTP ${status}`;
    return new OutcomeUnknownError(`${label} failed with ${said}; the request may have been processed`, {
      hint: 'do not repeat it blindly; check its result first',
    });
  }
  if (envelope?.success) {
    const e = envelope.data.error;
    return new ApiError({
      status,
      code: e.code,
      message: e.message,
      method,
      path,
      ...(e.details ? { details: e.details } : {}),
      ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
      ...(status === 429
        ? { hint: `still rate limited after waiting; try again in ${retryAfter ?? 60} s (the limit is 30 requests per minute per key)` }
        : {}),
    });
  }
  const kind = isJson(response) ? 'a body that is not the API error envelope' : `${response.headers.get('content-type') ?? 'no content type'} (not the API's JSON; a proxy or gateway error page?)`;
  return new BadResponseError(`${label} failed with HTTP ${status} and ${kind}`, { status });
}
