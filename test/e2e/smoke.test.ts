/** `schedctl smoke` end to end: against the sandbox, its faults, and a server that breaks the contract. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSecret, runCli, show, tempDir, type RunResult } from '../helpers/cli.js';
import { startContractServer, type Breakage } from '../helpers/contract-server.js';
import { useSandbox } from '../helpers/sandbox.js';
import { findAll, parseXml } from '../unit/smoke-xml.js';

interface Check {
  name: string;
  status: 'pass' | 'fail' | 'skip';
  latencyMs: number | null;
  rateWaitMs?: number;
  detail: string;
  problems?: string[];
}
interface Report {
  ok: boolean;
  requests: number;
  rateWaitMs: number;
  checks: Check[];
  meetingId?: string;
  error?: { code: string; message: string };
}

const NAMES = ['auth', 'triggers.list', 'events.list', 'events.detail', 'slots', 'trigger.fire', 'booking'];
const ROUTED = [
  '--trigger',
  'Inbound demo request',
  '--email',
  'qa@acme.com',
  '--field',
  'company=Acme',
  '--field',
  'region=emea',
];

const check = (r: Report, name: string): Check => {
  const c = r.checks.find((x) => x.name === name);
  if (!c) throw new Error(`no check ${name} in ${JSON.stringify(r)}`);
  return c;
};
const statuses = (r: Report) => Object.fromEntries(r.checks.map((c) => [c.name, c.status]));
const report = (r: RunResult) => r.json<Report>();

const t = useSandbox();

describe('smoke against a healthy service', () => {
  it('passes every read check and prints the table, a summary and the requests used', async () => {
    const r = await t.sb.cli(['smoke']);
    expect(r.code, show(r)).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+RESULT\s+LATENCY\s+DETAIL$/);
    for (const name of NAMES.slice(0, 5))
      expect(
        lines.find((l) => l.startsWith(`${name} `)),
        r.stdout,
      ).toMatch(/\sPASS\s+\d+ ms\s/);
    expect(r.stdout).toMatch(/trigger\.fire\s+SKIP/);
    expect(r.stdout).toMatch(/booking\s+SKIP/);
    expect(r.stdout).toMatch(/smoke passed: 5 passed, 0 failed, 2 skipped; 4 requests used/);
    expect(await t.sb.requestCount()).toBe(4);
  });

  it('fires, books a routed meeting that really exists, and writes a JUnit file of passing testcases', async () => {
    const junit = join(tempDir(), 'smoke.xml');
    const r = await t.sb.cli(['smoke', ...ROUTED, '--book', '--json', '--junit', junit]);
    expect(r.code, show(r)).toBe(0);
    const doc = report(r);
    expect(doc.ok).toBe(true);
    expect(doc.checks.map((c) => c.name)).toEqual(NAMES);
    expect(doc.checks.every((c) => c.status === 'pass' && typeof c.latencyMs === 'number')).toBe(true);
    expect(check(doc, 'trigger.fire').detail).toMatch(/outcome scheduler/);
    expect(doc.requests).toBe(7);
    expect(doc.requests).toBe(await t.sb.requestCount());

    const state = await t.sb.state();
    expect(state.meetings).toHaveLength(1);
    expect(state.meetings[0]!.id).toBe(doc.meetingId);
    expect(state.meetings[0]!.personEmail).toBe('qa@acme.com');
    expect(state.meetings[0]!.workflowExecutionId).toBe(state.executions[0]!.id);
    expect(check(doc, 'booking').detail).toContain(doc.meetingId);

    const xml = parseXml(readFileSync(junit, 'utf8'));
    expect(xml.attrs).toMatchObject({ tests: '7', failures: '0', skipped: '0' });
    expect(findAll(xml, 'testcase').map((c) => c.attrs.name)).toEqual(NAMES);
    expect(findAll(xml, 'failure')).toHaveLength(0);
  });

  it("books on the event's own first slot without a trigger", async () => {
    const r = await t.sb.cli(['smoke', '--event', 'intro-call', '--book', '--email', 'qa@acme.com', '--json']);
    expect(r.code, show(r)).toBe(0);
    const doc = report(r);
    expect(statuses(doc)).toMatchObject({
      'events.detail': 'pass',
      slots: 'pass',
      'trigger.fire': 'skip',
      booking: 'pass',
    });
    const state = await t.sb.state();
    expect(state.meetings.map((m) => m.id)).toEqual([doc.meetingId]);
    // The API has no cancel: the meeting is recorded locally, so `meetings ls` finds it.
    const ls = await t.sb.cli(['meetings', 'ls', '--json'], { configDir: t.sb.configDir });
    expect(ls.json().map((m: { id: string }) => m.id)).toContain(doc.meetingId);
    const human = await t.sb.cli(['smoke', '--event', 'intro-call', '--book', '--email', 'qa2@acme.com']);
    expect(human.stdout).not.toContain('cancel it when done');
    expect(human.stdout).toContain('the API has no cancel');
    expect(human.stdout).toContain('schedctl meetings show');
    expect(state.meetings[0]!.workflowExecutionId).toBeNull();
  });

  it('skips booking when the trigger routes elsewhere (a redirect)', async () => {
    const r = await t.sb.cli([
      'smoke',
      '--trigger',
      'Partner application',
      '--email',
      'qa@acme.com',
      '--field',
      'company=Acme',
      '--field',
      'partner_type=reseller',
      '--book',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(0);
    const doc = report(r);
    expect(check(doc, 'trigger.fire').detail).toMatch(/outcome redirect to https:\/\/partners\.example\.com/);
    expect(check(doc, 'booking')).toMatchObject({
      status: 'skip',
      detail: expect.stringMatching(/"redirect", not a scheduler/),
    });
    expect((await t.sb.state()).meetings).toHaveLength(0);
  });
});

describe('smoke with a key that is refused or limited', () => {
  it('fails the first check with a revoked key and skips the rest (exit 1)', async () => {
    const junit = join(tempDir(), 'smoke.xml');
    const r = await t.sb.cli(['smoke', '--json', '--junit', junit], { key: 'revoked' });
    expect(r.code, show(r)).toBe(1);
    const doc = report(r);
    expect(doc.ok).toBe(false);
    expect(doc.checks[0]).toMatchObject({
      name: 'auth',
      status: 'fail',
      detail: expect.stringContaining('401 INVALID_API_KEY'),
    });
    expect(doc.checks.slice(1).every((c) => c.status === 'skip')).toBe(true);
    expect(doc.error?.code).toBe('SMOKE_FAILED');
    expect(await t.sb.requestCount()).toBe(1);
    const failures = findAll(parseXml(readFileSync(junit, 'utf8')), 'failure');
    expect(failures.map((f) => f.attrs.message)).toEqual([doc.checks[0]!.detail]);
  });

  it('passes reads with a read-only key and fails --book naming the missing scope', async () => {
    const r = await t.sb.cli(['smoke', '--book', '--email', 'qa@acme.com'], { key: 'readOnly' });
    expect(r.code, show(r)).toBe(1);
    for (const name of NAMES.slice(0, 5)) expect(r.stdout).toMatch(new RegExp(`${name.replace('.', '\\.')}\\s+PASS`));
    expect(r.stdout).toMatch(/booking\s+FAIL\s+\d+ ms\s+missing scope scheduling:write/);
    expect(r.stderr).toContain('1 smoke check failed: booking');
    expect((await t.sb.state()).meetings).toHaveLength(0);
  });

  it('exits 3 without a key and 2 on a bad flag, before any request', async () => {
    const noKey = await t.sb.cli(['smoke'], { env: { SCHEDCTL_API_KEY: undefined } });
    expect(noKey.code, show(noKey)).toBe(3);
    for (const args of [
      ['--max-latency', 'fast'],
      ['--trigger', 'x'],
      ['--book'],
      ['--field', 'a=b'],
      ['--junit', '/no/such/dir/x.xml'],
    ]) {
      const r = await t.sb.cli(['smoke', ...args, '--json']);
      expect(r.code, show(r)).toBe(2);
      expect(r.json().error.code).toBe('USAGE');
    }
    expect(await t.sb.requestCount()).toBe(0);
  });
});

describe('smoke against the sandbox faults', () => {
  afterEach(() => t.sb.clearFaults());

  const run = async (rule: Record<string, unknown>, args: string[] = []) => {
    await t.sb.fault(rule);
    const r = await t.sb.cli(['smoke', '--json', ...args]);
    expect(r.code, show(r)).toBe(1);
    return report(r);
  };

  it("html from a gateway fails the events list and says it is not the API's JSON", async () => {
    const doc = await run({ method: 'GET', path: '/v1/scheduling/events', fault: 'html', count: 10 });
    expect(statuses(doc)).toMatchObject({
      auth: 'pass',
      'triggers.list': 'pass',
      'events.list': 'fail',
      'events.detail': 'skip',
    });
    expect(check(doc, 'events.list').detail).toMatch(/HTTP 502 and text\/html.*not the API's JSON.*after 4 attempts/);
  });

  it('a cut-off body fails the event detail', async () => {
    const doc = await run({ method: 'GET', path: '/v1/scheduling/events/*', fault: 'truncate' });
    expect(statuses(doc)).toMatchObject({ 'events.list': 'pass', 'events.detail': 'fail', slots: 'skip' });
    expect(check(doc, 'events.detail').detail).toMatch(/HTTP 200 with JSON that does not parse \(a cut-off body\?\)/);
  });

  it('a 500 that outlasts the retries fails the slots check', async () => {
    const doc = await run({ path: '/v1/scheduling/events/*/slots', fault: 'status', status: 500, count: 10 });
    expect(statuses(doc)).toMatchObject({ 'events.detail': 'pass', slots: 'fail' });
    expect(check(doc, 'slots').detail).toMatch(/answered HTTP 500 INTERNAL_ERROR/);
  });

  it('a 500 on the fire fails it without repeating it', async () => {
    const doc = await run({ method: 'POST', path: '/v1/triggers/*', fault: 'status', status: 500 }, ROUTED);
    expect(check(doc, 'trigger.fire')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/INTERNAL_ERROR.*may have been processed/),
    });
    const fires = (await t.sb.state()).requests.filter(
      (q) => q.method === 'POST' && q.path.startsWith('/v1/triggers/'),
    );
    expect(fires).toHaveLength(1);
  });

  it('waits out a 429 per Retry-After instead of failing', async () => {
    await t.sb.fault({
      method: 'GET',
      path: '/v1/scheduling/events',
      fault: 'status',
      status: 429,
      code: 'RATE_LIMITED',
      retryAfter: 1,
    });
    const r = await t.sb.cli(['smoke', '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(check(report(r), 'events.list')).toMatchObject({ status: 'pass', latencyMs: expect.any(Number) });
    // The wait the server asked for is the rate budget's, reported apart from the API's latency.
    expect(check(report(r), 'events.list').latencyMs).toBeLessThan(900);
    expect(check(report(r), 'events.list').rateWaitMs).toBeGreaterThanOrEqual(900);
    expect(r.stderr).toContain('rate limited');
    expect(report(r).requests).toBe(5);
  });

  it('a slow answer past --max-latency fails that check and says so', async () => {
    const doc = await run({ method: 'GET', path: '/v1/scheduling/events/*', fault: 'delay', delayMs: 1200 }, [
      '--max-latency',
      '800',
    ]);
    expect(statuses(doc)).toMatchObject({ 'events.list': 'pass', 'events.detail': 'fail', slots: 'pass' });
    expect(check(doc, 'events.detail').detail).toMatch(/^took \d+ ms, over the --max-latency budget of 800 ms/);
    expect(check(doc, 'events.detail').latencyMs).toBeGreaterThanOrEqual(1200);
  });
});

describe("smoke measures the API, not the key's rate budget", () => {
  // A budget of 5 requests per 4 s window (test-only knob: the real one is 30 a minute).
  const budgetEnv = { SCHEDCTL_RATE: '5', SCHEDCTL_TEST_RATE_WINDOW_MS: '4000' };

  it('waits once, before timing, when the budget is in use, and passes a low --max-latency', async () => {
    const dir = tempDir();
    const spend = await t.sb.cli(['smoke', '--json'], { configDir: dir, env: budgetEnv });
    expect(spend.code, show(spend)).toBe(0);
    const junit = join(tempDir(), 'smoke.xml');
    const r = await t.sb.cli(['smoke', '--max-latency', '1000', '--json', '--junit', junit], {
      configDir: dir,
      env: budgetEnv,
    });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toMatch(
      /the rate budget for this key has 1 of 5 requests left this minute and smoke needs 4: waiting \d+ s once, before timing starts/,
    );
    const doc = report(r);
    expect(doc.ok).toBe(true);
    for (const c of doc.checks.filter((x) => x.status === 'pass')) expect(c.latencyMs).toBeLessThan(1000);
    expect(doc.rateWaitMs).toBeGreaterThan(1000);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<property name="rateWaitMs" value="\d{4,}"\/>/);
    expect(xml).not.toContain('<failure');
  });

  it('a wait for the budget during the run is reported apart (text and JSON) and never fails a check', async () => {
    // 2 requests per window: the run's 4 cannot fit, so two of them wait mid-run. The window (6 s)
    // is long enough that a wait outlasts the latency budget (3 s) even when the first two requests
    // were slow, and the budget is far above what a loaded machine's sandbox takes to answer.
    const env = { SCHEDCTL_RATE: '2', SCHEDCTL_TEST_RATE_WINDOW_MS: '6000' };
    const dir = tempDir();
    const r = await t.sb.cli(['smoke', '--max-latency', '3000', '--json'], { configDir: dir, env });
    expect(r.code, show(r)).toBe(0);
    const doc = report(r);
    const waited = doc.checks.filter((c) => (c.rateWaitMs ?? 0) > 3000);
    expect(waited.length, JSON.stringify(doc)).toBeGreaterThan(0);
    for (const c of waited) expect(c).toMatchObject({ status: 'pass' });
    for (const c of waited) expect(c.latencyMs).toBeLessThan(3000);
    const text = await t.sb.cli(['smoke', '--max-latency', '3000'], { configDir: tempDir(), env });
    expect(text.code, show(text)).toBe(0);
    expect(text.stdout).toMatch(/PASS\s+\d+ ms \(\+\d+\.\d s budget wait\)/);
    expect(text.stdout).toMatch(/waited \d+\.\d s for the key's rate budget \(not counted as latency\)/);
  });
});

describe('smoke against a server that breaks the contract', () => {
  const KEY = 'sk_test_contract_0123456789';
  registerSecret(KEY);
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  const run = async (breakage: Breakage, args: string[] = []) => {
    const server = await startContractServer(breakage);
    close = server.close;
    return runCli(['smoke', '--json', '--base-url', server.baseUrl, ...args], { env: { SCHEDCTL_API_KEY: KEY } });
  };
  const routedBook = ['--trigger', 'Demo request', '--email', 'qa@acme.com', '--field', 'company=Acme', '--book'];

  it('passes when every answer follows the spec (the fixtures are valid)', async () => {
    const r = await run({}, routedBook);
    expect(r.code, show(r)).toBe(0);
    expect(report(r).checks.every((c) => c.status === 'pass')).toBe(true);
  });

  it('names an extra property in a Meeting', async () => {
    const r = await run({ meeting: (m) => (m.hostEmail = 'amelia@acme.com') }, routedBook);
    expect(r.code, show(r)).toBe(1);
    const booking = check(report(r), 'booking');
    expect(booking.status).toBe('fail');
    expect(booking.problems).toEqual([expect.stringMatching(/^\$: Unrecognized key: "hostEmail"/)]);
    expect(booking.detail).toContain('meeting 61d3b274-8fa0-4291-9de4-708192a3b4c5 booked');
    expect(report(r).meetingId).toBe('61d3b274-8fa0-4291-9de4-708192a3b4c5');
  });

  it('names a bad enum value', async () => {
    const r = await run({ events: (b) => (b.events[0].conferencingType = 'teams') });
    expect(r.code, show(r)).toBe(1);
    expect(check(report(r), 'events.list').problems).toEqual([
      expect.stringMatching(/^\$\.events\[0\]\.conferencingType: Invalid option/),
    ]);
  });

  it('names a non-uuid id', async () => {
    const r = await run({ triggers: (b) => (b.triggers[0].id = 'trg_123') });
    expect(r.code, show(r)).toBe(1);
    const doc = report(r);
    expect(check(doc, 'auth').status).toBe('pass');
    expect(check(doc, 'triggers.list').problems).toEqual(['$.triggers[0].id: Invalid UUID']);
  });

  it('names a missing field, in the table as well', async () => {
    const server = await startContractServer({ event: (e) => delete e.hosts });
    close = server.close;
    const r = await runCli(['smoke', '--base-url', server.baseUrl], { env: { SCHEDCTL_API_KEY: KEY } });
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toMatch(
      /events\.detail\s+FAIL\s+\d+ ms\s+GET \/v1\/scheduling\/events\/[\w-]+: the body breaks the API contract \(1 problem\): \$\.hosts: Invalid input/,
    );
    expect(r.stdout).toMatch(
      /Contract problems:\n {2}events\.detail: \$\.hosts: Invalid input: expected array, received undefined/,
    );
  });
});
