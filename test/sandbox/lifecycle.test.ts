/** Rate limiting, --state persistence, the CLI entry (main.ts) and hook access. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSandboxCommand } from '../../src/sandbox/main.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { expectError, slotsFor, start } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'schedctl-sandbox-'));

describe('rate limit', () => {
  it('answers 429 RATE_LIMITED with an integer Retry-After per key, until the window resets', async () => {
    const api = await start({ rateLimit: 3 });
    try {
      for (let i = 0; i < 3; i++) expect((await api.call('GET', '/v1/triggers')).status).toBe(200);
      const limited = await api.call('GET', '/v1/triggers');
      expectError(limited, 429, 'RATE_LIMITED');
      const retryAfter = limited.headers.get('retry-after')!;
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      expect((await api.call('GET', '/v1/triggers', undefined, api.sb.keys.readOnly)).status).toBe(200);
      await api.hook('POST', '/_sandbox/clock', { advanceSeconds: Number(retryAfter) });
      expect((await api.call('GET', '/v1/triggers')).status).toBe(200);
      expect((await api.state()).requests.map((r: any) => r.status)).toEqual([200, 200, 200, 429, 200, 200]);
    } finally {
      await api.sb.close();
    }
  });
});

describe('--state', () => {
  it('writes each booking before answering and keeps meetings across a restart', async () => {
    const stateFile = join(dir, 'state.json');
    const first = await start({ stateFile });
    const s = await slotsFor(first, 'intro-call');
    const booked = await first.call('POST', '/v1/scheduling/meetings', {
      startTime: s.slots[0],
      reservationId: s.reservationId,
      event: 'intro-call',
      personEmail: 'a@acme.com',
    });
    expect(booked.status).toBe(201);
    expect(readFileSync(stateFile, 'utf8')).toContain(booked.body.id);
    await first.sb.close();
    const second = await start({ stateFile });
    try {
      expect(second.sb.keys).toEqual(first.sb.keys);
      expect((await second.state()).meetings.map((m: any) => m.id)).toEqual([booked.body.id]);
      const again = await slotsFor(second, 'intro-call');
      expect(again.reservationId).not.toBe(s.reservationId);
    } finally {
      await second.sb.close();
    }
  });
});

describe('runSandboxCommand', () => {
  const sink = () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (d: Buffer) => (text += d.toString()));
    return { stream, text: () => text };
  };

  // Invoke only the handlers runSandboxCommand installed, not the test runner's own.
  async function withSignal<T>(signal: 'SIGINT' | 'SIGTERM', run: () => Promise<T>): Promise<T> {
    const before = new Set(process.listeners(signal));
    const result = await run();
    for (const listener of process.listeners(signal)) if (!before.has(listener)) (listener as () => void)();
    return result;
  }

  it('prints exactly one JSON line with --json', async () => {
    const out = sink();
    const err = sink();
    const running = await withSignal('SIGTERM', () =>
      runSandboxCommand(
        { host: '127.0.0.1', port: 0, seed: 7, holdSeconds: 600, rateLimit: 0, json: true },
        { stdout: out.stream, stderr: err.stream },
      ),
    );
    await running.closed;
    const lines = out.text().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({ baseUrl: running.baseUrl, keys: running.keys });
    expect(running.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(err.text()).toBe('');
  });

  it('prints a banner with the keys and the next command, and warns off loopback', async () => {
    const out = sink();
    const err = sink();
    const running = await withSignal('SIGINT', () =>
      runSandboxCommand(
        { host: '0.0.0.0', port: 0, seed: 1, holdSeconds: 600, rateLimit: 0, json: false },
        { stdout: out.stream, stderr: err.stream },
      ),
    );
    await running.closed;
    expect(out.text()).toContain(running.keys.full);
    expect(out.text()).toContain(`SCHEDCTL_BASE_URL=${running.baseUrl}`);
    expect(err.text()).toMatch(/warning: binding 0\.0\.0\.0/);
  });
});

describe('process lifecycle', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = join(dir, 'sandbox.mjs');
    const contents = `import { runSandboxCommand } from './src/sandbox/main.js';
await runSandboxCommand(JSON.parse(process.argv[2]), { stdout: process.stdout, stderr: process.stderr });`;
    await build({
      stdin: { contents, resolveDir: resolve(import.meta.dirname, '../..'), loader: 'ts' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'silent',
    });
  });

  async function spawnSandbox(state: string): Promise<{ child: ChildProcess; baseUrl: string; key: string }> {
    const opts = { host: '127.0.0.1', port: 0, seed: 3, holdSeconds: 600, rateLimit: 0, json: true, state };
    const child = spawn(process.execPath, [bundle, JSON.stringify(opts)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const ready = JSON.parse(line.toString()) as { baseUrl: string; keys: { full: string } };
    return { child, baseUrl: ready.baseUrl, key: ready.keys.full };
  }

  it('shuts down on SIGTERM and loses no confirmed meeting', async () => {
    const state = join(dir, 'proc-state.json');
    const a = await spawnSandbox(state);
    const headers = { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' };
    const slots = (await (
      await fetch(`${a.baseUrl}/v1/scheduling/events/intro-call/slots`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ start: new Date().toISOString(), end: new Date(Date.now() + 7 * 864e5).toISOString() }),
      })
    ).json()) as { slots: string[]; reservationId: string };
    const booked = await fetch(`${a.baseUrl}/v1/scheduling/meetings`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        startTime: slots.slots[0],
        reservationId: slots.reservationId,
        event: 'intro-call',
        personEmail: 'a@acme.com',
      }),
    });
    const meeting = (await booked.json()) as { id: string };
    a.child.kill('SIGTERM');
    const [code] = await once(a.child, 'exit');
    expect(code).toBe(0);
    const b = await spawnSandbox(state);
    try {
      const view = (await (await fetch(`${b.baseUrl}/_sandbox/state`)).json()) as { meetings: { id: string }[] };
      expect(view.meetings.map((m) => m.id)).toEqual([meeting.id]);
    } finally {
      b.child.kill('SIGTERM');
      await once(b.child, 'exit');
    }
  }, 20_000);
});

describe('hooks', () => {
  let sb: Awaited<ReturnType<typeof startSandbox>>;
  afterAll(() => sb?.close());

  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
  it.skipIf(!external)('answers loopback peers and 404s everyone else', async () => {
    sb = await startSandbox({ host: '0.0.0.0', rateLimit: 0 });
    const port = new URL(sb.baseUrl).port;
    expect((await fetch(`http://127.0.0.1:${port}/_sandbox/clock`)).status).toBe(200);
    const remote = await fetch(`http://${external}:${port}/_sandbox/state`);
    expect(remote.status).toBe(404);
    expect(((await remote.json()) as any).error.code).toBe('NOT_FOUND');
  });
});
