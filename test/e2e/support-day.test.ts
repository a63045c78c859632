/**
 * The support engineer's day (issue 27): times as people write them on every time input, and
 * errors that say what to do next (a refused key names its profile, an unknown event lists the
 * known ones, an unknown profile says how to add it).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { fireNotes } from '../../src/run/trigger/print.js';
import { demoFireArgs, demoRouteFlags } from '../helpers/args.js';
import { runCli, show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const cli = (args: string[]) => t.sb.cli(args, { configDir: t.dir, env: { TZ: 'UTC' } });
const utc = (iso: string) => DateTime.fromISO(iso, { zone: 'UTC' });

describe('one time grammar on every time input', () => {
  it('slots reads --from "thurs 15:00" as reschedule --start does, and a part of the day as a range end', async () => {
    const r = await cli(['slots', 'intro-call', '--from', 'thurs 15:00', '--days', '2', '--tz', 'UTC', '--json']);
    expect(r.code, show(r)).toBe(0);
    // The next Thursday at 15:00 (today, if it is Thursday before 15:00).
    const now = DateTime.utc();
    let thursday = now
      .set({ hour: 15, minute: 0, second: 0, millisecond: 0 })
      .plus({ days: (4 - now.weekday + 7) % 7 });
    if (thursday < now) thursday = thursday.plus({ weeks: 1 });
    expect(utc(r.json().slots[0]).toMillis()).toBeGreaterThanOrEqual(thursday.toMillis());
    const range = await cli([
      'slots',
      'intro-call',
      '--from',
      'weds morning',
      '--to',
      'weds evening',
      '--tz',
      'UTC',
      '--json',
    ]);
    expect(range.code, show(range)).toBe(0);
    for (const s of range.json().slots as string[]) {
      expect(utc(s).weekday).toBe(3);
      expect(utc(s).hour).toBeLessThan(21);
    }
  });

  it('route --slot "first next tuesday afternoon" books the first free time in it, without a terminal', async () => {
    const r = await cli([
      'route',
      ...demoRouteFlags(),
      '--slot',
      'first next tuesday afternoon',
      '--yes',
      '--tz',
      'UTC',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(0);
    const at = utc(r.json().meeting.date);
    expect(at.weekday).toBe(2);
    expect(at.hour).toBeGreaterThanOrEqual(12);
    expect(at.hour).toBeLessThan(17);
  });

  it('a part of the day without "first" and without a terminal is refused before any request, saying how', async () => {
    const r = await cli(['route', ...demoRouteFlags(), '--slot', 'tue afternoon', '--yes', '--tz', 'UTC']);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('a part of the day is a range');
    expect(r.stderr).toContain('first tue afternoon');
    const typo = await cli(['slots', 'intro-call', '--from', 'tursday 15:00']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean "thursday 15:00"?');
    expect(await t.sb.requestCount()).toBe(0);
  });
});

describe('errors that say what to do next', () => {
  it('a refused key names the profile and says how to check or replace it; the server text is a detail', async () => {
    const add = await runCli(['profile', 'add', 'prod', '--key-stdin', '--no-verify', '--base-url', t.sb.baseUrl], {
      configDir: t.dir,
      input: `${t.sb.keys.revoked}\n`,
    });
    expect(add.code, show(add)).toBe(0);
    const r = await runCli(['events', 'ls', '--profile', 'prod'], { configDir: t.dir });
    expect(r.code, show(r)).toBe(3);
    const [headline = ''] = r.stderr.split('\n');
    expect(headline).toMatch(/^error: the API at .* refused the key of profile "prod"/);
    expect(headline).not.toContain('Bearer');
    expect(r.stderr).toContain('schedctl profile show prod');
    expect(r.stderr).toContain('schedctl profile add prod --key-stdin');
    expect(r.stderr).toMatch(/^ {2}- the server said: /m);
    const env = await t.sb.cli(['events', 'ls'], { configDir: t.dir, key: 'revoked' });
    expect(env.stderr).toContain('refused the key in SCHEDCTL_API_KEY');
  });

  it('events show <unknown> lists the known slugs, the nearest first', async () => {
    const r = await cli(['events', 'show', 'intro-cal']);
    expect(r.code, show(r)).toBe(4);
    expect(r.stderr).toContain('did you mean "intro-call"?');
    expect(r.stderr).toMatch(/known events: .*quarterly-review/);
  });

  it('an unknown --profile says how to add it', async () => {
    await runCli(['profile', 'add', 'staging', '--key-stdin', '--no-verify', '--base-url', t.sb.baseUrl], {
      configDir: t.dir,
      input: `${t.sb.keys.full}\n`,
    });
    const r = await runCli(['events', 'ls', '--profile', 'prod'], { configDir: t.dir });
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('known profiles: staging');
    expect(r.stderr).toContain('schedctl profile add prod --key-stdin');
  });
});

describe('claims that are exactly true', () => {
  it('an already-booked re-run of route says what it did send (the trigger list), not "nothing was sent"', async () => {
    const args = ['route', ...demoRouteFlags('rerun@acme.example'), '--slot', 'first', '--yes', '--tz', 'UTC'];
    const first = await cli(args);
    expect(first.code, show(first)).toBe(0);
    const before = (await t.sb.state()).requests.length;
    const again = await cli(args);
    expect(again.code, show(again)).toBe(0);
    const sent = (await t.sb.state()).requests.slice(before).map((q) => `${q.method} ${q.path}`);
    expect(sent).toEqual(['GET /v1/triggers']);
    expect(again.stdout).toContain('Already booked');
    expect(again.stdout).not.toContain('nothing was sent');
    expect(again.stdout).toContain('GET /v1/triggers');
  });

  it('trigger fire and route word the same notes identically', async () => {
    const email = 'same@acme.example';
    const notes = (stderr: string) =>
      stderr
        .split('\n')
        .filter((l) => l.includes('Firing') || l.includes('other answers'))
        .map((l) => l.replace(/workflow run [0-9a-f-]+/, 'workflow run <id>'));
    const fire = await cli(demoFireArgs(email, 'americas'));
    expect(fire.code, show(fire)).toBe(0);
    const route = await cli(['route', ...demoRouteFlags(email, 'emea'), '--slot', 'first', '--yes']);
    expect(route.code, show(route)).toBe(0);
    const firing = (stderr: string) => notes(stderr).filter((l) => l.startsWith('Firing'));
    expect(firing(route.stderr)).toEqual(firing(fire.stderr));
    expect(firing(fire.stderr)).toHaveLength(1);
    // The other note, as `trigger fire` words it (one function for both commands).
    expect(notes(route.stderr)).toContain(`warning: ${fireNotes.answersChanged(email, '<id>')}`);
  });

  it('route --slot <a busy time> says the workflow run is kept for the retry (the times are known only after the fire)', async () => {
    const flags = demoRouteFlags('busy@acme.example');
    const busy = DateTime.utc().plus({ days: 2 }).set({ hour: 3, minute: 7, second: 0, millisecond: 0 }).toISO();
    const r = await cli(['route', ...flags, '--slot', busy!, '--yes', '--tz', 'Asia/Tokyo']);
    expect(r.code, show(r)).toBe(5);
    expect(r.stderr).toContain('is not a free time');
    // Times for people: in the --tz zone as the tables show them; the ISO only as the --slot value to paste.
    const local = (iso: string) => DateTime.fromISO(iso, { zone: 'Asia/Tokyo' }).toFormat('yyyy-MM-dd HH:mm ZZZZ');
    expect(r.stderr).toContain(`the --slot time ${local(busy!)} is not a free time`);
    const offered = [...r.stderr.matchAll(/^ {2}- free: (\d{4}-\d\d-\d\d \d\d:\d\d GMT\+9) {3}--slot (\S+)$/gm)];
    expect(offered.length, r.stderr).toBeGreaterThan(0);
    for (const [, shown, iso] of offered) expect(shown).toBe(local(iso!));
    expect(r.stderr.replace(/--slot \S+/g, '')).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    expect(r.stderr).toContain('the workflow run is kept: the same command again reuses it');
    const retry = await cli(['route', ...flags, '--slot', 'first', '--yes', '--json']);
    expect(retry.json()).toMatchObject({ status: 'booked', reused: true });
  });

  it('bulk takes --file, the clearer name of --from (kept), and help says so', async () => {
    const file = join(t.dir, 'leads.csv');
    writeFileSync(file, 'email,company,region\nada@acme.example,Acme,emea\n');
    const byFile = await cli(['route', '--file', file, '--trigger', 'Inbound demo request', '--dry-run']);
    expect(byFile.code, show(byFile)).toBe(0);
    expect(byFile.stdout).toContain('1 row, 4 requests');
    const byFrom = await cli(['route', '--from', file, '--trigger', 'Inbound demo request', '--dry-run']);
    expect(byFrom.stdout).toBe(byFile.stdout);
    const both = await cli(['reschedule', '--file', file, '--from', file]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--file (or its older name --from), not both');
    const help = await cli(['route', '--help']);
    expect(help.stdout).toMatch(/--file <file>/);
    expect(help.stdout).toContain('the same as --file');
  });
});

describe('small things people notice', () => {
  it('meetings ls shows the event (slug, or the scheduling link), not the title; meetings show labels a link id "link id"', async () => {
    const routed = await cli(['route', ...demoRouteFlags('link@acme.example'), '--slot', 'first', '--yes', '--json']);
    expect(routed.code, show(routed)).toBe(0);
    const { meeting, schedulingLinkId } = routed.json();
    const ls = await cli(['meetings', 'ls', '--tz', 'UTC']);
    const row = ls.stdout.split('\n').find((l) => l.includes(meeting.id))!;
    // The link's id cut short (its whole id is in `meetings show` and --json): the table fits 120 columns.
    expect(row).toContain(`link ${schedulingLinkId.slice(0, 8)}…`);
    expect(row).not.toContain(schedulingLinkId);
    for (const line of ls.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(120);
    expect(row).not.toContain(meeting.title);
    const json = await cli(['meetings', 'ls', '--json']);
    expect(JSON.stringify(json.json())).toContain(schedulingLinkId);
    const shown = await cli(['meetings', 'show', meeting.id, '--tz', 'UTC']);
    expect(shown.stdout).toMatch(new RegExp(`link id +${schedulingLinkId}`));
    expect(shown.stdout).toMatch(new RegExp(`event id +${meeting.eventId}`));
    expect(shown.stdout).not.toMatch(/^ {2}event {2,}/m);
    // In UTC a time prints once.
    expect(shown.stdout).not.toContain('UTC (');
  });

  it('reschedule --start "first <day> afternoon" moves to the first free time in it, without a terminal', async () => {
    const { reservationId, slots } = await t.sb.slots('quarterly-review', 7);
    const b = await cli([
      'book',
      'quarterly-review',
      '--start',
      slots[0]!,
      '--reservation',
      reservationId,
      '--email',
      'mv@acme.example',
      '--json',
    ]);
    expect(b.code, show(b)).toBe(0);
    const r = await cli([
      'reschedule',
      '--email',
      'mv@acme.example',
      '--start',
      'first next tuesday afternoon',
      '--tz',
      'UTC',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(0);
    const at = utc(r.json().meeting.date);
    expect(at.weekday).toBe(2);
    expect(at.hour).toBeGreaterThanOrEqual(12);
    expect(at.hour).toBeLessThan(17);
  });

  it("no upcoming meeting in this machine's record: the message names the team state as the way to see other machines' meetings", async () => {
    const r = await cli(['reschedule', '--email', 'elsewhere@acme.example', '--start', 'tomorrow 15:00', '--json']);
    expect(r.code, show(r)).toBe(4);
    const error = r.json<{ error: { message: string; hint: string } }>().error;
    expect(error.message).toContain('no upcoming meeting of elsewhere@acme.example in the local record');
    expect(error.hint).toContain("the record is this machine's");
    expect(error.hint).toContain('team state (docs/team-state.md');
    const shown = await cli(['meetings', 'show', '00000000-0000-4000-8000-000000000000', '--json']);
    expect(shown.code, show(shown)).toBe(4);
    expect(shown.json<{ error: { hint: string } }>().error.hint).toContain('team state (docs/team-state.md');
  });
});
