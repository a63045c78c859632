/**
 * The transport under ky: `fetch(request)` implemented on node:http/https.
 *
 * Why not Node's own fetch: on Node 20 the first fetch compiles undici's HTTP parser
 * (WebAssembly) and costs about 0.2 s and 40 MB per process, more than all of schedctl
 * besides; `npx` users and shell loops pay it on every run. ky keeps doing everything
 * above the wire (retries, timeouts, hooks, JSON); this only moves bytes.
 *
 * Proxies: Node's http ignores HTTPS_PROXY/HTTP_PROXY/NO_PROXY, so this transport honors
 * them itself, per request URL (`proxyFor`, with proxy-from-env's rules), except that loopback
 * (localhost, 127.0.0.0/8, ::1) is always reached directly, as Go's net/http does.
 * A key never travels in clear: plain http:// goes only to loopback, and never through a proxy. A proxied request
 * goes through a CONNECT tunnel (proxy-tunnel.ts, https-proxy-agent: one keep-alive agent per
 * proxy URL, loaded only when a proxy is used), TLS to the API over it for https://, the plain
 * socket for http://; everything else (send hook, abort, response) is the same path as a
 * direct request. NODE_EXTRA_CA_CERTS needs nothing: Node adds those certificates to its
 * trust store at start, and tls.connect uses it (for the API over the tunnel and for an
 * https:// proxy alike).
 */
import type * as Http from 'node:http';
import { connect as netConnect, isIP } from 'node:net';
import { Readable } from 'node:stream';
import { getProxyForUrl } from 'proxy-from-env';
import { ConfigError, EXIT, UsageError } from '../errors.js';
import { beforeSend, isUnrepeatable } from './send-hook.js';
import { connectionKey, withWarmConnections } from './warm.js';

type Https = typeof import('node:https');
// node:http through getBuiltinModule, not `import`: the ES module facade of node:http reads every
// export, and its WebSocket/MessageEvent getters load undici, about 40 ms of CPU at every start
// (a command that sends nothing paid it too).
const http = process.getBuiltinModule('node:http');
type WarmAgent = Http.Agent & {
  warm: import('./warm.js').WarmConnections;
  dropIdle(maxIdleMs: number, now?: number): number;
  dropAllIdle(): number;
};
interface Wire {
  request: typeof Http.request;
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

/** The variables that may name a proxy for a URL of `protocol`, in the order they are read. */
const proxyVariables = (protocol: string) =>
  (protocol === 'https:' ? ['https_proxy', 'all_proxy', 'http_proxy'] : ['http_proxy', 'all_proxy']).flatMap((v) => [
    v,
    v.toUpperCase(),
  ]);

/**
 * The proxy a request to `target` goes through, or undefined for a direct connection:
 * HTTPS_PROXY for an https:// URL, HTTP_PROXY for http://, ALL_PROXY for either, unless
 * NO_PROXY exempts the host (each in lower or upper case, lower first; proxy-from-env's
 * rules). Like undici's EnvHttpProxyAgent, which served proxies before, an https:// URL
 * without HTTPS_PROXY/ALL_PROXY goes through HTTP_PROXY. A proxy URL schedctl cannot use is
 * a usage error naming its variable but not its value, which may hold a password.
 */
export function proxyFor(target: string | URL): URL | undefined {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined; // the request itself reports a bad URL
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // Whatever the variables say (Go's net/http, curl's default NO_PROXY habits, browsers): a proxy
  // cannot reach this machine's loopback, and would see a plain http:// request in clear.
  if (isLoopbackHost(url.hostname)) return undefined;
  // NO_PROXY is judged on the same host and port for the HTTP_PROXY fallback.
  const found =
    getProxyForUrl(url) ||
    (url.protocol === 'https:' ? getProxyForUrl(`http://${url.hostname}:${url.port || 443}/`) : '');
  if (!found) return undefined;
  let proxy: URL | undefined;
  try {
    proxy = new URL(found);
  } catch {
    proxy = undefined;
  }
  if (!proxy || (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') || !proxy.hostname) {
    const variable = proxyVariables(url.protocol).find((v) => process.env[v]) ?? 'HTTPS_PROXY';
    throw new UsageError(`invalid ${variable}: not a proxy URL schedctl can use`, {
      hint: `set it to http://host:port (or http://user:password@host:port, or https://…); SOCKS proxies are not supported`,
    });
  }
  return proxy;
}

/**
 * localhost, 127.0.0.0/8 and ::1 (also as an IPv4-mapped address), as a URL's hostname
 * writes them (IPv6 in brackets). Like Go's net/http, `*.localhost` names are not included:
 * they resolve by DNS like any other.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  const v4 = /^(?:::ffff:)?(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.exec(host);
  if (v4) return v4[1] === '127';
  // The WHATWG URL parser writes an IPv4-mapped loopback as ::ffff:7f00:1 and ::1 fully expanded as ::1.
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host);
}

/**
 * The last word before a request with the key leaves: never in clear text to a host that is not
 * loopback, nor to any host through a proxy (it would read the key). The base URL's check
 * (config/target.ts) refuses such a URL first; this holds whatever path a URL took. Exit 2:
 * nothing was sent, and what must change is the input (the URL), not the server.
 */
export function refuseCleartextKey(url: URL, proxy: URL | undefined, headers: Record<string, string>): void {
  if (url.protocol !== 'http:' || !headers.authorization) return;
  if (!proxy && isLoopbackHost(url.hostname)) return;
  const via = proxy ? ` through the proxy ${proxy.host}` : '';
  throw new ConfigError(
    'INSECURE_BASE_URL',
    `refusing to send the API key over plain http:// to ${url.host}${via}: it would travel unencrypted; nothing was sent`,
    { hint: 'use https://, or http:// only for a sandbox on 127.0.0.1/localhost', exitCode: EXIT.usage },
  );
}

/**
 * What the proxy's URL could show of its credentials, for the secrets redacted from every
 * message (report.ts) and --debug line. No message of schedctl's names more than the proxy's
 * host and port; this is the net under that. The whole `user:password@host:port` first (its
 * mask shows only the end of the port or host), then the password alone, as written in the
 * URL and decoded.
 */
export function proxySecrets(proxy: URL): string[] {
  if (!proxy.username && !proxy.password) return [];
  let password = proxy.password;
  try {
    password = decodeURIComponent(password);
  } catch {
    // Not percent-encoding after all: the password is as written.
  }
  return [`${proxy.username}:${proxy.password}@${proxy.host}`, proxy.password, password].filter(Boolean);
}

// One agent per proxy URL (like the one `plain` and `secure` wire): its tunnels are kept
// alive and reused by the requests that follow.
const tunnels = new Map<string, Promise<Http.Agent>>();
function tunnelAgentFor(proxy: URL): Promise<Http.Agent> {
  let agent = tunnels.get(proxy.href);
  if (!agent) {
    agent = import('./proxy-tunnel.js').then(({ ProxyTunnelAgent }) => new ProxyTunnelAgent(proxy));
    tunnels.set(proxy.href, agent);
  }
  return agent;
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

/** What one try did on the wire: its connection came up; the request was written to it. */
export interface WireTry {
  connected: boolean;
  sent: boolean;
}
const wireTries = new WeakMap<Request, WireTry>();
/**
 * What the try of `request` (the object given to nodeFetch) did on the wire, for the HTTP layer's
 * count of requests sent and its messages; undefined for a request this transport never saw.
 */
export const wireTry = (request: Request): WireTry | undefined => wireTries.get(request);

export async function nodeFetch(input: Request): Promise<Response> {
  const onWire: WireTry = { connected: false, sent: false };
  wireTries.set(input, onWire);
  const url = new URL(input.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`unsupported protocol ${url.protocol}`);
  const { signal } = input;
  const body = input.body ? Buffer.from(await input.arrayBuffer()) : undefined;
  signal.throwIfAborted();
  const headers: Record<string, string> = Object.fromEntries(input.headers);
  if (body) headers['content-length'] = String(body.length);
  const proxy = proxyFor(url);
  refuseCleartextKey(url, proxy, headers);
  const wire = await wireFor(url.protocol);
  // For an https:// URL through a proxy, wire.request is https.request all the same: the
  // tunnel agent (agent-base) tells http from https by it.
  const agent = proxy ? await tunnelAgentFor(proxy) : wire.agent;
  signal.throwIfAborted();
  if (!proxy && isUnrepeatable()) {
    wire.agent.warm.discard('a request that must not be repeated gets a connection of its own');
    // Nor any kept-alive one, however briefly idle: a server may close it right after its last
    // answer (issue 52 finding 9), and a booking written into it could not tell that reset from a
    // lost answer. A fresh connection's failure before the bytes are written is "nothing was sent".
    wire.agent.dropAllIdle();
  }

  return new Promise<Response>((resolve, reject) => {
    const req = wire.request(url, { method: input.method, headers, agent }, (res) => {
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
    // send hook (send-hook.ts) has recorded that it is about to leave. Through a proxy the agent
    // (agent-base) hands the request its socket only once the tunnel is open: the proxy answered
    // CONNECT with 200 (a refusal fails the request before it has a socket, proxy-tunnel.ts), and
    // for https:// the socket is the TLS one over the tunnel, still handshaking, so the waits
    // below hold for it as for a direct connection. A failure before this point never sent
    // anything, and failures.ts says so.
    req.on('socket', (socket) => {
      const tls = socket as import('node:tls').TLSSocket;
      // getProtocol() names the version before the handshake ends on Node 20; no peer Finished message yet means it has not.
      const handshaking = typeof tls.getPeerFinished === 'function' && tls.getPeerFinished() === undefined;
      const send = () => {
        if (req.destroyed) return;
        onWire.connected = true;
        beforeSend().then(
          () => {
            // The connection failed while the send hook ran (the request has already failed with
            // that error): its bytes never left, and the try stays "not sent".
            if (req.destroyed) return;
            onWire.sent = true;
            req.end(body);
          },
          (error: unknown) => req.destroy(error as Error),
        );
      };
      if (socket.connecting) socket.once(typeof tls.getProtocol === 'function' ? 'secureConnect' : 'connect', send);
      else if (handshaking) socket.once('secureConnect', send);
      else send();
    });
  });
}

function toResponse(res: Http.IncomingMessage, method: string): Response {
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
