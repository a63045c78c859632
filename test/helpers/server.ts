/**
 * A tiny programmable HTTP server on 127.0.0.1 for tests of the HTTP layer against
 * broken and hostile servers; it records every request it receives.
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen, index: number) => void | Promise<void>;

export interface TestServerOptions {
  /** Called for each accepted connection (1-based); may destroy it before any request. */
  onConnection?: (socket: import('node:net').Socket, index: number) => void;
  /** Serve HTTPS with the self-signed certificate for "localhost" (and "api.schedctl.test") in test/fixtures (TLS_FIXTURE_CERT). */
  tls?: boolean;
}

/** The fixture certificate's file: self-signed, for the DNS names localhost and api.schedctl.test, valid until 2126. */
export const TLS_FIXTURE_CERT = join(import.meta.dirname, '../fixtures/tls-localhost.crt');

export async function startTestServer(handler: Handler, options: TestServerOptions = {}) {
  const seen: Seen[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let connections = 0;
  const listener: RequestListener = (req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      void handler(req, res, s, seen.length - 1);
    });
  };
  const server = options.tls
    ? createTlsServer(
        {
          cert: readFileSync(TLS_FIXTURE_CERT),
          key: readFileSync(join(import.meta.dirname, '../fixtures/tls-localhost.key')),
        },
        listener,
      )
    : createServer(listener);
  // For TLS, 'connection' is the TCP connection, before (and whatever becomes of) the handshake.
  server.on('connection', (s) => {
    connections += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    options.onConnection?.(s, connections);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: options.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    seen,
    /** TCP connections accepted so far. */
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export const TRIGGERS_BODY = {
  triggers: [
    {
      id: '3f0e5f1e-6a43-4d5c-9c1e-2b7a0c9d1e11',
      name: 'Demo request',
      description: 'Inbound demo form',
      fields: [{ name: 'email', label: 'Email', type: 'text', required: true, options: null }],
    },
  ],
};
