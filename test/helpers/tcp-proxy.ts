/**
 * A plain TCP proxy on 127.0.0.1 for network-fault tests (e.g. between schedctl and PostgreSQL):
 * every connection it accepts is forwarded, byte for byte, to `target`. A test points the client
 * at the proxy's port instead of the server's and then breaks the path on purpose:
 *
 * - `cut()`: every open connection is reset at once, both sides (the client sees ECONNRESET or
 *   "Connection terminated unexpectedly"); new connections are still accepted and forwarded.
 * - `block('reset')` (the default): each new connection is accepted and reset at once, so a
 *   connect fails (as close to "connection refused" as a listening port can be); connections
 *   already open keep working (`cut()` as well for a full outage).
 * - `block('hang')`: a black-holed network. New connections are accepted and left silent (nothing
 *   read, nothing forwarded, no answer), and open connections go silent too: bytes stop moving in
 *   both directions (held, not dropped, as TCP would retransmit them). `unblock()` lets everything
 *   still open flow again and forwards the held new connections, as when a partition heals;
 *   a client that gave up meanwhile has closed its socket and is simply dropped.
 *
 * Not the HTTP proxies: test/helpers/connect-proxy.ts is an HTTP CONNECT proxy (HTTPS_PROXY
 * tests) and test/helpers/parallel-gate.ts an HTTP(S) gate in front of the sandbox; neither
 * carries a raw protocol such as PostgreSQL's.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export type BlockMode = 'reset' | 'hang';

export interface TcpProxy {
  readonly host: string;
  readonly port: number;
  /** Connections open now (forwarded or held). */
  readonly connections: number;
  /** Connections accepted since the start. */
  readonly accepted: number;
  /** Resets every open connection, both sides; keeps accepting (and forwarding, unless blocked). */
  cut(): void;
  /** See the module's comment: 'reset' (default) fails new connections, 'hang' black-holes everything. */
  block(mode?: BlockMode): void;
  unblock(): void;
  /** Stops listening and resets every connection. */
  close(): Promise<void>;
}

interface Link {
  client: Socket;
  upstream: Socket | undefined;
}

/** Destroys a socket with a TCP reset where Node can (resetAndDestroy), else a plain destroy. */
function reset(socket: Socket): void {
  if (socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}

export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
  const targetHost = target.host ?? '127.0.0.1';
  const links = new Set<Link>();
  let mode: BlockMode | undefined;
  let accepted = 0;

  const end = (link: Link) => {
    if (!links.delete(link)) return;
    reset(link.client);
    if (link.upstream) reset(link.upstream);
  };

  // One direction: what `from` reads goes to `to`, with backpressure, and stops while hung.
  const forward = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (!to.write(chunk)) from.pause();
    });
    to.on('drain', () => {
      if (mode !== 'hang') from.resume();
    });
  };

  const open = (link: Link) => {
    const upstream = connect(target.port, targetHost);
    link.upstream = upstream;
    upstream.on('error', () => end(link));
    // A side that closes cleanly ends the other one cleanly (its last bytes delivered first).
    upstream.on('close', () => {
      links.delete(link);
      link.client.end();
    });
    link.client.on('close', () => {
      links.delete(link);
      upstream.end();
    });
    forward(link.client, upstream);
    forward(upstream, link.client);
    link.client.resume();
  };

  const server = createServer({ pauseOnConnect: true }, (client) => {
    accepted++;
    const link: Link = { client, upstream: undefined };
    links.add(link);
    client.on('error', () => end(link));
    client.on('close', () => links.delete(link));
    if (mode === 'reset') return end(link);
    if (mode === 'hang') return; // held, paused: opened by unblock() if still there
    open(link);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    host: '127.0.0.1',
    port,
    get connections() {
      return links.size;
    },
    get accepted() {
      return accepted;
    },
    cut() {
      for (const link of [...links]) end(link);
    },
    block(m: BlockMode = 'reset') {
      mode = m;
      if (m === 'hang') {
        for (const { client, upstream } of links) {
          client.pause();
          upstream?.pause();
        }
      }
    },
    unblock() {
      const was = mode;
      mode = undefined;
      if (was !== 'hang') return;
      for (const link of [...links]) {
        if (!link.upstream) open(link);
        else {
          link.client.resume();
          link.upstream.resume();
        }
      }
    },
    async close() {
      for (const link of [...links]) end(link);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
