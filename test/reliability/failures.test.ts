/**
 * Failures that say what happened, never "a bug in schedctl" for something expected:
 * - a 2xx answer to a booking, a reschedule or a fire that cannot be read: outcome unknown
 *   (exit 7), sent once; the same answer to a read: exit 1, one line naming the operation;
 * - `schedctl sandbox` on a port in use: a usage error saying to pass --port 0 (exit 2);
 * - an API key with a line break or another control character: refused before sending,
 *   naming where it came from (exit 3);
 * - `smoke` against an unreachable host: "nothing was sent" and "0 requests used" agree;
 * - Ctrl-C at a prompt or during a spinner: no error line, exit 130 (tmux);
 * - countdowns to the server's instants (a hold's expiresAt) in the server's time, from its
 *   Date header, after the sandbox's clock was moved (in `slots` and in the route wizard).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoRouteArgs } from '../helpers/args.js';
import { registerSecret, runCli, show, tempDir } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { sendJson, startTestServer, TRIGGERS_BODY } from '../helpers/server.js';
import { hasTmux, startPane, type Pane } from '../helpers/tmux.js';

const KEY = 'sk_test_failures_5e4d3c2b1a09';
registerSecret(KEY);
const TRIGGER_ID = TRIGGERS_BODY.triggers[0]!.id;
const UUID = '9b2d7c1e-4f3a-4e5b-8c6d-7e8f9a0b1c2d';
const START = '2030-01-07T10:00:00Z';

const neverABug = (text: string) => expect(text).not.toMatch(/\bbug\b/);

type Unreadable = 'empty' | 'not-json' | 'wrong-shape';
const BODIES: Record<Unreadable, { type: string; body: string }> = {
  empty: { type: 'application/json', body: '' },
  'not-json': { type: 'application/json', body: 'OK' },
  'wrong-shape': { type: 'application/json', body: JSON.stringify({ ok: true }) },
};

interface Operation {
  name: string;
  args: string[];
  method: string;
  path: string;
  status: number;
  once: boolean;
}

const OPERATIONS: Operation[] = [
  {
    name: 'book',
    args: ['book', 'intro-call', '--start', START, '--reservation', UUID, '--email', 'lead@acme.example'],
    method: 'POST',
    path: '/v1/scheduling/meetings',
    status: 201,
    once: true,
  },
  {
    name: 'reschedule',
    args: ['reschedule', UUID, '--start', START],
    method: 'PATCH',
    path: `/v1/scheduling/meetings/${UUID}`,
    status: 200,
    once: true,
  },
  {
    name: 'trigger fire',
    args: ['trigger', 'fire', TRIGGER_ID, '--email', 'lead@acme.example'],
    method: 'POST',
    path: `/v1/triggers/${TRIGGER_ID}`,
    status: 200,
    once: true,
  },
  { name: 'triggers ls', args: ['triggers', 'ls'], method: 'GET', path: '/v1/triggers', status: 200, once: false },
  {
    name: 'events show',
    args: ['events', 'show', 'intro-call'],
    method: 'GET',
    path: '/v1/scheduling/events/intro-call',
    status: 200,
    once: false,
  },
  {
    name: 'slots',
    args: ['slots', 'intro-call', '--days', '1'],
    method: 'POST',
    path: '/v1/scheduling/events/intro-call/slots',
    status: 200,
    once: false,
  },
];

/**
 * Each kind of answer through the built CLI for a read command and a once-only one, the commands
 * taken in turn (each meets one kind); every endpoint with every kind is in
 * test/unit/unreadable-answers.test.ts.
 */
const READS = OPERATIONS.filter((op) => !op.once);
const ONCE = OPERATIONS.filter((op) => op.once);
const matrix = (['empty', 'not-json', 'wrong-shape'] as const).flatMap((kind, i) =>
  [READS[i % READS.length]!, ONCE[i % ONCE.length]!].map((op) => ({ op, kind, label: `${op.name}: ${kind} 2xx` })),
);

describe.concurrent('a 2xx answer that cannot be read', () => {
  it.each(matrix)(
    '$label',
    async ({ op, kind }) => {
      const s = await startTestServer((req, res) => {
        if (req.method === op.method && req.url === op.path) {
          res.writeHead(op.status, { 'content-type': BODIES[kind].type });
          return void res.end(BODIES[kind].body);
        }
        if (req.method === 'GET' && req.url === '/v1/triggers') return sendJson(res, 200, TRIGGERS_BODY);
        sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `no route ${req.method} ${req.url}` } });
      });
      try {
        const env = { SCHEDCTL_API_KEY: KEY, SCHEDCTL_BASE_URL: s.baseUrl };
        const human = await runCli(op.args, { configDir: tempDir(), env });
        const json = await runCli([...op.args, '--json'], { configDir: tempDir(), env });
        const doc = json.json<{ error: { code: string; message: string } }>();
        if (op.once) {
          // The server said it acted but not what it did: never "a bug", never repeated.
          expect(human.code, show(human)).toBe(7);
          expect(json.code, show(json)).toBe(7);
          expect(doc.error.code, show(json)).toBe('OUTCOME_UNKNOWN');
          expect(doc.error.message).toContain(`${op.method} ${op.path} answered HTTP ${op.status}`);
          expect(s.seen.filter((r) => r.method === op.method && r.url === op.path)).toHaveLength(2); // one per run
        } else {
          expect(human.code, show(human)).toBe(1);
          expect(doc.error.code, show(json)).toBe('BAD_RESPONSE');
          expect(doc.error.message).toContain(
            `the API's answer to ${op.method} ${op.path} is not valid: HTTP ${op.status} with`,
          );
          // One line: the message, then (for a broken shape) the problems as details.
          expect(human.stderr.split('\n')[0], show(human)).toMatch(
            new RegExp(`^error: the API's answer to ${op.method} .* is not valid`),
          );
        }
        neverABug(human.stderr + human.stdout);
        neverABug(json.stdout);
      } finally {
        await s.close();
      }
    },
    40_000,
  );
});

describe('sandbox on a port in use', () => {
  it('says the port is in use and to pass --port 0 (exit 2), not a bug', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const { port } = blocker.address() as AddressInfo;
    try {
      const r = await runCli(['sandbox', '--port', String(port)], { allowSecrets: true });
      expect(r.code, show(r)).toBe(2);
      expect(r.stderr, show(r)).toContain(`error: port ${port} is in use; pass --port 0 for a free one`);
      neverABug(r.stderr);
      const j = await runCli(['sandbox', '--port', String(port), '--json'], { allowSecrets: true });
      expect(j.json().error).toMatchObject({
        code: 'USAGE',
        message: `port ${port} is in use; pass --port 0 for a free one`,
      });
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  }, 30_000);
});

describe('an API key with a line break or a control character', () => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    s = await startTestServer((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
  });
  afterAll(async () => s?.close());

  it('from SCHEDCTL_API_KEY: refused before sending, naming the variable (exit 3)', async () => {
    const before = s.seen.length;
    const r = await runCli(['triggers', 'ls'], {
      env: { SCHEDCTL_API_KEY: 'sk_test_line\nbreak_0123456789', SCHEDCTL_BASE_URL: s.baseUrl },
    });
    expect(r.code, show(r)).toBe(3);
    expect(r.stderr).toContain(
      'error: the API key from the SCHEDCTL_API_KEY environment variable contains a line break (U+000A) at position 13; refusing to send it',
    );
    expect(r.stderr).not.toContain('break_0123456789');
    neverABug(r.stderr);
    expect(s.seen.length).toBe(before);
  }, 30_000);

  it('from a profile: refused before sending, naming the profile (exit 3)', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        defaultProfile: 'work',
        profiles: { work: { baseUrl: s.baseUrl, apiKey: 'sk_test_esc\x1b[2Jkey_0123456789' } },
      }),
    );
    chmodSync(file, 0o600);
    const before = s.seen.length;
    const r = await runCli(['triggers', 'ls', '--json'], { configDir: dir, env: { SCHEDCTL_API_KEY: undefined } });
    expect(r.code, show(r)).toBe(3);
    expect(r.json().error.message).toBe(
      'the API key from profile "work" contains a control character (U+001B) at position 12; refusing to send it',
    );
    expect(r.stderr).not.toContain('key_0123456789');
    neverABug(r.stdout + r.stderr);
    expect(s.seen.length).toBe(before);
  }, 30_000);
});

describe('smoke against an unreachable host', () => {
  it('says nothing was sent and counts 0 requests, in the table, the summary and --json', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise((r) => probe.close(r)); // nothing listens there now
    const env = { SCHEDCTL_API_KEY: KEY, SCHEDCTL_BASE_URL: `http://127.0.0.1:${port}` };
    const j = await runCli(['smoke', '--json'], { env });
    expect(j.code, show(j)).toBe(1);
    const doc = j.json<{ requests: number; checks: Array<{ name: string; detail: string }> }>();
    expect(doc.requests, show(j)).toBe(0);
    const auth = doc.checks.find((c) => c.name === 'auth')!;
    expect(auth.detail).toMatch(/could not reach the API .*nothing was sent/);
    expect(auth.detail).not.toMatch(/after \d+ attempts/);
    const h = await runCli(['smoke'], { env });
    expect(h.stdout, show(h)).toContain('0 requests used');
    expect(h.stdout).toContain('nothing was sent');
    neverABug(h.stdout + h.stderr);
  }, 60_000);
});

describe("countdowns in the server's time", () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ holdSeconds: 600 });
    await sb.advance(35 * 60); // the server's clock runs 35 minutes ahead of ours
  });
  afterAll(async () => sb?.close());

  it('slots shows a 600 s hold as "in 10 min" after the sandbox clock moved 35 min ahead', async () => {
    const r = await sb.cli(['slots', 'intro-call', '--days', '1', '--tz', 'UTC']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout, show(r)).toMatch(/^Reservation [0-9a-f-]+, expires .* \(in 10 min\)$/m);
  }, 30_000);

  it('an expiresAt that does not read as a time shows "unknown"', async () => {
    const s = await startTestServer((_req, res) =>
      sendJson(
        res,
        200,
        { reservationId: UUID, eventId: UUID, expiresAt: 'soon', slots: [], activeHost: null },
        { date: new Date(Date.now() + 3_600_000).toUTCString() },
      ),
    );
    try {
      const r = await runCli(['slots', 'intro-call', '--days', '1'], {
        env: { SCHEDCTL_API_KEY: KEY, SCHEDCTL_BASE_URL: s.baseUrl },
      });
      expect(r.code, show(r)).toBe(0);
      expect(r.stdout).toContain('expires unknown time (unknown)');
    } finally {
      await s.close();
    }
  }, 30_000);
});

describe.skipIf(!hasTmux)('in a real terminal (tmux)', () => {
  let sb: TestSandbox;
  const panes: Pane[] = [];
  beforeAll(async () => {
    sb = await startTestSandbox({ holdSeconds: 600 });
  });
  afterAll(async () => {
    for (const p of panes) p.kill();
    await sb?.close();
  });
  const start = (name: string, args: string[], env: Record<string, string> = {}) => {
    const pane = startPane(name, args, {
      SCHEDCTL_BASE_URL: sb.baseUrl,
      SCHEDCTL_API_KEY: sb.keys.full,
      SCHEDCTL_CONFIG_DIR: tempDir(),
      NO_COLOR: '1',
      TZ: 'UTC',
      ...env,
    });
    panes.push(pane);
    return pane;
  };

  it("Ctrl-C at the wizard's first prompt: no error line, exit 130", async () => {
    const pane = start('ctrlc-prompt', ['route', '--tz', 'UTC']);
    await pane.waitFor('Trigger (type to filter)');
    await pane.type(['C-c']);
    await pane.waitFor('EXIT=');
    const screen = pane.screen();
    expect(screen).toContain('EXIT=130');
    expect(screen).not.toMatch(/error/i);
  }, 30_000);

  it('Ctrl-C while a spinner waits for the server: exit 130 at once, no error line', async () => {
    const silent = await startTestServer(() => undefined); // accepts, never answers
    try {
      const pane = start('ctrlc-spinner', ['events', 'ls', '--all', '--timeout', '60'], {
        SCHEDCTL_BASE_URL: silent.baseUrl,
        SCHEDCTL_API_KEY: KEY,
      });
      await pane.waitFor('fetching events');
      await pane.type(['C-c']);
      await pane.waitFor('EXIT=', 5_000);
      const screen = pane.screen();
      expect(screen).toContain('EXIT=130');
      expect(screen).not.toMatch(/error/i);
    } finally {
      await silent.close();
    }
  }, 30_000);

  it("the wizard counts the hold down in the server's time (clock 35 min ahead)", async () => {
    await sb.advance(35 * 60);
    const pane = start('clock-route', [
      ...demoRouteArgs(),
      '--field',
      'team_size=1-10',
      '--field',
      'notes=none',
      '--yes',
      '--tz',
      'UTC',
    ]);
    await pane.waitFor('Pick a time');
    expect(pane.screen()).toContain('hold expires in 10 min');
    await pane.type(['C-c']);
    await pane.waitFor('EXIT=130');
  }, 30_000);
});
