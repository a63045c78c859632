/**
 * The bad-input matrix: every malformed value of every command that takes input is refused
 * locally with exit 2 and a one-line message naming the input, before any request reaches
 * the server. Each case gets its own in-process sandbox (cheap), so its request count is exact
 * even though cases run concurrently.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerSecret, show, tempDir } from '../helpers/cli.js';
import { demoFireArgs, demoRouteArgs, demoRouteFirstArgs } from '../helpers/args.js';
import { assertOneLineError } from '../helpers/pool.js';
import { startTestSandbox } from '../helpers/sandbox.js';

const UUID = '3f0e5f1e-6a43-4d5c-9c1e-2b7a0c9d1e11';
const T = 'Inbound demo request';
const files = tempDir('schedctl-badinput-');
const NOT_JSON = join(files, 'not.json');
const ARRAY_JSON = join(files, 'array.json');
const MISSING = join(files, 'missing.json');
writeFileSync(NOT_JSON, 'not json\nat all\n');
writeFileSync(ARRAY_JSON, '[1, 2]');
const ARG_KEY = 'sk_live_argumentkey_0123456789';
registerSecret(ARG_KEY);

interface Case {
  /** What is malformed, for the test name. */
  what: string;
  args: string[];
  /** Text the first stderr line must contain (the flag or input it names). */
  names: string;
  env?: Record<string, string>;
  input?: string;
  /**
   * Trigger commands look the trigger's fields up with one GET /v1/triggers before they can
   * judge --field values; they may send that read, never a POST.
   */
  mayReadTriggers?: boolean;
}

const BOOK = [
  'book',
  'intro-call',
  '--start',
  '2030-01-07T10:00:00Z',
  '--reservation',
  UUID,
  '--email',
  'lead@acme.example',
];
const FIRE = demoFireArgs('lead@acme.example');
const ROUTE = demoRouteFirstArgs('lead@acme.example');
const elevenGuests = Array.from({ length: 11 }, (_, i) => ['--guest', `g${i}@acme.example`]).flat();

const CASES: Case[] = [
  // profiles
  {
    what: 'profile add: empty key on stdin',
    args: ['profile', 'add', 'ci', '--key-stdin'],
    input: '',
    names: '--key-stdin',
  },
  {
    what: 'profile add: blank key on stdin',
    args: ['profile', 'add', 'ci', '--key-stdin'],
    input: '  \n',
    names: '--key-stdin',
  },
  {
    what: 'profile add: bad name',
    args: ['profile', 'add', 'bad name!', '--key-stdin'],
    input: 'sk_x_1234567890\n',
    names: 'profile name',
  },
  {
    what: 'profile add: key as an option',
    args: ['profile', 'add', 'ci', `--api-key=${ARG_KEY}`],
    names: 'API keys are not accepted',
  },
  {
    what: 'profile add: key as an argument',
    args: ['profile', 'add', 'ci', ARG_KEY],
    names: 'API keys are not accepted',
  },
  { what: 'profile use: unknown', args: ['profile', 'use', 'ghost'], names: '"ghost"' },
  { what: 'profile rm: unknown', args: ['profile', 'rm', 'ghost'], names: '"ghost"' },
  { what: 'profile show: unknown', args: ['profile', 'show', 'ghost'], names: '"ghost"' },
  // unknown profile and bad globals, on reads
  { what: 'events ls: unknown --profile', args: ['events', 'ls', '--profile', 'ghost'], names: '--profile' },
  {
    what: 'slots: unknown SCHEDCTL_PROFILE',
    args: ['slots', 'intro-call'],
    env: { SCHEDCTL_PROFILE: 'ghost' },
    names: 'SCHEDCTL_PROFILE',
  },
  {
    what: 'events show: --timeout abc',
    args: ['events', 'show', 'intro-call', '--timeout', 'abc'],
    names: '--timeout',
  },
  { what: 'events ls: --timeout 0', args: ['events', 'ls', '--timeout', '0'], names: '--timeout' },
  {
    what: 'triggers ls: SCHEDCTL_TIMEOUT=-1',
    args: ['triggers', 'ls'],
    env: { SCHEDCTL_TIMEOUT: '-1' },
    names: 'SCHEDCTL_TIMEOUT',
  },
  { what: 'events ls: --limit 0', args: ['events', 'ls', '--limit', '0'], names: '--limit' },
  { what: 'events ls: --limit abc', args: ['events', 'ls', '--limit', 'abc'], names: '--limit' },
  { what: 'events ls: --limit 51', args: ['events', 'ls', '--limit', '51'], names: '--limit' },
  { what: 'events show: empty event', args: ['events', 'show', ''], names: '<event>' },
  // api
  { what: 'api: bad method', args: ['api', 'FETCH', '/v1/triggers'], names: 'method' },
  { what: 'api: path without /', args: ['api', 'GET', 'v1/triggers'], names: 'path' },
  { what: 'api: absolute URL as the path', args: ['api', 'GET', 'http://evil.example/v1/triggers'], names: 'path' },
  { what: 'api: --data not JSON', args: ['api', 'POST', '/v1/scheduling/meetings', '--data', '{bad'], names: '--data' },
  {
    what: 'api: --data file missing',
    args: ['api', 'POST', '/v1/scheduling/meetings', '--data', `@${MISSING}`],
    names: '--data',
  },
  {
    what: 'api: --data file not JSON',
    args: ['api', 'POST', '/v1/scheduling/meetings', '--data', `@${NOT_JSON}`],
    names: '--data',
  },
  {
    what: 'api: --data - with empty stdin',
    args: ['api', 'POST', '/v1/scheduling/meetings', '--data', '-'],
    input: '',
    names: '--data',
  },
  // slots
  {
    what: 'slots: --to before --from',
    args: ['slots', 'intro-call', '--from', '2030-01-02', '--to', '2030-01-01'],
    names: '--to',
  },
  { what: 'slots: --days 0', args: ['slots', 'intro-call', '--days', '0'], names: '--days' },
  { what: 'slots: --days abc', args: ['slots', 'intro-call', '--days', 'abc'], names: '--days' },
  { what: 'slots: --days 999', args: ['slots', 'intro-call', '--days', '999'], names: '--days' },
  {
    what: 'slots: --to with --days',
    args: ['slots', 'intro-call', '--to', '2030-01-01', '--days', '3'],
    names: '--days',
  },
  { what: 'slots: bad --from', args: ['slots', 'intro-call', '--from', 'yesterday-ish'], names: '--from' },
  { what: 'slots: bad --tz', args: ['slots', 'intro-call', '--tz', 'Mars/Olympus'], names: '--tz' },
  {
    what: 'slots: bad --reservation uuid',
    args: ['slots', 'intro-call', '--reservation', 'res-1'],
    names: '--reservation',
  },
  // book
  { what: 'book: bad --email', args: [...BOOK, '--email', 'not-an-email'], names: '--email' },
  { what: 'book: bad --start', args: [...BOOK, '--start', 'soonish'], names: '--start' },
  { what: 'book: impossible --start date', args: [...BOOK, '--start', '2030-02-30 10:00'], names: '--start' },
  { what: 'book: bad --tz', args: [...BOOK, '--tz', 'Mars/Olympus'], names: '--tz' },
  { what: 'book: bad --lead-tz', args: [...BOOK, '--lead-tz', 'Nowhere'], names: '--lead-tz' },
  { what: 'book: bad --reservation uuid', args: [...BOOK, '--reservation', 'not-a-uuid'], names: '--reservation' },
  { what: 'book: bad --execution uuid', args: [...BOOK, '--execution', '1234'], names: '--execution' },
  { what: 'book: bad --guest', args: [...BOOK, '--guest', 'bob'], names: '--guest' },
  { what: 'book: 11 guests', args: [...BOOK, ...elevenGuests], names: '--guest' },
  { what: 'book: --response without =', args: [...BOOK, '--response', 'topic'], names: '--response' },
  {
    what: 'book: missing --email',
    args: ['book', 'intro-call', '--start', '2030-01-07T10:00:00Z', '--reservation', UUID],
    names: '--email',
  },
  { what: 'book: bad --timeout', args: [...BOOK, '--timeout', 'forever'], names: '--timeout' },
  // reschedule
  {
    what: 'reschedule: bad meeting uuid',
    args: ['reschedule', 'meeting-1', '--start', '2030-01-07T10:00:00Z'],
    names: '<meeting-id>',
  },
  { what: 'reschedule: bad --start', args: ['reschedule', UUID, '--start', 'later'], names: '--start' },
  {
    what: 'reschedule: bad --tz',
    args: ['reschedule', UUID, '--start', '2030-01-07 10:00', '--tz', 'Bad/Zone'],
    names: '--tz',
  },
  // triggers and fire
  { what: 'triggers show: empty trigger', args: ['triggers', 'show', ''], names: 'trigger' },
  { what: 'trigger fire: empty trigger', args: ['trigger', 'fire', '', '--email', 'a@acme.example'], names: 'trigger' },
  { what: 'route: empty --trigger', args: [...ROUTE, '--trigger', ''], names: 'trigger' },
  { what: 'triggers show: unknown --profile', args: ['triggers', 'show', T, '--profile', 'ghost'], names: '--profile' },
  { what: 'trigger fire: bad --email', args: [...FIRE, '--email', 'bad'], names: '--email' },
  { what: 'trigger fire: missing --email', args: ['trigger', 'fire', T, '--field', 'company=Acme'], names: '--email' },
  { what: 'trigger fire: --field without =', args: [...FIRE, '--field', 'company'], names: '--field' },
  { what: 'trigger fire: bad --context key', args: [...FIRE, '--context', 'campaign=x'], names: '--context' },
  {
    what: 'trigger fire: --context utmParams not JSON',
    args: [...FIRE, '--context', 'utmParams={bad'],
    names: '--context',
  },
  { what: 'trigger fire: --responses file missing', args: [...FIRE, '--responses', MISSING], names: '--responses' },
  { what: 'trigger fire: --responses not JSON', args: [...FIRE, '--responses', NOT_JSON], names: '--responses' },
  { what: 'trigger fire: --responses not an object', args: [...FIRE, '--responses', ARRAY_JSON], names: '--responses' },
  {
    what: 'trigger fire: unknown field name',
    args: [...FIRE, '--field', 'colour=red'],
    names: 'colour',
    mayReadTriggers: true,
  },
  {
    what: 'trigger fire: select value not an option',
    args: [...FIRE, '--field', 'region=mars'],
    names: 'region',
    mayReadTriggers: true,
  },
  {
    what: 'trigger fire: required field missing',
    args: ['trigger', 'fire', T, '--email', 'a@acme.example', '--field', 'company=Acme'],
    names: 'region',
    mayReadTriggers: true,
  },
  { what: 'trigger fire: unknown --profile', args: [...FIRE, '--profile', 'ghost'], names: '--profile' },
  // route
  { what: 'route: bad --email', args: [...ROUTE, '--email', 'bad'], names: '--email' },
  { what: 'route: missing --email', args: ['route', '--trigger', T, '--slot', 'first', '--yes'], names: '--email' },
  {
    what: 'route: missing --trigger',
    args: ['route', '--email', 'a@acme.example', '--slot', 'first', '--yes'],
    names: '--trigger',
  },
  // A missing --slot is not refused up front (a redirect or none outcome books nothing: test/e2e/route.test.ts);
  // a part of the day without "first" is, with no terminal to pick in it.
  {
    what: 'route: --slot a part of the day without a terminal',
    args: [...demoRouteArgs('a@acme.example'), '--slot', 'tue afternoon', '--yes'],
    names: '--slot',
  },
  { what: 'route: bad --slot', args: [...ROUTE, '--slot', 'whenever'], names: '--slot' },
  { what: 'route: --days 0', args: [...ROUTE, '--days', '0'], names: '--days' },
  { what: 'route: --days 64', args: [...ROUTE, '--days', '64'], names: '--days' },
  { what: 'route: bad --tz', args: [...ROUTE, '--tz', 'Bad/Zone'], names: '--tz' },
  { what: 'route: bad --lead-tz', args: [...ROUTE, '--lead-tz', 'Bad/Zone'], names: '--lead-tz' },
  { what: 'route: bad --guest', args: [...ROUTE, '--guest', 'nope'], names: '--guest' },
  { what: 'route: 11 guests', args: [...ROUTE, ...elevenGuests], names: '--guest' },
  { what: 'route: bad --timeout', args: [...ROUTE, '--timeout', 'abc'], names: '--timeout' },
  {
    what: 'route: unknown field name',
    args: [...ROUTE, '--field', 'colour=red'],
    names: 'colour',
    mayReadTriggers: true,
  },
  {
    what: 'route: select value not an option',
    args: [...ROUTE, '--field', 'region=mars'],
    names: 'region',
    mayReadTriggers: true,
  },
  // smoke
  { what: 'smoke: --max-latency abc', args: ['smoke', '--max-latency', 'abc'], names: '--max-latency' },
  { what: 'smoke: --trigger without --email', args: ['smoke', '--trigger', T], names: '--email' },
  { what: 'smoke: bad --email', args: ['smoke', '--trigger', T, '--email', 'bad'], names: '--email' },
  { what: 'smoke: --field without =', args: ['smoke', '--field', 'x'], names: '--field' },
  {
    what: 'smoke: --junit in a missing folder',
    args: ['smoke', '--junit', join(files, 'no/such/dir/report.xml')],
    names: '--junit',
  },
  // sandbox flags (nothing may start listening)
  { what: 'sandbox: --port abc', args: ['sandbox', '--port', 'abc'], names: '--port' },
  { what: 'sandbox: --port 99999', args: ['sandbox', '--port', '99999'], names: '--port' },
  { what: 'sandbox: --seed x', args: ['sandbox', '--seed', 'x'], names: '--seed' },
  { what: 'sandbox: --hold-seconds -1', args: ['sandbox', '--hold-seconds', '-1'], names: '--hold-seconds' },
  { what: 'sandbox: --rate-limit abc', args: ['sandbox', '--rate-limit', 'abc'], names: '--rate-limit' },
  {
    what: 'sandbox: --state in a missing folder',
    args: ['sandbox', '--port', '0', '--state', join(files, 'no/such/dir/state.json')],
    names: '--state',
  },
];

describe.concurrent('bad input is refused locally: exit 2, one line naming it, no request sent', () => {
  it.each(CASES)('$what', async (c) => {
    const sb = await startTestSandbox();
    try {
      const r = await sb.cli(c.args, { configDir: tempDir(), input: c.input ?? '', ...(c.env ? { env: c.env } : {}) });
      expect(r.code, show(r)).toBe(2);
      expect(assertOneLineError(r.stderr, c.names), show(r)).toBeUndefined();
      expect(r.stdout, show(r)).toBe('');
      const requests = (await sb.state()).requests.map((q) => `${q.method} ${q.path}`);
      if (c.mayReadTriggers)
        expect(
          requests.filter((q) => q !== 'GET /v1/triggers'),
          show(r),
        ).toEqual([]);
      else expect(requests, show(r)).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

describe('bad input with --json', () => {
  it('prints one USAGE error document on stdout and sends nothing', async () => {
    const sb = await startTestSandbox();
    try {
      for (const args of [
        [...BOOK, '--email', 'bad', '--json'],
        ['slots', 'intro-call', '--days', '0', '--json'],
        ['events', 'ls', '--unknown-flag', '--json'],
      ]) {
        const r = await sb.cli(args, { configDir: tempDir() });
        expect(r.code, show(r)).toBe(2);
        expect(r.json(), show(r)).toMatchObject({ error: { code: 'USAGE', message: expect.any(String) } });
      }
      expect(await sb.requestCount()).toBe(0);
    } finally {
      await sb.close();
    }
  });
});
