import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSecret, runCli, show } from '../helpers/cli.js';
import {
  sendJson,
  startTestServer,
  TLS_FIXTURE_CERT,
  TRIGGERS_BODY,
  type Handler,
  type TestServerOptions,
} from '../helpers/server.js';

const KEY = 'sk_test_httplayer_abcdef123456';
registerSecret(KEY);

let servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function server(handler: Handler, options?: TestServerOptions) {
  const s = await startTestServer(handler, options);
  servers.push(s);
  return s;
}

function cli(baseUrl: string, args: string[], env: Record<string, string> = {}) {
  return runCli([...args, '--base-url', baseUrl], { env: { SCHEDCTL_API_KEY: KEY, ...env } });
}

const envelope = (code: string, message = 'nope', details?: string[]) => ({
  error: { code, message, ...(details ? { details } : {}) },
});

describe('the HTTP layer', () => {
  it('sends the bearer key and JSON, and prints the body', async () => {
    const s = await server((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
    const r = await cli(s.baseUrl, ['api', 'GET', '/v1/triggers']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toEqual(TRIGGERS_BODY);
    expect(s.seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(s.seen[0]!.headers.accept).toBe('application/json');
  });

  it('waits Retry-After on 429 and then succeeds', async () => {
    const s = await server((_req, res, _seen, i) =>
      i === 0
        ? sendJson(res, 429, envelope('RATE_LIMITED', 'slow down'), { 'retry-after': '1' })
        : sendJson(res, 200, TRIGGERS_BODY),
    );
    const started = Date.now();
    const r = await cli(s.baseUrl, ['api', 'GET', '/v1/triggers']);
    expect(r.code, show(r)).toBe(0);
    expect(s.seen).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(r.stderr).toContain('rate limited');
  });

  it('retries a 429 even for a booking (the server did not act)', async () => {
    const s = await server((_req, res, _seen, i) =>
      i === 0 ? sendJson(res, 429, envelope('RATE_LIMITED'), { 'retry-after': '0' }) : sendJson(res, 201, { ok: true }),
    );
    const r = await cli(s.baseUrl, ['api', 'POST', '/v1/scheduling/meetings', '--data', '{}']);
    expect(r.code, show(r)).toBe(0);
    expect(s.seen).toHaveLength(2);
  });

  it('gives up with exit 6 when Retry-After exceeds the wait budget, or is nonsense', async () => {
    for (const retryAfter of ['100000', '-5', 'soon']) {
      const s = await server((_req, res) =>
        sendJson(res, 429, envelope('RATE_LIMITED', 'slow down'), { 'retry-after': retryAfter }),
      );
      const r = await cli(s.baseUrl, ['api', 'GET', '/v1/triggers', '--json']);
      if (retryAfter === '100000') {
        expect(r.code, show(r)).toBe(6);
        expect(s.seen).toHaveLength(1);
        expect(r.json()).toMatchObject({ error: { code: 'RATE_LIMITED', status: 429 } });
      } else {
        // Unusable Retry-After values fall back to a short backoff, still bounded.
        expect(r.code, show(r)).toBe(6);
        expect(s.seen.length).toBeGreaterThan(1);
      }
    }
  }, 120_000);

  it('retries a GET on 5xx with backoff', async () => {
    const s = await server((_req, res, _seen, i) =>
      i < 2 ? sendJson(res, 503, envelope('INTERNAL_ERROR')) : sendJson(res, 200, TRIGGERS_BODY),
    );
    const r = await cli(s.baseUrl, ['api', 'GET', '/v1/triggers', '--debug']);
    expect(r.code, show(r)).toBe(0);
    expect(s.seen).toHaveLength(3);
    expect(r.stderr).toContain('retrying');
  });

  it('never retries a booking or a trigger fire after a timeout: exit 7, one request seen', async () => {
    for (const path of ['/v1/scheduling/meetings', '/v1/triggers/3f0e5f1e-6a43-4d5c-9c1e-2b7a0c9d1e11']) {
      const s = await server(() => undefined); // accepts, never answers
      const r = await cli(s.baseUrl, ['api', 'POST', path, '--data', '{}', '--timeout', '1', '--json']);
      expect(r.code, show(r)).toBe(7);
      expect(r.json()).toMatchObject({ error: { code: 'OUTCOME_UNKNOWN' } });
      expect(r.json().error.message).toContain('may have been processed');
      expect(s.seen).toHaveLength(1);
    }
  });

  it('never retries a booking after a dropped connection or a 500: exit 7', async () => {
    const drop = await server((req) => {
      req.socket.destroy();
    });
    const a = await cli(drop.baseUrl, ['api', 'POST', '/v1/scheduling/meetings', '--data', '{}']);
    expect(a.code, show(a)).toBe(7);
    expect(drop.seen).toHaveLength(1);
    const fail = await server((_req, res) => sendJson(res, 500, envelope('INTERNAL_ERROR', 'boom')));
    const b = await cli(fail.baseUrl, ['api', 'POST', '/v1/scheduling/meetings', '--data', '{}']);
    expect(b.code, show(b)).toBe(7);
    expect(fail.seen).toHaveLength(1);
  });

  // One code of each exit code (a refused key's own words too); every code of the spec, with its
  // exit code and error document, is in test/unit/api-error-exits.test.ts.
  it.each([
    ['INVALID_REQUEST', 400, 2],
    ['INVALID_API_KEY', 401, 3],
    ['MISSING_SCOPE', 403, 3],
    ['NOT_FOUND', 404, 4],
    ['SLOT_TAKEN', 409, 5],
    ['INTERNAL_ERROR', 500, 1],
  ])(
    'maps %s (HTTP %i) to exit %i with the error envelope',
    async (code, status, exit) => {
      const s = await server((_req, res) =>
        sendJson(res, status, envelope(code, `the ${code} message`, ['field: reason'])),
      );
      const r = await cli(s.baseUrl, ['api', 'GET', '/v1/triggers', '--json', '--timeout', '2']);
      expect(r.code, show(r)).toBe(exit);
      const human = await cli(s.baseUrl, ['api', 'GET', '/v1/triggers', '--timeout', '2']);
      if (code === 'INVALID_API_KEY') {
        // A refused key names where the key came from and what to do; the server's words are a detail.
        expect(r.json().error).toMatchObject({
          code,
          status,
          details: ['field: reason', `the server said: the ${code} message`],
        });
        expect(r.json().error.message).toContain('refused the key in SCHEDCTL_API_KEY');
        expect(human.stderr).toContain(
          `refused the key in SCHEDCTL_API_KEY (missing, mistyped or revoked) (${code}, HTTP ${status})`,
        );
      } else {
        expect(r.json()).toEqual({
          error: { code, message: `the ${code} message`, details: ['field: reason'], status },
        });
        expect(human.stderr).toContain(`error: the ${code} message (${code}, HTTP ${status})`);
      }
      expect(human.stderr).toContain('  - field: reason');
      expect(human.stderr).not.toMatch(/\n\s+at /);
    },
    60_000,
  );

  it('logs requests with --debug, the key redacted', async () => {
    const s = await server((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
    const r = await cli(s.baseUrl, ['api', 'GET', '/v1/triggers', '--debug']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toMatch(/debug: → GET \/v1\/triggers/);
    expect(r.stderr).toMatch(/debug: ← 200 GET \/v1\/triggers \(\d+ ms\)/);
  });

  it('reports an HTML error page, a truncated body and a wrong content type clearly (exit 1)', async () => {
    const html = await server((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body>Bad gateway</body></html>');
    });
    const a = await cli(html.baseUrl, ['api', 'GET', '/v1/triggers', '--json']);
    expect(a.code, show(a)).toBe(1);
    expect(a.json().error.message).toContain('HTTP 502');
    expect(a.json().error.message).toContain('text/html');

    const cut = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"triggers":[{"id":');
    });
    const b = await cli(cut.baseUrl, ['api', 'GET', '/v1/triggers']);
    expect(b.code, show(b)).toBe(1);
    expect(b.stderr).toContain('does not parse');
    expect(b.stderr).not.toMatch(/\n\s+at /);

    const text = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    const c = await cli(text.baseUrl, ['api', 'GET', '/v1/triggers']);
    expect(c.code, show(c)).toBe(1);
    expect(c.stderr).toContain('text/plain, not JSON');
  });

  it('does not follow a redirect to another host with the key', async () => {
    const other = await server((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
    const s = await server((_req, res) => {
      res.writeHead(302, { location: `${other.baseUrl.replace('127.0.0.1', 'localhost')}/v1/triggers` });
      res.end();
    });
    const r = await cli(s.baseUrl, ['api', 'GET', '/v1/triggers']);
    expect(r.code, show(r)).toBe(1);
    expect(r.stderr).toContain('does not follow redirects');
    expect(other.seen).toHaveLength(0);
  });

  it('exits 1 naming the address when nothing listens there', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    const r = await cli(`http://127.0.0.1:${port}`, ['api', 'GET', '/v1/triggers', '--json']);
    expect(r.code, show(r)).toBe(1);
    expect(r.json().error.code).toBe('NETWORK_ERROR');
    expect(r.json().error.message).toContain('ECONNREFUSED');
  });

  it('rejects a bad --timeout before any request', async () => {
    const s = await server((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
    const r = await cli(s.baseUrl, ['api', 'GET', '/v1/triggers', '--timeout', 'abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('invalid --timeout "abc"');
    expect(s.seen).toHaveLength(0);
  });

  // Through a proxy: test/e2e/proxy.test.ts (an API on a non-loopback name).
  it('never sends a loopback API through HTTP_PROXY / ALL_PROXY, whatever NO_PROXY says (as Go does)', async () => {
    const target = await server((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
    const proxy = await startConnectProxy();
    servers.push(proxy);
    const r = await cli(target.baseUrl, ['api', 'GET', '/v1/triggers'], {
      HTTP_PROXY: proxy.url,
      ALL_PROXY: proxy.url,
      NO_PROXY: 'example.com',
    });
    expect(r.code, show(r)).toBe(0);
    expect(proxy.tunnels).toEqual([]);
    expect(target.seen).toHaveLength(1);
  });
});

// The connection opened ahead of the first request (src/api/warm.ts): used when fresh, never
// when the server already dropped it, so a booking is not sent into a dead socket.
describe('the connection opened ahead', () => {
  it('carries the first request: one connection for a one-request command', async () => {
    const s = await server((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
    const r = await cli(s.baseUrl, ['triggers', 'ls', '--json', '--debug']);
    expect(r.code, show(r)).toBe(0);
    expect(s.seen).toHaveLength(1);
    expect(s.connections()).toBe(1);
    const port = new URL(s.baseUrl).port;
    expect(r.stderr).toContain(`debug: connecting to 127.0.0.1:${port} ahead of the first request`);
    expect(r.stderr).toContain(`debug: using the connection opened ahead to 127.0.0.1:${port}`);
    // Opened before the request went out, reported in that order.
    expect(r.stderr.indexOf('ahead of the first request')).toBeLessThan(r.stderr.indexOf('→ GET /v1/triggers'));
  });

  it('never carries a booking: a server that drops the connection as it comes up costs nothing, one meeting', async () => {
    const meeting = { ok: true };
    const s = await server((_req, res) => sendJson(res, 201, meeting), {
      // A server (or middlebox) that drops the first connection as it accepts it: a booking
      // written into it could not tell that from a lost answer.
      onConnection: (socket, index) => {
        if (index === 1) socket.destroy();
      },
    });
    const r = await cli(s.baseUrl, ['api', 'POST', '/v1/scheduling/meetings', '--data', '{}', '--debug']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toEqual(meeting);
    expect(s.seen).toHaveLength(1);
    expect(s.connections()).toBe(2);
    expect(r.stderr).toMatch(
      /not using the connection opened ahead to 127\.0\.0\.1:\d+ \(a request that must not be repeated gets a connection of its own\): opening a new one/,
    );
  });

  it('a read whose connection opened ahead the server dropped still answers, on a new connection', async () => {
    const s = await server((_req, res) => sendJson(res, 200, TRIGGERS_BODY), {
      onConnection: (socket, index) => {
        if (index === 1) socket.destroy();
      },
    });
    // Seen closed before the read goes out, the connection is not used; met while closing, the
    // read is retried (a read may be). Either way it answers once, on the second connection.
    const r = await cli(s.baseUrl, ['triggers', 'ls', '--json', '--debug']);
    expect(r.code, show(r)).toBe(0);
    expect(s.seen).toHaveLength(1);
    expect(s.connections()).toBe(2);
    expect(r.stderr).toMatch(/connection opened ahead to 127\.0\.0\.1:\d+/);
  });
});

describe('TLS', () => {
  const tlsServer = () => server((_req, res) => sendJson(res, 200, TRIGGERS_BODY), { tls: true });

  it('refuses a certificate it cannot trust at once: exit 1, nothing sent, not retried, a hint at NODE_EXTRA_CA_CERTS', async () => {
    const s = await tlsServer();
    for (const args of [
      ['triggers', 'ls', '--json'],
      ['api', 'POST', '/v1/scheduling/meetings', '--data', '{}', '--json'],
    ]) {
      const before = s.connections();
      const r = await cli(s.baseUrl, [...args, '--debug']);
      expect(r.code, show(r)).toBe(1);
      expect(r.json()).toMatchObject({ error: { code: 'NETWORK_ERROR' } });
      const { message, hint } = (r.json() as { error: { message: string; hint: string } }).error;
      expect(message).toContain("the API's TLS certificate was not accepted");
      expect(message).toContain('DEPTH_ZERO_SELF_SIGNED_CERT');
      expect(message).toContain('nothing was sent');
      expect(hint).toContain('NODE_EXTRA_CA_CERTS');
      // The same certificate would come back: no retries (at most the connection opened ahead
      // and the request's own reached the server).
      expect(r.stderr).not.toContain('retrying');
      expect(s.connections() - before).toBeLessThanOrEqual(2);
    }
    expect(s.seen).toHaveLength(0);
  });

  it('trusts the CA named by NODE_EXTRA_CA_CERTS, and the request goes out on the connection opened ahead', async () => {
    const s = await tlsServer();
    const r = await cli(s.baseUrl, ['triggers', 'ls', '--json', '--debug'], { NODE_EXTRA_CA_CERTS: TLS_FIXTURE_CERT });
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toEqual(TRIGGERS_BODY);
    expect(r.stderr).toMatch(/using the connection opened ahead to localhost:\d+/);
    expect(s.connections()).toBe(1);
  });

  it('names a certificate made out to another host name', async () => {
    const s = await tlsServer();
    const byAddress = s.baseUrl.replace('localhost', '127.0.0.1');
    const r = await cli(byAddress, ['triggers', 'ls', '--json'], { NODE_EXTRA_CA_CERTS: TLS_FIXTURE_CERT });
    expect(r.code, show(r)).toBe(1);
    const { message, hint } = (r.json() as { error: { message: string; hint: string } }).error;
    expect(message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(hint).toContain('another host name');
  });
});

/** A minimal forward proxy: it tunnels CONNECT requests and records their targets. */
async function startConnectProxy() {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const proxy = createServer((_req, res) => {
    res.writeHead(501);
    res.end();
  });
  proxy.on('connect', (req, client: Socket) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => proxy.close(() => r()));
    },
  };
}
