/**
 * Whose clock (issue 36, A): the server's decides whether a lead's meeting is over. A local clock
 * ahead of the server's (libfaketime's `+7d`, here a preloaded shift of the CLI's Date) must never
 * make a booked lead look free; a server clock ahead of ours (the sandbox's clock hook) ends a
 * meeting when the server says so. Checked against the sandbox's own meetings per lead.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookSlotArgs, demoRouteFirstArgs } from '../helpers/args.js';
import { show, type RunResult } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { skewedClockEnv } from '../helpers/skewed-clock.js';
import { formatDuration } from '../../src/domain/server-clock.js';
import { startDateForwarder, type DateForwarder } from '../helpers/date-forwarder.js';

const DAY = 86_400_000;
const WEEK_S = 7 * 86_400;
const t = useSandbox();

const cli = (args: string[], env: Record<string, string> = {}): Promise<RunResult> =>
  t.sb.cli(args, { configDir: t.dir, env });
/** This machine's clock a week ahead of the server's (the meeting booked "tomorrow" is in its past). */
const ahead = (args: string[]) => cli(args, skewedClockEnv(7 * DAY));

/**
 * The skew line for the skew the CLI measured (`clockSkew.aheadSeconds`), whatever the machine's
 * speed: the measure is the server's Date header against this machine's clock on arrival, so a
 * slow answer takes its latency off a server that is ahead (21 d is then "20 d 23 h").
 */
const skewLine = (aheadSeconds: number) =>
  `this machine's clock is ${formatDuration(aheadSeconds * 1000)} ${aheadSeconds > 0 ? 'ahead of' : 'behind'} the server's`;

async function meetingsOf(email: string) {
  return (await t.sb.state()).meetings.filter((m) => m.personEmail === email);
}

async function routed(email: string, region = 'emea') {
  const r = await cli([...demoRouteFirstArgs(email, region), '--json']);
  expect(r.code, show(r)).toBe(0);
  expect(r.json()).toMatchObject({ status: 'booked' });
  return r.json().meeting as { id: string; date: string };
}

describe('a local clock ahead of the server', () => {
  it('route: the lead with a meeting soon is refused (other answers) or answered already_booked (the same), never booked twice', async () => {
    const email = 'ahead-route@acme.example';
    const meeting = await routed(email);
    // By this machine's (shifted) clock the meeting is long over; by the server's it has not begun.
    expect(Date.parse(meeting.date)).toBeLessThan(Date.now() + 7 * DAY);

    const other = await ahead([...demoRouteFirstArgs(email, 'apac'), '--json', '--days', '21']);
    expect(other.code, show(other)).toBe(5);
    expect(other.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
    expect(other.json().error.message).toContain(meeting.id);
    // Said once on stderr, and in the --json document.
    expect(other.json().clockSkew).toMatchObject({ aheadSeconds: expect.any(Number) });
    const aheadSeconds = other.json().clockSkew.aheadSeconds as number;
    expect(other.stderr.split(skewLine(aheadSeconds)), show(other)).toHaveLength(2);
    // A week, give or take the time the answer took (a minute is far more than any machine needs).
    expect(Math.abs(aheadSeconds - WEEK_S)).toBeLessThan(60);

    const same = await ahead([...demoRouteFirstArgs(email, 'emea'), '--json', '--days', '21']);
    expect(same.code, show(same)).toBe(0);
    expect(same.json()).toMatchObject({ status: 'already_booked', alreadyBookedCode: 'ON_RECORD' });
    expect(same.json().meeting.id).toBe(meeting.id);
    expect(await meetingsOf(email)).toHaveLength(1);
  });

  it('meetings ls lists the meeting as upcoming by the server time on record, though this clock has it in the past', async () => {
    const email = 'ahead-ls@acme.example';
    const meeting = await routed(email);
    const ls = await ahead(['meetings', 'ls', '--json']);
    expect(ls.code, show(ls)).toBe(0);
    expect(ls.json().map((m: { id: string }) => m.id)).toEqual([meeting.id]);
    const byEmail = await ahead(['meetings', 'ls', '--email', email, '--json']);
    expect(byEmail.json()).toHaveLength(1);
    // --all is every meeting whatever the clock; nothing was sent to list them.
    expect((await ahead(['meetings', 'ls', '--all', '--json'])).json()).toHaveLength(1);
  });

  it('book, before it has heard the server: the last server time on record keeps the meeting upcoming', async () => {
    const email = 'ahead-book@acme.example';
    const meeting = await routed(email);
    const recorded = JSON.parse(readFileSync(join(t.dir, 'server-time.json'), 'utf8'));
    expect(Object.keys(recorded.apis)).toEqual([expect.stringMatching(/^http:\/\/loopback:\d+$/)]);

    // A later free time of the same event, as this machine's clock sees the future.
    const s = await ahead(['slots', 'sales-americas', '--json', '--days', '21']);
    expect(s.code, show(s)).toBe(0);
    const slots = s.json();
    const r = await ahead([...bookSlotArgs('sales-americas', slots.slots[1], slots.reservationId, email), '--json']);
    expect(r.code, show(r)).toBe(5);
    expect(r.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
    expect(r.json().error.message).toContain(meeting.id);
    expect(await meetingsOf(email)).toHaveLength(1);
  });

  it('book with no server time on record: it hears the server before refusing on this clock alone', async () => {
    const email = 'ahead-fresh@acme.example';
    const meeting = await routed(email);
    // Another machine of a team state would know nothing; here the record is removed, the meeting kept.
    rmSync(join(t.dir, 'server-time.json'));
    const s = await ahead(['slots', 'intro-call', '--json', '--days', '21']);
    expect(s.code, show(s)).toBe(0);
    rmSync(join(t.dir, 'server-time.json'));
    const slots = s.json();
    const r = await ahead([...bookSlotArgs('intro-call', slots.slots[1], slots.reservationId, email), '--json']);
    // Nothing on record, and by this clock alone the meeting is over: it hears the server first.
    expect(r.code, show(r)).toBe(5);
    expect(r.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
    expect(r.json().error.message).toContain(meeting.id);
    expect(r.stderr).toContain(skewLine(r.json().clockSkew.aheadSeconds as number));
    expect(await meetingsOf(email)).toHaveLength(1);
  });

  it('book of a lead with nothing on record sends one request, as before', async () => {
    const s = await ahead(['slots', 'intro-call', '--json', '--days', '21']);
    const slots = s.json();
    const before = await t.sb.requestCount();
    const r = await ahead([
      ...bookSlotArgs('intro-call', slots.slots[1], slots.reservationId, 'new@acme.example'),
      '--json',
    ]);
    expect(r.code, show(r)).toBe(0);
    expect((await t.sb.requestCount()) - before).toBe(1);
  });
});

describe('a server clock ahead of ours', () => {
  it('a meeting is over only when both clocks say so: the server alone ahead frees no lead; both ahead do', async () => {
    const email = 'server-ahead@acme.example';
    const first = await routed(email);
    // Three weeks on, by the server's clock only: this machine's clock says the meeting is upcoming.
    await t.sb.advance(21 * 86_400);
    const refused = await cli([...demoRouteFirstArgs(email, 'apac'), '--json', '--days', '35']);
    expect(refused.code, show(refused)).toBe(5);
    expect(refused.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
    expect(refused.json().error.message).toContain(first.id);
    // The skew as measured (21 days less the time the answer took: any machine's speed).
    const aheadSeconds = refused.json().clockSkew.aheadSeconds as number;
    expect(refused.stderr).toContain(skewLine(aheadSeconds));
    expect(aheadSeconds).toBeLessThanOrEqual(-21 * 86_400 + 60);
    expect(aheadSeconds).toBeGreaterThanOrEqual(-21 * 86_400 - 1);
    expect(await meetingsOf(email)).toHaveLength(1);
    // This clock three weeks on too: both say it is over.
    const again = await cli([...demoRouteFirstArgs(email, 'apac'), '--json', '--days', '35'], skewedClockEnv(21 * DAY));
    expect(again.code, show(again)).toBe(0);
    expect(again.json()).toMatchObject({ status: 'booked' });
    expect(await meetingsOf(email)).toHaveLength(2);
  });

  it('says nothing when the clocks agree', async () => {
    const r = await cli(['triggers', 'ls', '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).not.toContain('clock');
    expect(r.json().clockSkew).toBeUndefined();
  });
});

describe('behind a forwarder that rewrites the Date header', () => {
  let fwd: DateForwarder;
  beforeAll(async () => {
    fwd = await startDateForwarder(t.sb.baseUrl);
  });
  afterAll(async () => fwd?.close());
  const via = (args: string[]) => cli(args, { SCHEDCTL_BASE_URL: fwd.baseUrl });
  const shifted = (ms: number) => () => new Date(Date.now() + ms).toUTCString();
  const dates: [string, () => string | undefined][] = [
    ['+1 day', shifted(DAY)],
    ['+10 days', shifted(10 * DAY)],
    ['+400 days', shifted(400 * DAY)],
    ['year 9999', () => 'Fri, 31 Dec 9999 23:59:59 GMT'],
    ['a two-digit year (2049)', () => 'Friday, 31-Dec-49 23:59:59 GMT'],
    ['-30 days', shifted(-30 * DAY)],
    ['1970', () => 'Thu, 01 Jan 1970 00:00:00 GMT'],
    ['missing', () => undefined],
    ['garbage', () => 'not a date at all'],
  ];

  it('a route of a lead with an upcoming meeting never books a second one, whatever the Date says', async () => {
    const email = 'forwarded-date@acme.example';
    fwd.setDate((d) => d);
    const booked = await via([...demoRouteFirstArgs(email, 'emea'), '--json']);
    expect(booked.code, show(booked)).toBe(0);
    const id = booked.json().meeting.id as string;
    for (const [name, date] of dates) {
      fwd.setDate(date);
      const r = await via([...demoRouteFirstArgs(email, 'apac'), '--json', '--days', '21']);
      expect(r.code, `${name}\n${show(r)}`).toBe(5);
      expect(r.json().error, name).toMatchObject({ code: 'LEAD_HAS_MEETING' });
      expect(r.json().error.message).toContain(id);
      expect(await meetingsOf(email), name).toHaveLength(1);
    }
    // And the record written by those answers (the latest server time, 9999 among them) frees nobody later.
    fwd.setDate((d) => d);
    const later = await via([...demoRouteFirstArgs(email, 'apac'), '--json', '--days', '21']);
    expect(later.code, show(later)).toBe(5);
    expect(await meetingsOf(email)).toHaveLength(1);
  });
});
