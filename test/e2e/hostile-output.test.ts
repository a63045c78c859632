/**
 * Text from the server is data, never terminal control. Against a server whose every string
 * carries a window title (OSC 0), a hyperlink (OSC 8), a clear screen, a bare \r, a bidi
 * override and a one-byte CSI, every command's human output (stdout and stderr, errors, hints,
 * warnings) shows those characters escaped and never emits them; `--json` carries the exact
 * strings back (JSON-escaped). The route wizard is also run in a real terminal (tmux): the
 * window title stays what it was.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSecret, runCli, show, tempDir, type RunResult } from '../helpers/cli.js';
import {
  FORGED,
  h,
  HOSTILE,
  HOSTILE_IDS,
  HOSTILE_SHOWN,
  REFUSED,
  startHostileTextServer,
} from '../helpers/hostile-text-server.js';
import { hasTmux, startPane, type Pane } from '../helpers/tmux.js';

const KEY = 'sk_test_hostile_text_7c6b5a4d3e2f';
registerSecret(KEY);
const UUID = '9b2d7c1e-4f3a-4e5b-8c6d-7e8f9a0b1c2d';
const FIELD = `${HOSTILE_IDS.field}=Acme`;

let server: Awaited<ReturnType<typeof startHostileTextServer>>;
beforeAll(async () => {
  server = await startHostileTextServer();
});
afterAll(async () => {
  await server?.close();
});

/** A start time the CLI accepts (in the future) for book and reschedule. */
const future = () => new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 2 * 3_600_000).toISOString();

/** What must never reach a terminal: ESC, BEL, a carriage return, a C1 control (CSI), a bidi override. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point.
const RAW = /[\x1b\x07\r\x9b\u202e]/;

function expectNoRawControls(r: RunResult, what: string): void {
  for (const [name, text] of Object.entries({ stdout: r.stdout, stderr: r.stderr })) {
    const at = text.search(RAW);
    const near = at < 0 ? '' : JSON.stringify(text.slice(Math.max(0, at - 40), at + 40));
    expect(at, `${what}: a raw control character in ${name} at ${at}: ${near}\n${show(r)}`).toBe(-1);
  }
}

interface Case {
  name: string;
  args: () => string[];
  /** Exit code of the human run. */
  exit: number;
  /** A server string this output must show (escaped). */
  shows?: string;
  /** For the --json run: a path into the document and the exact server string expected there. */
  json?: { at: (doc: any) => unknown; is: string };
}

const CASES: Case[] = [
  {
    name: 'triggers ls',
    args: () => ['triggers', 'ls'],
    exit: 0,
    shows: 'Demo request',
    json: { at: (d) => d.triggers[0].name, is: h('Demo request') },
  },
  {
    name: 'triggers show',
    args: () => ['triggers', 'show', HOSTILE_IDS.trigger],
    exit: 0,
    shows: 'Company',
    json: { at: (d) => d.fields[0].label, is: h('Company') },
  },
  {
    name: 'trigger fire',
    args: () => ['trigger', 'fire', HOSTILE_IDS.trigger, '--email', 'lead@acme.example', '--field', FIELD],
    exit: 0,
    shows: 'https://book.example.com/x',
    json: { at: (d) => d.outcome.schedulerUrl, is: h('https://book.example.com/x') },
  },
  {
    name: 'events ls',
    args: () => ['events', 'ls'],
    exit: 0,
    shows: 'Intro Call',
    json: { at: (d) => d.nextCursor, is: h('cursor') },
  },
  {
    name: 'events show',
    args: () => ['events', 'show', 'intro-call'],
    exit: 0,
    shows: 'Amelia Hart',
    json: { at: (d) => d.questions[0].options[0].label, is: h('EMEA') },
  },
  {
    name: 'slots',
    args: () => ['slots', 'intro-call', '--days', '2'],
    exit: 0,
    shows: '4fb19052-6d8e-407f-9bc2-5e6f708192a3',
    json: { at: (d) => d.reservationId, is: HOSTILE_IDS.reservation },
  },
  {
    name: 'book',
    args: () => ['book', 'intro-call', '--start', future(), '--reservation', UUID, '--email', 'lead@acme.example'],
    exit: 0,
    shows: 'Intro Call',
    json: { at: (d) => d.meeting.title, is: h('Intro Call') },
  },
  {
    name: 'reschedule',
    args: () => ['reschedule', UUID, '--start', future()],
    exit: 0,
    shows: 'rescheduled',
    json: { at: (d) => d.meeting.status, is: h('rescheduled') },
  },
  {
    name: 'route --slot first --yes',
    args: () => [
      'route',
      '--trigger',
      HOSTILE_IDS.trigger,
      '--email',
      'lead@acme.example',
      '--field',
      FIELD,
      '--slot',
      'first',
      '--yes',
    ],
    exit: 0,
    shows: 'Demo request',
    json: { at: (d) => d.trigger.name, is: h('Demo request') },
  },
  {
    name: 'route --debug (request bodies quote server ids)',
    args: () => [
      'route',
      '--trigger',
      HOSTILE_IDS.trigger,
      '--email',
      'lead@acme.example',
      '--field',
      FIELD,
      '--slot',
      'first',
      '--yes',
      '--debug',
    ],
    exit: 0,
  },
  {
    name: 'smoke (contract problems quote the server)',
    args: () => ['smoke', '--trigger', HOSTILE_IDS.trigger, '--email', 'lead@acme.example', '--field', FIELD, '--book'],
    exit: 1,
    shows: 'Unrecognized key: "x-extra',
  },
  {
    name: 'api GET',
    args: () => ['api', 'GET', '/v1/triggers'],
    exit: 0,
    json: { at: (d) => d[h('x-extra')], is: h('extra') },
  },
  // Error paths: the envelope's code, message and details, and hints built from server names.
  {
    name: 'error: 404 envelope',
    args: () => ['events', 'show', REFUSED.event],
    exit: 4,
    shows: 'no such event',
    json: { at: (d) => d.error.details[0], is: h('field: reason one') },
  },
  {
    name: 'error: 400 on fire',
    args: () => ['trigger', 'fire', HOSTILE_IDS.trigger, '--email', REFUSED.fireEmail, '--field', FIELD],
    exit: 2,
    shows: 'the form refused this lead',
    json: { at: (d) => d.error.message, is: h('the form refused this lead') },
  },
  {
    name: 'error: hint naming server triggers',
    args: () => ['trigger', 'fire', 'No such trigger', '--email', 'lead@acme.example'],
    exit: 4,
    shows: 'Demo request',
  },
  {
    name: 'error: 409 on book',
    args: () => [
      'book',
      'intro-call',
      '--start',
      future(),
      '--reservation',
      REFUSED.reservation,
      '--email',
      'lead@acme.example',
    ],
    exit: 5,
    shows: 'that time was just taken',
    json: { at: (d) => d.error.message, is: h('that time was just taken') },
  },
];

const run = (args: string[]) =>
  runCli(args, {
    configDir: tempDir(),
    env: { SCHEDCTL_BASE_URL: server.baseUrl, SCHEDCTL_API_KEY: KEY },
    timeoutMs: 30_000,
  });

describe.concurrent('hostile server text: shown escaped, never interpreted', () => {
  it.each(CASES)(
    '$name: human output has no raw control characters and shows them escaped',
    async (c) => {
      const r = await run(c.args());
      expect(r.code, show(r)).toBe(c.exit);
      expectNoRawControls(r, c.name);
      const all = r.stdout + r.stderr;
      expect(all, show(r)).not.toMatch(/\bbug\b/);
      if (c.shows) expect(all, show(r)).toContain(`${c.shows}${HOSTILE_SHOWN}`);
    },
    40_000,
  );

  it.each(CASES.filter((c) => c.json))(
    '$name --json: the exact server strings come back',
    async (c) => {
      const r = await run([...c.args(), '--json']);
      expect(r.code, show(r)).toBe(c.exit);
      expectNoRawControls(r, `${c.name} --json`);
      expect(c.json!.at(r.json())).toBe(c.json!.is);
    },
    40_000,
  );
});

describe('hostile server text in the record: meetings history (issue 52)', () => {
  it('shows the ids the server answered escaped in the lead timeline, and exact in --json', async () => {
    const configDir = tempDir();
    const env = { SCHEDCTL_BASE_URL: server.baseUrl, SCHEDCTL_API_KEY: KEY };
    const cli = (args: string[]) => runCli(args, { configDir, env, timeoutMs: 30_000 });
    const email = 'lead@acme.example';
    const booked = await cli([
      'book',
      'intro-call',
      '--start',
      future(),
      '--reservation',
      UUID,
      '--email',
      email,
      '--json',
    ]);
    expect(booked.code, show(booked)).toBe(0);
    const id = (booked.json() as { meeting: { id: string } }).meeting.id;
    const r = await cli(['meetings', 'history', email]);
    expect(r.code, show(r)).toBe(0);
    expectNoRawControls(r, 'meetings history');
    expect(r.stdout, show(r)).toContain(HOSTILE_SHOWN);
    const doc = (await cli(['meetings', 'history', email, '--json'])).json() as {
      entries: { kind: string; meetingId?: string }[];
    };
    expect(doc.entries.find((e) => e.kind === 'booking')?.meetingId).toBe(id);
  }, 40_000);
});

describe.skipIf(!hasTmux)('the route wizard in a real terminal (tmux) against the hostile server', () => {
  let pane: Pane | undefined;
  afterAll(() => pane?.kill());

  it('shows trigger names, labels and options escaped; the window title is not changed', async () => {
    pane = startPane('hostile-route', ['route', '--tz', 'UTC'], {
      SCHEDCTL_BASE_URL: server.baseUrl,
      SCHEDCTL_API_KEY: KEY,
      SCHEDCTL_CONFIG_DIR: tempDir(),
      NO_COLOR: '1',
      TZ: 'UTC',
    });
    const { waitFor, type } = pane;
    const title = () =>
      execFileSync(
        'tmux',
        [
          '-L',
          `schedctl-hostile-route-${process.pid}`,
          'display-message',
          '-p',
          '-t',
          'hostile-route',
          '#{pane_title}',
        ],
        { encoding: 'utf8' },
      ).trim();
    await waitFor('Trigger (type to filter)');
    await waitFor('Demo request\\x1b]0;pwned\\x07');
    await type(['Enter']);
    await waitFor("Lead's email");
    await type(['-l', 'ada@acme.example']);
    await type(['Enter']);
    await waitFor('Company\\x1b]0;pwned');
    await type(['-l', 'Acme']);
    await type(['Enter']);
    await waitFor('Region\\x1b]0;pwned');
    await waitFor('EMEA\\x1b]0;pwned');
    await type(['Enter']);
    await waitFor('workflow run) (Y/n)');
    await type(['Enter']);
    await waitFor('pick a day');
    await type(['Enter']);
    await waitFor('← other days');
    await type(['Enter']);
    await waitFor('Add guest details');
    await type(['Enter']);
    await waitFor('Book ');
    await type(['Enter']);
    await waitFor('EXIT=0', 20_000);
    const screen = pane.screen();
    expect(title(), screen).not.toContain('pwned');
    expect(screen).not.toContain('\u202e');
    expect(screen).toContain(`Booked meeting ${HOSTILE_IDS.meeting.replace(HOSTILE, HOSTILE_SHOWN)}`);
  }, 60_000);
});

// A server line can never pose as schedctl's own: with every kind of line break (LF, CRLF, CR,
// VT, FF, NEL, U+2028, U+2029) in every string it sends, no line of output starts with a forged
// `error:` or `hint:`; a real error is still its one `error:` line (and one `hint:` at most).
describe.concurrent('server text with line breaks: no forged output lines', () => {
  let forging: Awaited<ReturnType<typeof startHostileTextServer>>;
  beforeAll(async () => {
    forging = await startHostileTextServer(FORGED);
  });
  afterAll(async () => {
    await forging?.close();
  });
  // Every line break a terminal or a reader may honor, raw.
  // eslint-disable-next-line no-control-regex -- finding line breaks is the point.
  const RAW_BREAK = /[\r\x0b\x0c\x85\u2028\u2029]/;

  it.each(CASES.filter((c) => !c.name.includes('--debug')))(
    '$name',
    async (c) => {
      const r = await runCli(c.args(), {
        configDir: tempDir(),
        env: { SCHEDCTL_BASE_URL: forging.baseUrl, SCHEDCTL_API_KEY: KEY },
        timeoutMs: 30_000,
      });
      expect(r.code, show(r)).toBe(c.exit);
      const lines = `${r.stdout}\n${r.stderr}`.split('\n');
      // A multi-line field (a description) keeps its lines, indented: only a line's start can pose.
      expect(
        lines.filter((l) => /^(error|hint): forged/.test(l)),
        show(r),
      ).toEqual([]);
      expect(lines.filter((l) => l.startsWith('error:')).length, show(r)).toBe(c.exit === 0 ? 0 : 1);
      expect(lines.filter((l) => l.startsWith('hint:')).length, show(r)).toBeLessThanOrEqual(c.exit === 0 ? 0 : 1);
      expect(RAW_BREAK.test(r.stdout + r.stderr), show(r)).toBe(false);
      // Ids stay as the other server sends them (the tests pass them back); other strings show escaped.
      if (c.shows && !/^[0-9a-f-]{36}$/.test(c.shows))
        expect(r.stdout + r.stderr, show(r)).toContain(`${c.shows}\\nerror: forged LF`);
    },
    40_000,
  );
});
