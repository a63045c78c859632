/**
 * A forward proxy on 127.0.0.1 for tests of HTTPS_PROXY/HTTP_PROXY: it tunnels CONNECT
 * requests (the only kind schedctl sends) and records each one's target and
 * Proxy-Authorization. It can demand credentials (407 without the right ones) or refuse
 * every tunnel with a given status. It logs everything it could read: the bytes a client
 * sends through each tunnel and any plain forward request (`saw`), so a test can check that
 * no key ever crossed it in clear.
 *
 * Loopback is never proxied (src/api/transport.ts), so a proxied test API needs another name:
 * a `*.test` host (reserved, RFC 2606: it never resolves) is tunnelled to 127.0.0.1. The TLS
 * fixture's certificate names `api.schedctl.test` (`PROXIED_HOST`).
 */
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ConnectProxyOptions {
  /** `user:password`: a CONNECT without them as Basic Proxy-Authorization is answered 407. */
  credentials?: string;
  /** Answer every CONNECT with this status (and a small HTML page) instead of tunnelling. */
  refuse?: number;
}

/** The API's name through the proxy: not loopback, tunnelled to 127.0.0.1, in the TLS fixture. */
export const PROXIED_HOST = 'api.schedctl.test';

/** A test server's URL (on 127.0.0.1 or localhost) under PROXIED_HOST, so that it goes through a proxy. */
export const viaProxiedName = (baseUrl: string): string =>
  baseUrl.replace(/\/\/(127\.0\.0\.1|localhost):/, `//${PROXIED_HOST}:`);

export interface ConnectRecord {
  target: string;
  proxyAuthorization: string | undefined;
}

export async function startConnectProxy(options: ConnectProxyOptions = {}) {
  const connects: ConnectRecord[] = [];
  // Everything readable: tunnel bytes from clients, and plain forward requests (head and headers).
  const seen: Buffer[] = [];
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  };
  const proxy = createServer((req, res) => {
    seen.push(Buffer.from(`${req.method} ${req.url}\n${JSON.stringify(req.headers)}\n`));
    res.writeHead(501);
    res.end();
  });
  proxy.on('connect', (req: IncomingMessage, client: Socket) => {
    track(client);
    const proxyAuthorization = req.headers['proxy-authorization'];
    connects.push({ target: req.url ?? '', proxyAuthorization });
    const refuse = (status: number, reason: string, extra = '') => {
      const page = `<html><body>${reason}</body></html>`;
      client.end(
        `HTTP/1.1 ${status} ${reason}\r\n${extra}content-type: text/html\r\ncontent-length: ${page.length}\r\n\r\n${page}`,
      );
    };
    if (options.refuse !== undefined)
      return refuse(options.refuse, options.refuse === 407 ? 'Proxy Authentication Required' : 'Refused');
    const expected = options.credentials && `Basic ${Buffer.from(options.credentials).toString('base64')}`;
    if (expected && proxyAuthorization !== expected) {
      return refuse(407, 'Proxy Authentication Required', 'proxy-authenticate: Basic realm="test"\r\n');
    }
    const [host = '', port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host.endsWith('.test') ? '127.0.0.1' : host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.on('data', (chunk: Buffer) => seen.push(Buffer.from(chunk)));
      client.pipe(upstream);
    });
    track(upstream);
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const { port } = proxy.address() as AddressInfo;
  return {
    /** `http://127.0.0.1:<port>`; `withCredentials` puts `user:password@` in it. */
    url: (withCredentials?: string) => `http://${withCredentials ? `${withCredentials}@` : ''}127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    connects,
    /** Whether `text` appeared in anything the proxy could read (tunnel bytes, forward requests). */
    saw: (text: string) => Buffer.concat(seen).includes(text),
    /** Bytes the proxy could read, in all. */
    bytesSeen: () => seen.reduce((n, b) => n + b.length, 0),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => proxy.close(() => r()));
    },
  };
}

/** An address nothing listens on (a port that was free a moment ago). */
export async function closedAddress(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((r) => probe.close(() => r()));
  return `127.0.0.1:${port}`;
}
