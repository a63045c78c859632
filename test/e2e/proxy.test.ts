/**
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY end to end: the built CLI through a real CONNECT proxy
 * on 127.0.0.1 (test/helpers/connect-proxy.ts) to real local servers. Loopback is never
 * proxied, so the proxied API is named `api.schedctl.test` (the proxy tunnels it to 127.0.0.1),
 * and a logging proxy shows that no key ever crosses it in clear. The tunnel is schedctl's
 * own transport (src/api/transport.ts, proxy-tunnel.ts): TLS to the API over it, the proxy's
 * credentials as Proxy-Authorization and never printed, a refused tunnel reported as what it
 * is (nothing reached the API), and a booking marked sent only once the tunnel and its TLS
 * handshake are up.
 */
import { ledgerRows } from '../helpers/ledger-db.js';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSecret, show } from '../helpers/cli.js';
import {
  closedAddress,
  PROXIED_HOST,
  startConnectProxy,
  viaProxiedName,
  type ConnectProxyOptions,
} from '../helpers/connect-proxy.js';
import { startGate, TLS_CERT } from '../helpers/parallel-gate.js';
import { describeRun, sleep, startCli, waitFor } from '../helpers/parallel-run.js';
import { bookSlotArgs, demoRouteArgs } from '../helpers/args.js';
import { useSandbox } from '../helpers/sandbox.js';
import {
  sendJson,
  startTestServer,
  TLS_FIXTURE_CERT,
  TRIGGERS_BODY,
  type TestServerOptions,
} from '../helpers/server.js';

const t = useSandbox();
const KEY = 'sk_test_proxylayer_abcdef123456';
// A password that needs percent-encoding in the proxy URL: decoded for Proxy-Authorization.
const PASSWORD = 's3cret/p@ss-9f2a';
const ENCODED = encodeURIComponent(PASSWORD);
registerSecret(KEY, PASSWORD, ENCODED); // checked in every output of every run (helpers/cli.ts)
const basic = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;

let closers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(closers.map((s) => s.close()));
  closers = [];
});
async function proxyServer(options?: ConnectProxyOptions) {
  const p = await startConnectProxy(options);
  closers.push(p);
  return p;
}
/** An https:// API under the proxied name (tunnelled to 127.0.0.1): `baseUrl` is that name's. */
async function target(options?: TestServerOptions) {
  const s = await startTestServer((_req, res) => sendJson(res, 200, TRIGGERS_BODY), { tls: true, ...options });
  closers.push(s);
  return Object.assign(s, { baseUrl: viaProxiedName(s.baseUrl) });
}
/** The TLS fixture trusted, as the tests that mean to reach the API do. */
const TRUSTED = { NODE_EXTRA_CA_CERTS: TLS_FIXTURE_CERT };

/** The CLI against `baseUrl` with `env` (the proxy variables), the key in SCHEDCTL_API_KEY. */
const cli = (baseUrl: string, args: string[], env: Record<string, string> = {}) =>
  t.sb.cli([...args, '--base-url', baseUrl], {
    configDir: t.dir,
    env: { SCHEDCTL_API_KEY: KEY, SCHEDCTL_BASE_URL: undefined, ...env },
  });

describe('through a proxy', () => {
  it('reaches an https:// API through HTTPS_PROXY: TLS over the CONNECT tunnel, the CA from NODE_EXTRA_CA_CERTS', async () => {
    const api = await target();
    const proxy = await proxyServer();
    const r = await cli(api.baseUrl, ['triggers', 'ls', '--json', '--debug'], {
      HTTPS_PROXY: proxy.url(),
      ...TRUSTED,
    });
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toEqual(TRIGGERS_BODY);
    expect(proxy.connects.map((c) => c.target)).toEqual([new URL(api.baseUrl).host]);
    // Only the tunnel reached the API: no connection opened ahead around the proxy.
    expect(api.connections()).toBe(1);
    expect(r.stderr).toContain(`debug: through the proxy ${proxy.host}: no connection opened ahead`);
    expect(r.stderr).not.toContain('ahead of the first request');
  });

  it("refuses the API's certificate over the tunnel as it would directly: exit 1, nothing sent", async () => {
    const api = await target();
    const proxy = await proxyServer();
    const r = await cli(api.baseUrl, ['api', 'POST', '/v1/scheduling/meetings', '--data', '{}', '--json'], {
      https_proxy: proxy.url(),
    });
    expect(r.code, show(r)).toBe(1);
    expect(r.json().error.message).toContain("the API's TLS certificate was not accepted");
    expect(r.json().error.message).toContain('nothing was sent');
    expect(proxy.connects).toHaveLength(1);
    expect(api.seen).toEqual([]);
  });

  it('takes HTTP_PROXY for an https:// API when HTTPS_PROXY is not set (as before, with undici)', async () => {
    const api = await target();
    const proxy = await proxyServer();
    const r = await cli(api.baseUrl, ['triggers', 'ls', '--json'], {
      HTTP_PROXY: proxy.url(),
      ...TRUSTED,
    });
    expect(r.code, show(r)).toBe(0);
    expect(proxy.connects.map((c) => c.target)).toEqual([new URL(api.baseUrl).host]);
  });

  it('goes direct when NO_PROXY exempts the API host (here a name that does not resolve: nothing was sent)', async () => {
    const api = await target();
    const proxy = await proxyServer();
    const r = await cli(api.baseUrl, ['triggers', 'ls', '--json', '--debug'], {
      HTTP_PROXY: proxy.url(),
      NO_PROXY: `example.com,${PROXIED_HOST}`,
      ...TRUSTED,
    });
    expect(r.code, show(r)).toBe(1);
    expect(r.json().error.message).toMatch(/could not reach the API for GET \/v1\/triggers \((ENOTFOUND|EAI_AGAIN)\)/);
    expect(r.stderr).toContain(`connecting to ${new URL(api.baseUrl).host} ahead of the first request`);
    expect(proxy.connects).toEqual([]);
  });

  it('sends the credentials of the proxy URL as Proxy-Authorization, to the proxy only, and never prints them', async () => {
    const api = await target();
    const proxy = await proxyServer({ credentials: `alice:${PASSWORD}` });
    const r = await cli(api.baseUrl, ['api', 'GET', '/v1/triggers', '--debug'], {
      HTTP_PROXY: proxy.url(`alice:${ENCODED}`),
      ...TRUSTED,
    });
    expect(r.code, show(r)).toBe(0);
    expect(proxy.connects).toEqual([
      { target: new URL(api.baseUrl).host, proxyAuthorization: basic(`alice:${PASSWORD}`) },
    ]);
    expect(api.seen[0]!.headers['proxy-authorization']).toBeUndefined();
    expect(r.stderr).toContain(`debug: through the proxy ${proxy.host}`);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    expect(r.stdout + r.stderr).not.toContain(ENCODED);
  });

  it('tunnels a routed booking (4 requests) to an https:// API, the key never in clear', async () => {
    const gate = await startGate(t.sb.baseUrl, { tls: true });
    closers.push(gate);
    const proxy = await proxyServer();
    const r = await t.sb.cli([...demoRouteArgs(), '--slot', 'first', '--yes', '--json', '--days', '14'], {
      configDir: t.dir,
      env: { HTTP_PROXY: proxy.url(), SCHEDCTL_BASE_URL: viaProxiedName(gate.baseUrl), NODE_EXTRA_CA_CERTS: TLS_CERT },
    });
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toMatchObject({ status: 'booked' });
    // Every tunnel to the API (one per request at most: https over a tunnel is not kept alive today).
    const tunnels = proxy.connects.map((c) => c.target);
    expect(new Set(tunnels)).toEqual(new Set([new URL(viaProxiedName(gate.baseUrl)).host]));
    expect(tunnels.length).toBeLessThanOrEqual(4);
    expect((await t.sb.state()).meetings).toHaveLength(1);
    expect(proxy.bytesSeen()).toBeGreaterThan(0);
    expect(proxy.saw(t.sb.keys.full), 'the proxy read the key').toBe(false);
  });
});

describe('a proxy that fails', () => {
  it('refusing the tunnel (407): one line naming the proxy, not its credentials; exit 1, not retried, nothing sent', async () => {
    const api = await target();
    const proxy = await proxyServer({ credentials: 'alice:the-right-one' });
    const r = await cli(api.baseUrl, ['api', 'GET', '/v1/triggers', '--debug'], {
      HTTP_PROXY: proxy.url(`alice:${ENCODED}`),
    });
    expect(r.code, show(r)).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => !l.startsWith('debug:'));
    expect(lines[0]).toBe(
      `error: could not reach the API for GET /v1/triggers: the proxy ${proxy.host} refused the tunnel to the API (HTTP 407 Proxy Authentication Required); nothing was sent (NETWORK_ERROR)`,
    );
    expect(lines[1]).toMatch(/^hint: the proxy wants credentials/);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    expect(r.stderr).not.toContain('retrying');
    expect(proxy.connects).toHaveLength(1);
    expect(api.seen).toEqual([]);
  });

  it('unreachable: names the proxy and what happened, exit 1', async () => {
    const api = await target();
    const address = await closedAddress();
    const r = await cli(api.baseUrl, ['api', 'GET', '/v1/triggers', '--json'], {
      HTTP_PROXY: `http://alice:${ENCODED}@${address}`,
    });
    expect(r.code, show(r)).toBe(1);
    expect(r.json().error).toMatchObject({
      code: 'NETWORK_ERROR',
      message: `could not reach the API for GET /v1/triggers: could not open a tunnel through the proxy ${address} (ECONNREFUSED); nothing was sent`,
    });
    expect(api.seen).toEqual([]);
  });

  it('a proxy URL schedctl cannot use is a usage error naming the variable, not its value', async () => {
    const api = await target();
    const r = await cli(api.baseUrl, ['triggers', 'ls'], { HTTPS_PROXY: `socks5://alice:${ENCODED}@127.0.0.1:1080` });
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('invalid HTTPS_PROXY: not a proxy URL schedctl can use');
    expect(r.stderr).not.toContain('socks5://');
    expect(api.connections()).toBe(0);
  });
});

// "Never a second booking": an attempt the proxy stopped never reached the API, so it is not a
// lost response; one whose tunnel is up but whose TLS handshake is not was never sent either.
describe('a booking through a proxy', () => {
  const journal = (): Array<Record<string, unknown>> => ledgerRows(t.dir, 'attempts');
  const bookRequests = async () =>
    (await t.sb.state()).requests.filter((q) => q.method === 'POST' && q.path === '/v1/scheduling/meetings');
  async function slotsOf(event: string): Promise<{ reservationId: string; slots: string[] }> {
    return t.sb.slots(event, 14);
  }
  const bookArgs = (s: { reservationId: string; slots: string[] }, email = 'kim@acme.example') => [
    ...bookSlotArgs('intro-call', s.slots[0]!, s.reservationId, email),
    '--json',
  ];

  it.each([407, 403, 502])(
    'refused by the proxy (HTTP %i) is "nothing was sent" (exit 1), not outcome unknown; the re-run books once',
    async (status) => {
      const proxy = await proxyServer({ refuse: status });
      const s = await slotsOf('intro-call');
      // The sandbox under a name that is not loopback: it goes to the proxy, which refuses the tunnel.
      const proxied = {
        HTTP_PROXY: proxy.url(),
        SCHEDCTL_BASE_URL: viaProxiedName(t.sb.baseUrl).replace('http:', 'https:'),
      };
      const r = await t.sb.cli(bookArgs(s), { configDir: t.dir, env: proxied });
      expect(r.code, show(r)).toBe(1);
      expect(r.json().error.code).toBe('NETWORK_ERROR');
      expect(r.json().error.message).toContain(`the proxy ${proxy.host} refused the tunnel to the API (HTTP ${status}`);
      expect(r.json().error.message).toContain('nothing was sent');
      expect(journal()).toEqual([]);
      expect(await bookRequests()).toEqual([]);

      const raw = await t.sb.cli(['api', 'POST', '/v1/scheduling/meetings', '--data', '{}', '--json'], {
        configDir: t.dir,
        env: proxied,
      });
      expect(raw.code, show(raw)).toBe(1);
      expect(raw.json().error.code).toBe('NETWORK_ERROR');

      const again = await t.sb.cli(bookArgs(s), { configDir: t.dir });
      expect(again.code, show(again)).toBe(0);
      expect((await t.sb.state()).meetings).toHaveLength(1);
    },
  );

  it('is marked sent only once the TLS handshake over the tunnel is done', async () => {
    const gate = await startGate(t.sb.baseUrl, { tls: true });
    closers.push(gate);
    const proxy = await proxyServer();
    const s = await slotsOf('intro-call');
    const env = {
      SCHEDCTL_BASE_URL: viaProxiedName(gate.baseUrl),
      HTTPS_PROXY: proxy.url(),
      NODE_EXTRA_CA_CERTS: TLS_CERT,
    };
    gate.silent = true; // the tunnel opens, but the API's TLS handshake never completes
    const run = startCli([...bookArgs(s), '--timeout', '20'], {
      configDir: t.dir,
      env: { ...env, SCHEDCTL_API_KEY: t.sb.keys.full },
      timeoutMs: 30_000,
    });
    // The tunnel opened: the booking (book's only request) is on its way to the API.
    const tunnelled = await waitFor(() => proxy.connects.length > 0, 20_000);
    await sleep(400); // long enough for a request that could go out to have gone out
    expect(run.kill(), 'it ended by itself').toBe(true);
    const r = await run.done;
    expect(tunnelled, describeRun(r)).toBe(true);
    // The attempt is written (marked sent) only right before its bytes leave: nothing was.
    expect(journal(), 'recorded, yet its TLS handshake never completed').toEqual([]);
    expect(gate.seen).toEqual([]);

    // Another lead (the killed run's lead lock is left to go stale): through the same tunnel path it books, marked sent.
    gate.silent = false;
    const again = await t.sb.cli(bookArgs(await slotsOf('intro-call'), 'lin@acme.example'), { configDir: t.dir, env });
    expect(again.code, show(again)).toBe(0);
    // Written, marked sent, this time.
    expect(journal()).toEqual([expect.objectContaining({ outcome: 'booked', sentAt: expect.any(String) })]);
    const host = new URL(viaProxiedName(gate.baseUrl)).host;
    expect(proxy.connects.map((c) => c.target)).toEqual([host, host]);
    expect((await t.sb.state()).meetings).toHaveLength(1);
  });
});

// Issue 25: a proxy never reads a key. Loopback always goes direct, whatever the variables say
// (as Go's net/http does); plain http:// anywhere else is refused before anything is sent.
describe('the key never crosses a proxy in clear', () => {
  const ALL_PROXIES = (url: string) => ({
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    http_proxy: url,
    NO_PROXY: 'example.com',
  });

  it('a sandbox on loopback (http://127.0.0.1) is reached directly: a routed booking, the proxy sees nothing', async () => {
    const proxy = await proxyServer();
    const r = await t.sb.cli(
      [...demoRouteArgs('lo@acme.example'), '--slot', 'first', '--yes', '--json', '--days', '14'],
      {
        configDir: t.dir,
        env: ALL_PROXIES(proxy.url()),
      },
    );
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toMatchObject({ status: 'booked' });
    expect(proxy.connects).toEqual([]);
    expect(proxy.bytesSeen()).toBe(0);
  });

  it.each([
    ['--base-url', (url: string) => ({ args: ['--base-url', url], env: {} })],
    ['SCHEDCTL_BASE_URL', (url: string) => ({ args: [], env: { SCHEDCTL_BASE_URL: url } })],
  ])(
    'plain http:// to a host that is not loopback (from %s) is refused, exit 2: nothing reaches the proxy',
    async (source, input) => {
      const api = await startTestServer((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
      closers.push(api);
      const proxy = await proxyServer();
      const clear = viaProxiedName(api.baseUrl); // http://api.schedctl.test:<port>
      const { args, env } = input(clear);
      const r = await t.sb.cli(['triggers', 'ls', '--json', ...args], {
        configDir: t.dir,
        env: { ...ALL_PROXIES(proxy.url()), ...env },
      });
      expect(r.code, show(r)).toBe(2);
      expect(r.json().error.message).toContain(
        `refusing to send the API key over plain http:// to ${new URL(clear).host}`,
      );
      expect(r.json().error.message).toContain(`(from ${source})`);
      expect(proxy.connects).toEqual([]);
      expect(proxy.bytesSeen()).toBe(0);
      expect(api.seen).toEqual([]);
    },
  );
});
