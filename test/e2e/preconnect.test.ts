/**
 * The connection opened ahead of the first request (src/api/warm.ts): used when fresh,
 * never when the server already dropped it, so a booking is not sent into a dead socket.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { registerSecret, runCli, show } from '../helpers/cli.js';
import { sendJson, startTestServer, TRIGGERS_BODY, type Handler, type TestServerOptions } from '../helpers/server.js';

const KEY = 'sk_test_preconnect_abcdef123456';
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

const cli = (baseUrl: string, args: string[]) => runCli([...args, '--base-url', baseUrl], { env: { SCHEDCTL_API_KEY: KEY } });

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

  it('is not used once the server closed it: a booking goes out once, on a new connection', async () => {
    const meeting = { ok: true };
    const s = await server((_req, res) => sendJson(res, 201, meeting), {
      // A server (or middlebox) that drops the first, idle connection at once.
      onConnection: (socket, index) => {
        if (index === 1) socket.destroy();
      },
    });
    const r = await cli(s.baseUrl, ['api', 'POST', '/v1/scheduling/meetings', '--data', '{}', '--debug']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toEqual(meeting);
    expect(s.seen).toHaveLength(1);
    expect(s.connections()).toBe(2);
    expect(r.stderr).toMatch(/not using the connection opened ahead to 127\.0\.0\.1:\d+ \(it was closed or failed\): opening a new one/);
  });
});
