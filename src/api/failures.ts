/**
 * How a request can fail, as typed errors: the API's error envelope, a response that is not
 * the API's JSON, a redirect (never followed), a transport failure before or after the
 * request may have reached the server (the difference decides "outcome unknown").
 */
import { HTTPError, TimeoutError } from 'ky';
import { ApiError, BadResponseError, CliError, EXIT, NetworkError, OutcomeUnknownError } from '../errors.js';
import { schemas } from './schemas.js';

/** The code of a proxy tunnel that did not open (proxy-tunnel.ts, loaded only behind a proxy). */
const TUNNEL_FAILED = 'ERR_PROXY_TUNNEL';

/**
 * The server's TLS certificate was refused: nothing was sent, and asking again gets the same
 * certificate, so these are never retried.
 */
const TLS_REFUSED = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Failures that prove nothing was sent: safe to report as "could not reach", even for a booking. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  // The proxy's tunnel to the API did not open (proxy-tunnel.ts): the request never left.
  TUNNEL_FAILED,
  ...TLS_REFUSED,
]);

const isTlsRefusal = (error: unknown): boolean => TLS_REFUSED.has(errorCode(error) ?? '');

interface TunnelFailure {
  message: string;
  /** The proxy's answer to CONNECT when it refused the tunnel. */
  status?: number;
  cause?: unknown;
}

/** A proxy tunnel that did not open, anywhere in the error's chain of causes. */
function tunnelFailure(error: unknown): TunnelFailure | undefined {
  let e: unknown = error;
  for (let depth = 0; e && depth < 4; depth++) {
    if ((e as { code?: unknown }).code === TUNNEL_FAILED) return e as TunnelFailure;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Refusals that asking again would only repeat: a TLS certificate not trusted (the API's or an
 * https:// proxy's), or a proxy that refused the tunnel with a 4xx (credentials, policy).
 */
export function isRefusal(error: unknown): boolean {
  const tunnel = tunnelFailure(error);
  if (!tunnel) return isTlsRefusal(error);
  return (tunnel.status !== undefined && tunnel.status >= 400 && tunnel.status < 500) || isTlsRefusal(tunnel.cause);
}
/** The try never connected (refused, no such host, certificate refused): nothing was sent. */
export const isNotConnected = (error: unknown): boolean =>
  !(error instanceof TimeoutError) && NOT_CONNECTED.has(errorCode(error) ?? '');

/**
 * A 2xx answer that cannot be read as the operation's result (`what`: an empty body, not JSON, a
 * broken shape). For a request that changes something (booking, reschedule, fire) the server
 * said it acted but not what it did: outcome unknown (exit 7), never repeated. For a read, one
 * line naming the operation (exit 1), with the schema problems as details.
 */
export function unreadableAnswer(
  label: string,
  status: number,
  what: string,
  once: boolean,
  details?: string[],
): Error {
  if (once) {
    return new OutcomeUnknownError(
      `${label} answered HTTP ${status} with ${what}: it was probably processed, but the result could not be read`,
      {
        hint: 'do not repeat it blindly; check its result first',
      },
    );
  }
  return new BadResponseError(`the API's answer to ${label} is not valid: HTTP ${status} with ${what}`, {
    status,
    ...(details?.length ? { details } : {}),
    hint: 'the server (or a proxy in between) did not answer as the API does: check --base-url / the profile, or try again later',
  });
}

export function isRedirect(response: Response): boolean {
  return response.status >= 300 && response.status < 400;
}

/**
 * fetch would otherwise follow it, perhaps to another host; the key is never sent onward.
 * For a request that changes something (a booking, a fire, a move) a 3xx means the server
 * took it (a 303 "see other" is how a POST is answered once processed): outcome unknown.
 */
export function redirectError(response: Response, label: string, once = false): BadResponseError | OutcomeUnknownError {
  if (once) {
    return new OutcomeUnknownError(
      `${label} answered a redirect (HTTP ${response.status}), which schedctl does not follow: the request was probably processed, but its result is unknown`,
      { hint: 'do not repeat it blindly; check its result first (and set --base-url to the final address)' },
    );
  }
  return new BadResponseError(
    `${label} answered a redirect (HTTP ${response.status}) to ${response.headers.get('location') ?? '(no location)'}; schedctl does not follow redirects, so the key is never sent to another address`,
    { status: response.status, hint: 'set --base-url to the final address' },
  );
}

export function isJson(response: Response): boolean {
  return /\bjson\b/i.test(response.headers.get('content-type') ?? '');
}

/**
 * The most a server's Retry-After can impose on the shared rate budget and the hints: the
 * API's rate window is one minute (spec "Limits"), so no wait it asks for can be longer.
 */
export const MAX_RETRY_AFTER_SECONDS = 60;

/**
 * Retry-After (RFC 9110): whole seconds, or an HTTP-date (counted from the response's Date when
 * there is one, so the two clocks need not agree). Undefined when missing, negative or
 * malformed (then a short backoff is used). Not capped here: a command gives up at once on a
 * wait longer than it may wait; `capRetryAfter` bounds what is recorded and shown.
 */
export function parseRetryAfter(raw: string | null, now = Date.now(), serverDate?: string | null): number | undefined {
  if (raw === null) return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^[A-Za-z]{3},/.test(text)) return undefined; // IMF-fixdate (and the obsolete forms) start with a day name
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return undefined;
  const from = serverDate ? Date.parse(serverDate) : NaN;
  return Math.max(0, Math.ceil((at - (Number.isFinite(from) ? from : now)) / 1000));
}

/** A Retry-After bounded by the API's one-minute window. */
export const capRetryAfter = (seconds: number): number => Math.min(seconds, MAX_RETRY_AFTER_SECONDS);

export function errorCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError || errorCode(error) !== undefined;
}

export function describeFailure(error: unknown): string {
  if (error instanceof HTTPError) return `HTTP ${error.response.status}`;
  if (error instanceof TimeoutError) return 'timed out';
  return errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}

/** A request that failed before it reached the transport (it could not even be built): nothing was sent. */
export function notSent(error: unknown, label: string): CliError {
  // The message may quote the URL: any user:password@ in it is not shown.
  const why = (error instanceof Error ? error.message : String(error)).replace(
    /([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/gi,
    '$1***@',
  );
  return new CliError('REQUEST_NOT_SENT', `${label} could not be sent (${why}); nothing was sent`, EXIT.error, {
    hint: 'check --base-url / the profile; if they look right, this is a bug in schedctl: rerun with --debug and report it',
  });
}

/** What one try of a request did, as the HTTP layer saw it (client.ts keeps them, per request). */
export interface TryRecord {
  /** The request was written to a connection (it may have reached the server). */
  sent: boolean;
  /** How the try ended: `HTTP 503`, `ECONNRESET`, `timed out`, `ECONNREFUSED`. */
  outcome: string;
}

/**
 * The tries of one request in a few words, consecutive alike tries together:
 * `4 tries: try 1 sent, then ECONNRESET; tries 2-4 not connected (ECONNREFUSED)`.
 */
export function describeTries(tries: readonly TryRecord[]): string {
  const groups: Array<{ from: number; to: number; sent: boolean; outcome: string }> = [];
  tries.forEach((t, i) => {
    const last = groups.at(-1);
    if (last && last.sent === t.sent && last.outcome === t.outcome) last.to = i + 1;
    else groups.push({ from: i + 1, to: i + 1, sent: t.sent, outcome: t.outcome });
  });
  const parts = groups.map((g) => {
    const which = g.from === g.to ? `try ${g.from}` : `tries ${g.from}-${g.to}`;
    return g.sent ? `${which} sent, then ${g.outcome}` : `${which} not connected (${g.outcome})`;
  });
  return `${tries.length} ${tries.length === 1 ? 'try' : 'tries'}: ${parts.join('; ')}`;
}

/**
 * A failure of the transport (no HTTP answer) as one typed error. `tries` are the request's
 * tries so far, the failing one last: the message counts from them (a try sent and then reset is
 * never "nothing was sent"); without them, from the error alone.
 */
export function transportError(
  error: unknown,
  label: string,
  once: boolean,
  timeoutMs: number,
  tries: readonly TryRecord[] = [],
): Error {
  if (error instanceof ApiError || error instanceof BadResponseError || error instanceof NetworkError) return error;
  const anySent = tries.some((t) => t.sent);
  // More than one try, or one that is not what the error alone would suggest: say each.
  const counted = tries.length > 1 ? ` (${describeTries(tries)})` : '';
  const code = errorCode(error);
  if (!(error instanceof TimeoutError) && code && TLS_REFUSED.has(code)) {
    return new NetworkError(`the API's TLS certificate was not accepted for ${label} (${code}); nothing was sent`, {
      hint:
        code === 'ERR_TLS_CERT_ALTNAME_INVALID'
          ? 'the certificate is for another host name: check --base-url / the profile'
          : "if a TLS-inspecting proxy or a private CA signs it, set NODE_EXTRA_CA_CERTS to that CA's certificate file (PEM)",
    });
  }
  const tunnel = error instanceof TimeoutError ? undefined : tunnelFailure(error);
  if (tunnel) {
    // The proxy's host and port only (proxy-tunnel.ts): never the URL, which may carry a password.
    return new NetworkError(`could not reach the API for ${label}: ${tunnel.message}; nothing was sent`, {
      hint: tunnelHint(tunnel),
    });
  }
  if (!(error instanceof TimeoutError) && code && NOT_CONNECTED.has(code)) {
    const message = !anySent
      ? `could not reach the API for ${label} (${code}); nothing was sent${tries.length > 1 ? ` (${tries.length} tries, none connected)` : ''}`
      : `could not reach the API for ${label} (${code}) on its last try, after an earlier try was sent${counted}`;
    return new NetworkError(message, {
      hint: 'check --base-url / the profile, your network or proxy settings; for the local sandbox run `schedctl sandbox`',
    });
  }
  // Our transport knows whether each try's bytes were written: none were, so however the
  // connection failed (a reset before the write), the request never reached the server.
  if (once && tries.length > 0 && !anySent && !(error instanceof TimeoutError)) {
    return new NetworkError(
      `could not send ${label}: the connection failed (${code ?? describeFailure(error)}) before the request was written; nothing was sent${tries.length > 1 ? ` (${tries.length} tries, each on a new connection)` : ''}`,
      {
        hint: 'it is safe to run the same command again; if it keeps failing, check the network or proxy between here and the API',
      },
    );
  }
  const what =
    error instanceof TimeoutError
      ? `no response within ${timeoutMs / 1000} s`
      : `the connection failed (${code ?? describeFailure(error)})`;
  if (once) {
    return new OutcomeUnknownError(`${label}: ${what}; the request may have been processed`, {
      hint: 'do not repeat it blindly; check its result first',
    });
  }
  return new NetworkError(`${label}: ${what}${counted}`, { hint: 'try again, or raise --timeout' });
}

function tunnelHint(tunnel: TunnelFailure): string {
  if (tunnel.status === 407)
    return 'the proxy wants credentials, or refused the ones given: put them in the proxy URL (http://user:password@host:port) in HTTPS_PROXY / HTTP_PROXY';
  if (tunnel.status === 403)
    return 'the proxy does not allow connections to this address: ask its administrators, or exempt the API host with NO_PROXY if it is reachable directly';
  if (isTlsRefusal(tunnel.cause))
    return "the proxy's TLS certificate was not accepted: if a private CA signs it, set NODE_EXTRA_CA_CERTS to that CA's certificate file (PEM)";
  return 'check HTTPS_PROXY / HTTP_PROXY (and NO_PROXY), and that the proxy is up and can reach the API';
}

export async function errorFromResponse(
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
  const said = parseRetryAfter(response.headers.get('retry-after'), Date.now(), response.headers.get('date'));
  const retryAfter = said === undefined ? undefined : capRetryAfter(said);
  if (once && status >= 500) {
    const said = envelope?.success ? `${envelope.data.error.code}: ${envelope.data.error.message}` : `HTTP ${status}`;
    return new OutcomeUnknownError(`${label} failed with ${said}; the request may have been processed`, {
      hint: 'do not repeat it blindly; check its result first',
      lostBy: 'error_answer',
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
        ? {
            hint: `the API answered 429: try again in ${retryAfter ?? 60} s (the next schedctl run with this key waits for it by itself; the API counts requests per key and minute, every process of the key included)`,
          }
        : {}),
    });
  }
  const kind = isJson(response)
    ? 'a body that is not the API error envelope'
    : `${response.headers.get('content-type') ?? 'no content type'} (not the API's JSON; a proxy or gateway error page?)`;
  return new BadResponseError(`${label} failed with HTTP ${status} and ${kind}`, { status });
}
