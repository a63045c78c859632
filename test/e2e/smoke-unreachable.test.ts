/**
 * `smoke` when the API goes away: its messages count what the HTTP layer did. A try that was
 * sent and then reset is not "nothing was sent"; the requests used are those that reached the
 * server; an API down from the start is "the API is unreachable", not a failed key.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, show, type RunResult } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

interface Check {
  name: string;
  status: 'pass' | 'fail' | 'skip';
  detail: string;
}
interface Report {
  ok: boolean;
  requests: number;
  checks: Check[];
  unreachable?: true;
  error?: { code: string; message: string };
}
const check = (r: Report, name: string): Check => {
  const c = r.checks.find((x) => x.name === name);
  if (!c) throw new Error(`no check ${name} in ${JSON.stringify(r)}`);
  return c;
};

const t = useSandbox();
let proxy: TcpProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

const smoke = (baseUrl: string, extra: string[] = []): Promise<RunResult> =>
  runCli(['smoke', ...extra], {
    configDir: t.dir,
    env: { SCHEDCTL_BASE_URL: baseUrl, SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_TEST_RETRY_BASE_MS: '20' },
  });

describe('smoke when the API dies during the run', () => {
  it('says the try that was sent and reset, and counts only requests that reached the server', async () => {
    proxy = await startTcpProxy({ port: Number(new URL(t.sb.baseUrl).port) });
    const proxied = `http://127.0.0.1:${proxy.port}`;
    // The events list is held at the sandbox; once it has arrived, the API "dies": the proxy resets
    // the connection carrying it and stops listening, so the retries that follow cannot connect.
    await t.sb.fault({ method: 'GET', path: '/v1/scheduling/events', fault: 'delay', delayMs: 60_000 });
    const running = smoke(proxied, ['--json']);
    for (;;) {
      const { requests } = await t.sb.state();
      if (requests.some((r) => r.path === '/v1/scheduling/events')) break;
      await new Promise((done) => setTimeout(done, 20));
    }
    await proxy.close();
    proxy = undefined;
    const r = await running;
    expect(r.code, show(r)).toBe(1);
    const report = r.json<Report>();
    const events = check(report, 'events.list');
    expect(events.status).toBe('fail');
    // Try 1 reached the sandbox (it was held there) and its connection was reset; the retries found no one listening.
    expect(events.detail).not.toContain('nothing was sent');
    expect(events.detail).not.toContain('none connected');
    expect(events.detail).toMatch(
      /^could not reach the API for GET \/v1\/scheduling\/events \(ECONNREFUSED\) on its last try, after an earlier try was sent \(4 tries: try 1 sent, then ECONNRESET; tries 2-4 not connected \(ECONNREFUSED\)\)$/,
    );
    // Sent: the triggers list and the events list's first try; the other three never connected.
    const { requests } = await t.sb.state();
    expect(requests.length).toBe(2);
    expect(report).toMatchObject({ requests: 2, tries: 5 });
    expect(report.unreachable).toBeUndefined();
    expect(report.error?.message).toBe('1 smoke check failed: events.list');
  }, 60_000);

  it('says the same in the text summary: requests sent, and the tries that could not connect', async () => {
    proxy = await startTcpProxy({ port: Number(new URL(t.sb.baseUrl).port) });
    const proxied = `http://127.0.0.1:${proxy.port}`;
    await t.sb.fault({ method: 'GET', path: '/v1/scheduling/events', fault: 'delay', delayMs: 60_000 });
    const running = smoke(proxied);
    while (!(await t.sb.state()).requests.some((r) => r.path === '/v1/scheduling/events'))
      await new Promise((done) => setTimeout(done, 20));
    await proxy.close();
    proxy = undefined;
    const r = await running;
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toContain(
      'smoke FAILED: 2 passed, 1 failed, 4 skipped; 2 requests used (the API allows 30 per minute); 3 more tries could not connect',
    );
  }, 60_000);
});

describe('smoke when the API is down from the start', () => {
  it('reports "API unreachable", not a failed key, and counts no request sent', async () => {
    const r = await smoke(`http://127.0.0.1:${await closedPort()}`, ['--json']);
    expect(r.code, show(r)).toBe(1);
    const report = r.json<Report>();
    expect(report).toMatchObject({ ok: false, requests: 0, tries: 4, unreachable: true });
    expect(report.error?.message).toBe('API unreachable: no smoke check could run (4 tries, 0 sent)');
    const auth = check(report, 'auth');
    expect(auth.status).toBe('fail');
    expect(auth.detail).toBe(
      'API unreachable, the key was not checked: could not reach the API for GET /v1/triggers (ECONNREFUSED); nothing was sent (4 tries, none connected)',
    );
    expect(auth.detail).not.toMatch(/refused this (API )?key|key is refused/);
    const text = await smoke(`http://127.0.0.1:${await closedPort()}`);
    expect(text.stderr).toMatch(
      /^error: API unreachable: no smoke check could run \(4 tries, 0 sent\) \(SMOKE_FAILED\)$/m,
    );
    expect(text.stderr).toMatch(/^hint: .*the key was not checked/m);
    expect(text.stdout).toContain(
      'smoke FAILED (API unreachable): 0 passed, 1 failed, 6 skipped; 0 requests used (the API allows 30 per minute); 4 more tries could not connect',
    );
  }, 60_000);
});
