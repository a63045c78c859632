/**
 * A gate in front of the sandbox, for tests that need to steer *when* bytes move between
 * schedctl and the API: an HTTP or HTTPS (fixture certificate for `localhost`) proxy whose
 * requests can be held (a barrier releasing N parallel requests at once, or a step run
 * before one is forwarded), and whose new connections can be left silent. Over TLS a silent
 * connection never completes its handshake, so schedctl cannot write a request on it: the
 * deterministic "killed before the booking left the machine" (the transport marks an attempt
 * sent only once the connection, TLS included, is up).
 */
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';

export const TLS_CERT = join(import.meta.dirname, '../fixtures/tls-localhost.crt');
const TLS_KEY = join(import.meta.dirname, '../fixtures/tls-localhost.key');

export interface GateRequest {
  method: string;
  path: string;
  /** The request body as sent. */
  body: string;
}

export interface Gate {
  /** `https://localhost:<port>` with `tls`, else `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  /** New connections are accepted and then left silent (no TLS handshake, no answer). */
  silent: boolean;
  /** Answer with `connection: close`, so that every request opens a connection of its own. */
  closeEach: boolean;
  /** Awaited before a request is forwarded (the request waits); `'drop'`: never forwarded, its connection destroyed. */
  before: ((r: GateRequest) => unknown) | undefined;
  /** Called once a response has been forwarded. */
  after: ((r: GateRequest, status: number) => void) | undefined;
  /** Every request seen, in order of arrival. */
  readonly seen: GateRequest[];
  /** Connections accepted (silent ones included). */
  readonly connections: () => number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade']);

export async function startGate(target: string, options: { tls?: boolean } = {}): Promise<Gate> {
  const upstream = new URL(target);
  const silentSockets = new Set<Socket>();
  let accepted = 0;

  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const r: GateRequest = { method: req.method ?? 'GET', path: req.url ?? '/', body: body.toString('utf8') };
      gate.seen.push(r);
      void Promise.resolve(gate.before?.(r)).then((verdict) => {
        if (verdict === 'drop') {
          res.destroy();
          return;
        }
        const headers = { ...req.headers, host: upstream.host };
        const up = http.request(new URL(r.path, upstream), { method: r.method, headers }, (upRes) => {
          const out: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(upRes.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
          if (gate.closeEach) out.connection = 'close';
          res.writeHead(upRes.statusCode ?? 502, out);
          upRes.pipe(res);
          upRes.on('end', () => gate.after?.(r, upRes.statusCode ?? 0));
          upRes.on('error', () => res.destroy());
        });
        // The sandbox dropped the connection (drop-after-commit): so does the gate.
        up.on('error', () => res.destroy());
        up.end(body);
      });
    });
  };

  const app = options.tls
    ? https.createServer({ cert: readFileSync(TLS_CERT), key: readFileSync(TLS_KEY) }, handler)
    : http.createServer(handler);
  app.keepAliveTimeout = 1000;
  const front = createNetServer((socket) => {
    accepted++;
    socket.on('error', () => {});
    if (gate.silent) {
      silentSockets.add(socket);
      socket.on('close', () => silentSockets.delete(socket));
      return;
    }
    app.emit('connection', socket);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const { port } = front.address() as AddressInfo;

  const gate: Gate = {
    baseUrl: options.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    silent: false,
    closeEach: false,
    before: undefined,
    after: undefined,
    seen: [],
    connections: () => accepted,
    close: async () => {
      for (const s of silentSockets) s.destroy();
      app.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    },
  };
  return gate;
}

/**
 * Holds the first `n` requests that match until all `n` have arrived, then lets them go
 * together (and every later one straight through): parallel processes then do what follows
 * (their state-file read-modify-writes) at the same moment. Gives up waiting after `maxWaitMs`
 * so a run that never arrives fails the test's assertions instead of hanging it.
 */
export function barrier(
  n: number,
  matches: (r: GateRequest) => boolean,
  maxWaitMs = 20_000,
): (r: GateRequest) => Promise<void> {
  const waiting: Array<() => void> = [];
  let released = false;
  let timer: NodeJS.Timeout | undefined;
  const release = () => {
    released = true;
    if (timer) clearTimeout(timer);
    for (const go of waiting.splice(0)) go();
  };
  return (r) => {
    if (released || !matches(r)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      waiting.push(resolve);
      timer ??= setTimeout(release, maxWaitMs);
      if (waiting.length >= n) release();
    });
  };
}
