/**
 * The /v1 pipeline: auth, then rate limit, then route and scope, then the handler.
 * Entirely synchronous once the body has been read.
 */
import type { Scope } from '../api/schemas.js';
import { ApiFailure, errorReply, failureReply, parseJson, type Reply } from './http.js';
import type { HandlerContext } from './handlers/context.js';
import { getEvent, listEvents } from './handlers/events.js';
import { bookMeeting, rescheduleMeeting } from './handlers/meetings.js';
import { postSlots } from './handlers/slots.js';
import { fireTrigger, listTriggers } from './handlers/triggers.js';
import type { RateLimiter } from './ratelimit.js';
import type { Store } from './store.js';
import type { KeyName } from './types.js';

interface Route {
  method: string;
  segments: string[];
  scope: Scope;
  handler: (ctx: HandlerContext) => Reply;
}

const route = (method: string, path: string, scope: Scope, handler: Route['handler']): Route => ({
  method,
  segments: path.split('/').filter(Boolean),
  scope,
  handler,
});

// The spec leaves the trigger scopes open; read for listing, write for firing.
const ROUTES: Route[] = [
  route('GET', '/v1/triggers', 'triggers:read', listTriggers),
  route('POST', '/v1/triggers/:trigger', 'triggers:write', fireTrigger),
  route('GET', '/v1/scheduling/events', 'scheduling:read', listEvents),
  route('GET', '/v1/scheduling/events/:event', 'scheduling:read', getEvent),
  route('POST', '/v1/scheduling/events/:event/slots', 'scheduling:read', postSlots),
  route('POST', '/v1/scheduling/meetings', 'scheduling:write', bookMeeting),
  route('PATCH', '/v1/scheduling/meetings/:meetingId', 'scheduling:write', rescheduleMeeting),
];

export const KEY_SCOPES: Record<KeyName, Scope[]> = {
  full: ['scheduling:read', 'scheduling:write', 'triggers:read', 'triggers:write'],
  readOnly: ['scheduling:read', 'triggers:read'],
  revoked: [],
};

/** A write permission also satisfies read for its surface. */
export function hasScope(granted: Scope[], needed: Scope): boolean {
  return (
    granted.includes(needed) ||
    (needed.endsWith(':read') && granted.includes(needed.replace(':read', ':write') as Scope))
  );
}

function match(segments: string[], pattern: string[]): Record<string, string> | undefined {
  if (segments.length !== pattern.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, p] of pattern.entries()) {
    const s = segments[i] ?? '';
    if (p.startsWith(':')) params[p.slice(1)] = s;
    else if (p !== s) return undefined;
  }
  return params;
}

export interface V1Request {
  method: string;
  url: URL;
  authorization: string | undefined;
  rawBody: string | null;
  baseUrl: string;
}

/**
 * Identifies the demo key a request carries (a rotated key: the demo key whose scopes it has);
 * `null` for a missing, malformed or unknown key.
 */
export function identifyKey(store: Store, authorization: string | undefined): KeyName | null {
  const m = /^Bearer (\S+)$/.exec(authorization ?? '');
  if (!m) return null;
  const entry = Object.entries(store.workspace.keys).find(([, value]) => value === m[1]);
  return entry ? (entry[0] as KeyName) : (store.rotatedKeys.get(m[1] ?? '') ?? null);
}

/** The rate limit counts per key (the spec: per API key): a rotated key has a window of its own. */
function limiterKey(store: Store, authorization: string | undefined, key: KeyName): string {
  const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1] ?? '';
  return store.rotatedKeys.has(token) ? token : key;
}

export function handleV1(store: Store, limiter: RateLimiter, req: V1Request): Reply {
  const key = identifyKey(store, req.authorization);
  if (key === null || key === 'revoked') {
    const why = key === 'revoked' ? 'This API key has been revoked.' : 'Missing, malformed or unknown API key.';
    return errorReply(401, 'INVALID_API_KEY', `${why} Send Authorization: Bearer <API_KEY>.`);
  }
  const retryAfter = limiter.take(limiterKey(store, req.authorization, key), store.nowMs());
  if (retryAfter !== undefined) {
    return errorReply(
      429,
      'RATE_LIMITED',
      `Rate limit of ${limiter.perMinute} requests per minute exceeded; retry in ${retryAfter}s.`,
      undefined,
      { 'retry-after': String(retryAfter) },
    );
  }
  let segments: string[];
  try {
    segments = req.url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    segments = [];
  }
  let found: { route: Route; params: Record<string, string> } | undefined;
  for (const r of ROUTES) {
    const params = r.method === req.method ? match(segments, r.segments) : undefined;
    if (params) found = { route: r, params };
  }
  // A wrong method is answered like an unknown route: 404 keeps every error inside the spec's code list.
  if (!found) return errorReply(404, 'NOT_FOUND', `No route for ${req.method} ${req.url.pathname}.`);
  if (!hasScope(KEY_SCOPES[key], found.route.scope)) {
    return errorReply(403, 'MISSING_SCOPE', `This API key lacks the ${found.route.scope} scope.`);
  }
  try {
    if (req.rawBody === null)
      throw new ApiFailure(400, 'INVALID_REQUEST', 'The request body exceeds 1 MiB.', ['(body): too large']);
    const raw = req.rawBody;
    const ctx: HandlerContext = {
      store,
      params: found.params,
      query: req.url.searchParams,
      json: () => parseJson(raw),
      baseUrl: req.baseUrl,
    };
    return found.route.handler(ctx);
  } catch (err) {
    if (err instanceof ApiFailure) return failureReply(err);
    return errorReply(500, 'INTERNAL_ERROR', `Sandbox error: ${(err as Error).message}`);
  }
}
