import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WARM_MS, WarmConnections, connectionKey, withWarmConnections } from '../../src/api/warm.js';

/** A limit for dropIdle's own tests (the transport now drops every idle one: dropAllIdle). */
const REUSE_UNREPEATABLE_MS = 1000;

let server: Server | undefined;
const accepted: Socket[] = [];
afterEach(async () => {
  for (const s of accepted.splice(0)) s.destroy();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function listen(): Promise<number> {
  server = createServer((s) => accepted.push(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

async function opened(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  return socket;
}

describe('connections opened ahead', () => {
  it('hands a fresh connection to the first request for its origin, once', async () => {
    const port = await listen();
    const warm = new WarmConnections();
    const lines: string[] = [];
    warm.log = (l) => lines.push(l);
    const socket = await opened(port);
    warm.hold(connectionKey('127.0.0.1', port), socket);
    expect(warm.take(connectionKey('127.0.0.1', String(port)))).toBe(socket);
    expect(warm.take(connectionKey('127.0.0.1', port))).toBeUndefined();
    expect(lines).toEqual([`using the connection opened ahead to 127.0.0.1:${port}`]);
    socket.destroy();
  });

  it('keeps it for its own origin when another origin asks', async () => {
    const port = await listen();
    const warm = new WarmConnections();
    const socket = await opened(port);
    warm.hold(connectionKey('127.0.0.1', port), socket);
    expect(warm.take(connectionKey('127.0.0.1', port + 1))).toBeUndefined();
    expect(warm.take(connectionKey('127.0.0.1', port))).toBe(socket);
    socket.destroy();
  });

  it(`drops one that waited more than ${WARM_MS} ms (a command that prompted first)`, async () => {
    const port = await listen();
    let now = 1_000_000;
    const warm = new WarmConnections(() => now);
    const lines: string[] = [];
    warm.log = (l) => lines.push(l);
    const socket = await opened(port);
    warm.hold(connectionKey('127.0.0.1', port), socket);
    now += WARM_MS + 1;
    expect(warm.take(connectionKey('127.0.0.1', port))).toBeUndefined();
    expect(socket.destroyed).toBe(true);
    expect(lines).toEqual([
      `not using the connection opened ahead to 127.0.0.1:${port} (idle ${WARM_MS + 1} ms): opening a new one`,
    ]);
  });

  it('drops one the server closed, and one that never connected, without an unhandled error', async () => {
    const port = await listen();
    const warm = new WarmConnections();
    const socket = await opened(port);
    warm.hold(connectionKey('127.0.0.1', port), socket);
    const closed = once(socket, 'close');
    while (accepted.length === 0) await new Promise((r) => setTimeout(r, 5));
    accepted[0]!.destroy();
    await closed;
    expect(warm.take(connectionKey('127.0.0.1', port))).toBeUndefined();

    // Nothing listens on the port after close: the refusal is absorbed, not thrown.
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    const refused = connect({ host: '127.0.0.1', port });
    warm.hold(connectionKey('127.0.0.1', port), refused);
    // (events.once would reject on the 'error' the holder absorbs.)
    await new Promise((r) => refused.on('close', r));
    expect(warm.take(connectionKey('127.0.0.1', port))).toBeUndefined();
  });

  it('names IPv6 origins without brackets, as the HTTP agent does', () => {
    expect(connectionKey('[::1]', 8080)).toBe('::1:8080');
    expect(connectionKey('::1', '8080')).toBe('::1:8080');
  });
});

describe('kept-alive connections and requests that must not be repeated', () => {
  /** An HTTP server that counts the connections it accepts, and a warm agent's GET to it. */
  async function httpServer() {
    const http = await import('node:http');
    const connections: Socket[] = [];
    const web = http.createServer((_req, res) => res.end('ok'));
    web.on('connection', (s: Socket) => connections.push(s));
    web.listen(0, '127.0.0.1');
    await once(web, 'listening');
    const { port } = web.address() as AddressInfo;
    const agent = new (withWarmConnections(http.Agent))({ keepAlive: true });
    const get = () =>
      new Promise<void>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, agent }, (res) => {
            res.resume();
            res.on('end', resolve);
          })
          .on('error', reject);
      });
    // The agent hands the socket back on the next tick after the response ends.
    const freed = () => new Promise<void>((r) => setImmediate(r));
    const close = () => {
      agent.destroy();
      web.closeAllConnections();
      return new Promise<void>((r) => web.close(() => r()));
    };
    return { agent, get, freed, connections, close };
  }

  it('keeps a connection idle for less than the limit (the steps of one command share it)', async () => {
    const s = await httpServer();
    try {
      await s.get();
      await s.freed();
      expect(s.agent.dropIdle(REUSE_UNREPEATABLE_MS)).toBe(0);
      await s.get();
      expect(s.connections).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it(`closes one idle for more than ${REUSE_UNREPEATABLE_MS} ms, so the next request opens its own`, async () => {
    const s = await httpServer();
    try {
      await s.get();
      await s.freed();
      const later = Date.now() + REUSE_UNREPEATABLE_MS + 1;
      expect(s.agent.dropIdle(REUSE_UNREPEATABLE_MS, later)).toBe(1);
      expect(Object.values(s.agent.freeSockets).flat()).toHaveLength(0);
      await s.get();
      expect(s.connections).toHaveLength(2);
    } finally {
      await s.close();
    }
  });

  it('dropAllIdle closes one idle for no time at all (issue 52 finding 9: a booking never rides a kept-alive one)', async () => {
    const s = await httpServer();
    try {
      await s.get();
      await s.freed();
      expect(s.agent.dropAllIdle()).toBe(1);
      await s.get();
      expect(s.connections).toHaveLength(2);
    } finally {
      await s.close();
    }
  });
});
