/**
 * The sandbox HTTP server: `startSandbox(options)` in-process, or through
 * `schedctl sandbox` (see main.ts). Node's `http` only; no framework.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultBook } from './faults.js';
import { handleHook } from './hooks.js';
import { errorReply, readBody, send, serialise, type Reply } from './http.js';
import { RateLimiter } from './ratelimit.js';
import { handleV1, identifyKey } from './router.js';
import { Store } from './store.js';

// Not `import … from 'node:http'`: its ES module facade loads undici (its WebSocket getters),
// about 40 ms of CPU at the start of `schedctl sandbox` (transport.ts says the same).
const { createServer } = process.getBuiltinModule('node:http');
import type { FaultRule, RequestLogEntry, SandboxKeys } from './types.js';

export type * from './types.js';
export type { FaultInput } from './faults.js';

export interface SandboxOptions {
  host?: string;
  port?: number;
  seed?: number;
  holdSeconds?: number;
  /**
   * Offered slots start at least this many seconds from now (a scheduler's minimum notice; 0,
   * the default: any future start). Booking still only asks for a future start, so a client
   * that books the first slot offered never races the clock into NO_HOST_AVAILABLE.
   */
  slotNoticeSeconds?: number;
  /** Requests per minute per key; 0 turns the limit off. */
  rateLimit?: number;
  stateFile?: string;
  now?: () => Date;
  /**
   * Ids (meetings, reservations, executions) unique across starts: a random number of this start
   * mixed into the id generator, so a sandbox restarted without --state never hands out an id it
   * gave before (issue 52 finding 8). `schedctl sandbox` sets it unless --seed is given; off (the
   * seed's ids, start after start) where a test relies on them.
   */
  uniqueIds?: boolean;
}

export interface Sandbox {
  baseUrl: string;
  keys: SandboxKeys;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
export const isLoopbackHost = (host: string) => host === 'localhost' || LOOPBACK.has(host) || host.startsWith('127.');

const HTML_502 =
  '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><p>upstream error</p></body></html>';

// The schedulerUrl of a fired trigger points here, so it is never a dead link; booking itself is API-only.
const bookingPage = (name: string) =>
  `<!DOCTYPE html><html><head><title>${name}</title></head><body><h1>${name}</h1><p>schedctl sandbox booking page: book through the API (slots, then meetings).</p></body></html>`;

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

/**
 * A `delay` fault's wait: ends after `ms`, or at once when a test lets every held request go
 * (`POST /_sandbox/faults/release`: `release` holds the resolvers of the waits in progress).
 */
const sleep = (ms: number, timers: Set<NodeJS.Timeout>, release: Set<() => void>) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      timers.delete(timer);
      release.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timers.add(timer);
    release.add(done);
  });

/** Ends every `delay` in progress; how many there were. */
function releaseAll(held: Set<() => void>): number {
  const waits = [...held];
  for (const done of waits) done();
  return waits.length;
}

function faultReply(rule: FaultRule): Reply {
  const status = rule.status ?? 500;
  const headers: Record<string, string> = status === 429 ? { 'retry-after': String(rule.retryAfter ?? 1) } : {};
  return errorReply(
    status,
    rule.code ?? 'INTERNAL_ERROR',
    `Injected fault: ${rule.code ?? 'INTERNAL_ERROR'}.`,
    undefined,
    headers,
  );
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const store = new Store({
    seed: options.seed ?? 1,
    holdSeconds: options.holdSeconds ?? 600,
    slotNoticeSeconds: options.slotNoticeSeconds ?? 0,
    now: options.now ?? (() => new Date()),
    stateFile: options.stateFile,
    uniqueIds: options.uniqueIds === true,
  });
  const faults = new FaultBook();
  const limiter = new RateLimiter(options.rateLimit ?? 30);
  const stalled = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  const held = new Set<() => void>();
  let closing = false;
  let baseUrl = '';

  async function serveV1(req: IncomingMessage, res: ServerResponse, url: URL, rawBody: string | null): Promise<void> {
    const method = req.method ?? 'GET';
    const entry: RequestLogEntry = {
      method,
      path: url.pathname,
      status: null,
      key: identifyKey(store, req.headers.authorization),
    };
    store.requests.push(entry);
    const rule = faults.take(method, url.pathname);
    if (rule) entry.fault = rule.fault;
    if (rule?.fault === 'status') {
      const reply = faultReply(rule);
      entry.status = reply.status;
      return send(res, reply);
    }
    if (rule?.fault === 'html') {
      entry.status = 502;
      return sendHtml(res, 502, HTML_502);
    }
    // `delay` then works even if the client has gone away: the lost-response case.
    if (rule?.fault === 'delay') {
      await sleep(rule.delayMs ?? 2000, timers, held);
      stampDate(res);
    }
    if (closing) return void res.destroy();
    const reply = handleV1(store, limiter, { method, url, authorization: req.headers.authorization, rawBody, baseUrl });
    entry.status = reply.status;
    if (rule?.fault === 'drop-after-commit') return void res.socket?.destroy();
    if (rule?.fault === 'stall-after-commit') {
      stalled.add(res);
      res.on('close', () => stalled.delete(res));
      return;
    }
    if (rule?.fault === 'truncate') {
      const text = serialise(reply);
      return send(res, reply, text.slice(0, Math.max(1, Math.floor(text.length / 2))));
    }
    send(res, reply);
  }

  /**
   * The Date header comes from the sandbox's own clock (which /_sandbox/clock moves), as a real
   * server's comes from its clock: clients measure the server's time with it (holds, countdowns).
   */
  function stampDate(res: ServerResponse): void {
    if (!res.headersSent) res.setHeader('date', store.now().toUTCString());
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stampDate(res);
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const rawBody = await readBody(req);
    if (url.pathname.startsWith('/_sandbox/')) {
      // Hooks answer loopback peers only; anyone else sees an ordinary 404.
      if (!LOOPBACK.has(req.socket.remoteAddress ?? ''))
        return send(res, errorReply(404, 'NOT_FOUND', `No route for ${req.method} ${url.pathname}.`));
      return send(
        res,
        handleHook(
          { store, faults, limiter, releaseDelays: () => releaseAll(held) },
          req.method ?? 'GET',
          url.pathname,
          rawBody,
        ),
      );
    }
    if (url.pathname === '/v1' || url.pathname.startsWith('/v1/')) return serveV1(req, res, url, rawBody);
    const page = /^\/book\/([^/]+)$/.exec(url.pathname);
    const link = page && req.method === 'GET' ? store.workspace.links.find((l) => l.slug === page[1]) : undefined;
    if (link) return sendHtml(res, 200, bookingPage(link.name));
    send(res, errorReply(404, 'NOT_FOUND', `No route for ${req.method} ${url.pathname}; API paths begin with /v1.`));
  }

  const server = createServer((req, res) => {
    serve(req, res).catch((err: unknown) => {
      send(res, errorReply(500, 'INTERNAL_ERROR', `Sandbox error: ${(err as Error).message}`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // A wildcard bind is still reached through loopback from this machine.
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  baseUrl = `http://${urlHost}:${port}`;

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      closing = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      held.clear();
      for (const res of stalled) res.destroy();
      stalled.clear();
      store.commit();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  };
  return { baseUrl, keys: { ...store.workspace.keys }, close };
}
