/**
 * The transport under ky: `fetch(request)` implemented on node:http/https.
 *
 * Why not Node's own fetch: on Node 20 the first fetch compiles undici's HTTP parser
 * (WebAssembly) and costs about 0.2 s and 40 MB per process, more than all of schedctl
 * besides; `npx` users and shell loops pay it on every run. ky keeps doing everything
 * above the wire (retries, timeouts, hooks, JSON); this only moves bytes. Behind a proxy
 * (HTTPS_PROXY/HTTP_PROXY) Node's fetch with undici's proxy agent is used instead.
 */
import * as http from 'node:http';
import { connect as netConnect, isIP } from 'node:net';
import { Readable } from 'node:stream';
import { beforeSend } from './send-hook.js';
import { connectionKey, withWarmConnections } from './warm.js';

type Https = typeof import('node:https');
type WarmAgent = http.Agent & { warm: import('./warm.js').WarmConnections };
interface Wire {
  request: typeof http.request;
  agent: WarmAgent;
  /** Opens a connection the way the agent would (TLS for https), for `preconnect`. */
  open(host: string, port: number): import('node:net').Socket;
}

// node:https (TLS and crypto) loads only for an https URL: against the sandbox on loopback
// it would be a sixth of the command's start.
let plain: Wire | undefined;
let secure: Promise<Wire> | undefined;
async function wireFor(protocol: 'http:' | 'https:'): Promise<Wire> {
  if (protocol === 'http:') {
    plain ??= {
      request: http.request,
      agent: new (withWarmConnections(http.Agent))({ keepAlive: true }),
      open: (host, port) => netConnect({ host, port }),
    };
    return plain;
  }
  secure ??= Promise.all([import('node:https'), import('node:tls')]).then(
    ([https, tls]: [Https, typeof import('node:tls')]) => ({
      request: https.request,
      agent: new (withWarmConnections(https.Agent))({ keepAlive: true }),
      // The same name check https.Agent makes: SNI and the certificate's name are the host's.
      open: (host, port) => tls.connect({ host, port, ...(isIP(host) ? {} : { servername: host }) }),
    }),
  );
  return secure;
}

/**
 * Starts connecting to the API now, while the rest of the HTTP layer loads; the first
 * request to that origin takes the connection if it is still fresh (see warm.ts).
 * Never fails: a connection that does not come up is simply not used.
 */
export async function preconnect(baseUrl: string, log?: (line: string) => void): Promise<void> {
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    const wire = await wireFor(url.protocol);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    wire.agent.warm.log = log;
    log?.(`connecting to ${connectionKey(host, port)} ahead of the first request`);
    wire.agent.warm.hold(connectionKey(host, port), wire.open(host, port));
  } catch {
    // The request will open its own connection and report what goes wrong.
  }
}

export async function nodeFetch(input: Request): Promise<Response> {
  const url = new URL(input.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`unsupported protocol ${url.protocol}`);
  const { signal } = input;
  const body = input.body ? Buffer.from(await input.arrayBuffer()) : undefined;
  signal.throwIfAborted();
  const headers: Record<string, string> = Object.fromEntries(input.headers);
  if (body) headers['content-length'] = String(body.length);
  const wire = await wireFor(url.protocol);
  signal.throwIfAborted();

  return new Promise<Response>((resolve, reject) => {
    const req = wire.request(url, { method: input.method, headers, agent: wire.agent }, (res) => {
      resolve(toResponse(res, input.method));
    });
    const onAbort = () => {
      req.destroy(signal.reason as Error);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // Shaped like fetch's own failure, so callers read the cause's code (ECONNREFUSED, ...).
    req.on('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
    req.on('close', () => {
      if (req.writableFinished && !signal.aborted) signal.removeEventListener('abort', onAbort);
    });
    // The request is written only once the connection is up (and TLS is established), after the
    // send hook (send-hook.ts) has recorded that it is about to leave.
    req.on('socket', (socket) => {
      const tls = socket as import('node:tls').TLSSocket;
      // getProtocol() names the version before the handshake ends on Node 20; no peer Finished message yet means it has not.
      const handshaking = typeof tls.getPeerFinished === 'function' && tls.getPeerFinished() === undefined;
      const send = () => {
        if (req.destroyed) return;
        beforeSend().then(
          () => req.end(body),
          (error: unknown) => req.destroy(error as Error),
        );
      };
      if (socket.connecting) socket.once(typeof tls.getProtocol === 'function' ? 'secureConnect' : 'connect', send);
      else if (handshaking) socket.once('secureConnect', send);
      else send();
    });
  });
}

function toResponse(res: http.IncomingMessage, method: string): Response {
  const status = res.statusCode ?? 0;
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const noBody = method === 'HEAD' || status === 204 || status === 304;
  if (noBody) res.resume();
  const body = noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: res.statusMessage ?? '', headers });
}
