/**
 * A move finds a time the meeting's host accepts (issue 43, finding 1). The API moves a meeting
 * "keeping its host assignments" while an event's free times are all its hosts': on product-demo
 * (three hosts in London, New York and Tokyo) many of the event's free times are refused for one
 * meeting. The sandbox's fault hook answers the first PATCHes 409 CONFLICT (nothing done), as a
 * busy host would; the PATCHes are counted in the sandbox's request log.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { show } from '../helpers/cli.js';
import { startMcp } from '../helpers/mcp-client.js';
import { useSandbox } from '../helpers/sandbox.js';
import { hasTmux, useTerminalSandbox } from '../helpers/tmux.js';

const t = useSandbox();
const cli = (args: string[]) => t.sb.cli(args, { configDir: t.dir });
const PATCH = '/v1/scheduling/meetings/*';
const refuse = (count: number) =>
  t.sb.fault({ method: 'PATCH', path: PATCH, fault: 'status', status: 409, code: 'CONFLICT', count });
const patches = async () => (await t.sb.state()).requests.filter((r) => r.method === 'PATCH');
const utc = (iso: string) => DateTime.fromISO(iso, { zone: 'UTC' });
/** `first thu dec 3`: a day as people name it, that no clock reading can make ambiguous. */
const firstOf = (day: DateTime) => `first ${day.toFormat('ccc LLL d').toLowerCase()}`;

interface Tried {
  startTime: string;
  answer: string;
}

/**
 * product-demo booked at 15:00 UTC on a weekday at least five days ahead (past the seed's busy
 * blocks): a time its London and New York hosts both work, so either may hold it. Returns the
 * meeting and a later weekday with free times from 13:00 to 17:00 UTC.
 */
async function bookedDemo(email: string): Promise<{ id: string; date: string; target: DateTime; free: string[] }> {
  const { reservationId, slots } = await t.sb.slots('product-demo', 21);
  const soon = DateTime.utc().plus({ days: 5 }).startOf('day');
  const at = slots.find((x) => utc(x) >= soon && utc(x).hour === 15 && utc(x).minute === 0 && utc(x).weekday <= 5)!;
  const b = await cli([
    'book',
    'product-demo',
    '--start',
    at,
    '--reservation',
    reservationId,
    '--email',
    email,
    '--json',
  ]);
  expect(b.code, show(b)).toBe(0);
  const later = slots.filter((x) => utc(x).hasSame(utc(at), 'day') === false && utc(x) > utc(at));
  const target = utc(later.find((x) => utc(x).weekday <= 5 && utc(x).hour === 13)!).startOf('day');
  return { id: b.json().meeting.id, date: at, target, free: slots };
}

describe('reschedule --start "first <day>" searches for a time the host accepts', () => {
  it('moves the meeting when the first two times tried are refused, in at most 6 PATCHes; --json lists what was tried', async () => {
    const m = await bookedDemo('search@acme.example');
    await refuse(2);
    const r = await cli([
      'reschedule',
      '--email',
      'search@acme.example',
      '--start',
      firstOf(m.target),
      '--tz',
      'America/New_York',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(0);
    const moved = r.json<{ status: string; meeting: { id: string; date: string }; tried: Tried[] }>();
    expect(moved.status).toBe('moved');
    const doc = { ...moved.meeting, tried: moved.tried };
    expect(doc.id).toBe(m.id);
    expect(utc(doc.date).hasSame(m.target, 'day')).toBe(true);
    expect(doc.tried.map((x) => x.answer)).toEqual(['CONFLICT', 'CONFLICT', 'moved']);
    expect(doc.tried.at(-1)!.startTime).toBe(doc.date);
    // The times near the hours the meeting has (15:00 UTC) first, earliest first.
    expect(doc.tried.map((x) => utc(x.startTime).toFormat('HH:mm'))).toEqual(['13:00', '13:30', '14:00']);
    const sent = await patches();
    expect(sent.length).toBeLessThanOrEqual(6);
    expect(sent.map((p) => p.status)).toEqual([409, 409, 200]);
    // One short line per refusal, in the user's zone.
    const lines = r.stderr.split('\n').filter((l) => l.startsWith("this meeting's host refused"));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(
      `${DateTime.fromISO(doc.tried[0]!.startTime, { zone: 'America/New_York' }).toFormat('yyyy-MM-dd HH:mm')} EST`,
    );
    expect(lines[0]).toContain('trying the next free time (2 of at most 5)');
    expect((await t.sb.state()).meetings[0]!.date).toBe(doc.date);
    // meetings show says what the record keeps of the refusals, as --json does.
    const shown = await cli(['meetings', 'show', m.id, '--tz', 'UTC']);
    expect(shown.stdout).toMatch(
      /^ {2}refused {7}\d{4}-\d{2}-\d{2} 13:00 UTC, \d{4}-\d{2}-\d{2} 13:30 UTC \(the host refused/m,
    );

    // The same search again: the meeting is in that day already, at a time its host took; it stays.
    const again = await cli([
      'reschedule',
      '--email',
      'search@acme.example',
      '--start',
      firstOf(m.target),
      '--tz',
      'UTC',
    ]);
    expect(again.code, show(again)).toBe(0);
    expect(again.stdout).toMatch(/moved +no change: it is already at /);
    expect(again.stderr).toContain('nothing was sent');
    expect((await t.sb.state()).meetings[0]!.date).toBe(doc.date);
    // A move to the time on record sends nothing (issue 52 finding 5).
    expect((await patches()).map((p) => p.status)).toEqual([409, 409, 200]);
  }, 60_000);

  it('gives up after --tries refusals (exit 5) naming the times tried, moves nothing, and the next run skips them', async () => {
    const m = await bookedDemo('giveup@acme.example');
    await refuse(3);
    const r = await cli([
      'reschedule',
      '--email',
      'giveup@acme.example',
      '--start',
      firstOf(m.target),
      '--tries',
      '3',
      '--tz',
      'UTC',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(5);
    const error = r.json<{ error: { code: string; message: string; details: string[]; hint: string } }>().error;
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain(`this meeting's host refused all 3 times tried in "${firstOf(m.target)}"`);
    expect(error.message).toContain('nothing was moved');
    expect(error.details).toHaveLength(3);
    expect(error.hint).toContain('--tries');
    expect(error.hint).toContain("this meeting's host may not take all of them");
    expect(await patches()).toHaveLength(3);
    expect((await t.sb.state()).meetings[0]!.date).toBe(m.date);
    const refused = error.details.map((d) => d.replace(/^refused: /, ''));

    // The refusals are remembered: the next search starts after them.
    const again = await cli(['reschedule', '--email', 'giveup@acme.example', '--start', firstOf(m.target), '--json']);
    expect(again.code, show(again)).toBe(0);
    const tried = again.json<{ tried: Tried[] }>().tried;
    expect(tried.map((x) => x.answer)).toEqual(['moved']);
    expect(refused).not.toContain(tried[0]!.startTime);
    expect(await patches()).toHaveLength(4);
  }, 60_000);

  it("a meeting of the New York host, 'first <day>' in New York: the host's refusals are searched past (no fault), never its midnight", async () => {
    // Two leads at 14:00 UTC one day: the first goes to the London host (routing fairness picks
    // the first of equals), the second to the only host still free then, in New York (09:00 EST).
    const { slots } = await t.sb.slots('product-demo', 21);
    const soon = DateTime.utc().plus({ days: 5 }).startOf('day');
    const at = slots.find((x) => utc(x) >= soon && utc(x).hour === 14 && utc(x).minute === 0 && utc(x).weekday <= 5)!;
    for (const email of ['london@acme.example', 'newyork@acme.example']) {
      const fresh = await t.sb.slots('product-demo', 21);
      const b = await cli([
        'book',
        'product-demo',
        '--start',
        at,
        '--reservation',
        fresh.reservationId,
        '--email',
        email,
        '--json',
      ]);
      expect(b.code, show(b)).toBe(0);
    }
    const target = utc(slots.find((x) => utc(x) > utc(at).endOf('day') && utc(x).weekday <= 5)!).startOf('day');
    const r = await cli([
      'reschedule',
      '--email',
      'newyork@acme.example',
      '--start',
      firstOf(target),
      '--tz',
      'America/New_York',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(0);
    const moved = r.json<{ meeting: { date: string }; tried: Tried[] }>();
    const doc = { date: moved.meeting.date, tried: moved.tried };
    const local = DateTime.fromISO(doc.date, { zone: 'America/New_York' });
    expect(local.toFormat('HH:mm')).not.toBe('00:00');
    // The event's first free time that New York day is the Tokyo host's, at midnight: never tried.
    expect(doc.tried.map((x) => DateTime.fromISO(x.startTime, { zone: 'America/New_York' }).hour)).not.toContain(0);
    expect(doc.tried.at(-1)!.answer).toBe('moved');
    expect(doc.tried.length).toBeLessThanOrEqual(5);
    // 12:00 and 12:30 UTC come first (near 14:00) and are the London host's alone: refused for this meeting.
    expect(doc.tried.length).toBeGreaterThanOrEqual(3);
    const sent = await patches();
    expect(sent.map((p) => p.status)).toEqual([...doc.tried.slice(0, -1).map(() => 409), 200]);
    // The New York host starts at 09:00 there: the earlier ones tried were refused for real.
    expect(local.hour).toBeGreaterThanOrEqual(9);
  }, 60_000);

  it('a lost answer stops the search (exit 7); the re-run sends that same move again, never another time (issue 52 finding 5)', async () => {
    const m = await bookedDemo('lost@acme.example');
    await refuse(1);
    await t.sb.fault({ method: 'PATCH', path: PATCH, fault: 'stall-after-commit' });
    const r = await cli([
      'reschedule',
      '--email',
      'lost@acme.example',
      '--start',
      firstOf(m.target),
      '--timeout',
      '1',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(7);
    const error = r.json<{ error: { code: string; hint: string } }>().error;
    expect(error.code).toBe('OUTCOME_UNKNOWN');
    const sent = await patches();
    expect(sent).toHaveLength(2);
    const moved = (await t.sb.state()).meetings[0]!.date;
    expect(error.hint).toContain(`it sends this same move (to ${moved}) again before trying any other time`);

    // The same search again: the move that got no answer goes again as it was, and only it.
    await t.sb.clearFaults();
    const again = await cli(['reschedule', '--email', 'lost@acme.example', '--start', firstOf(m.target), '--json']);
    expect(again.code, show(again)).toBe(0);
    expect(again.stderr).toContain('got no answer: sending it again as it was');
    const resent = await patches();
    expect(resent).toHaveLength(3);
    expect(resent[0]!.status).toBe(409);
    expect(resent[2]!.status).toBe(200);
    expect((await t.sb.state()).meetings[0]!.date).toBe(moved);
    expect((await t.sb.state()).meetings).toHaveLength(1);
  }, 60_000);

  it('--tries is checked before any request, and only with a day', async () => {
    const before = await t.sb.requestCount();
    for (const args of [
      ['--start', 'first tue', '--tries', '0'],
      ['--start', 'first tue', '--tries', '21'],
      ['--start', '2030-01-07T15:00:00Z', '--tries', '3'],
    ]) {
      const r = await cli(['reschedule', '00000000-0000-4000-8000-000000000000', ...args]);
      expect(r.code, show(r)).toBe(2);
      expect(r.stderr).toContain('--tries');
    }
    expect(await t.sb.requestCount()).toBe(before);
  }, 60_000);
});

describe('a move to one named time: one PATCH, and times offered instead are never refused ones', () => {
  it('labels the offered times as the event’s and leaves out the refused time; remembered for an hour, then offered again', async () => {
    const m = await bookedDemo('exact@acme.example');
    const day = m.free.filter((x) => utc(x).hasSame(m.target, 'day'));
    const x = day.find((s) => utc(s).hour === 14)!;
    await refuse(1);
    const r = await cli(['reschedule', m.id, '--start', x, '--json']);
    expect(r.code, show(r)).toBe(5);
    const error = r.json<{ error: { code: string; details: string[]; hint: string } }>().error;
    expect(error.code).toBe('CONFLICT');
    const offered = error.details.map((d) => /^free for the event: (\S+) {3}--start (\S+)$/.exec(d)?.[2]);
    expect(offered.length).toBeGreaterThan(0);
    expect(offered).not.toContain(undefined);
    expect(offered).not.toContain(x);
    expect(error.hint).toContain(
      "these are the event's free times (all its hosts'); this meeting's host may not take all of them",
    );
    expect(await patches()).toHaveLength(1);

    // The next run, within the hour: another refusal nearby offers neither time.
    const y = day.find((s) => Date.parse(s) === Date.parse(x) + 30 * 60_000)!;
    await refuse(1);
    const human = await cli(['reschedule', m.id, '--start', y, '--tz', 'UTC']);
    expect(human.code, show(human)).toBe(5);
    const listed = [...human.stderr.matchAll(/^ {2}- free for the event: .* {3}--start (\S+)$/gm)].map((g) => g[1]);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed).not.toContain(x);
    expect(listed).not.toContain(y);

    // An hour on by the server's clock the refusals have lapsed: the time is offered again.
    await t.sb.advance(3601);
    const z = day.find((s) => Date.parse(s) === Date.parse(y) + 30 * 60_000)!;
    await refuse(1);
    const later = await cli(['reschedule', m.id, '--start', z, '--json']);
    expect(later.code, show(later)).toBe(5);
    const after = later
      .json<{ error: { details: string[] } }>()
      .error.details.map((d) => /--start (\S+)$/.exec(d)?.[1]);
    expect(after).toContain(x);
    expect(after).not.toContain(z);
    // A time named explicitly is sent even while it is remembered as refused.
    const named = await cli(['reschedule', m.id, '--start', z, '--json']);
    expect(named.code, show(named)).toBe(0);
    expect(named.json().meeting.date).toBe(z);
  }, 60_000);
});

describe('reschedule_meeting (MCP) searches a day as start likewise', () => {
  it('moves after two refusals and says so in tool words; a refusal of one time offers times in tz, never --start', async () => {
    const m = await bookedDemo('mcp@acme.example');
    // Days whose Tokyo window (from 15:00 UTC the day before) holds neither the booked time nor the
    // first move: a search whose window holds the meeting sends nothing (issue 52 finding 5).
    const weekdayFrom = (after: DateTime) =>
      utc(m.free.find((f) => utc(f) >= after && utc(f).weekday <= 5 && utc(f).hour === 13)!).startOf('day');
    const day1 = weekdayFrom(utc(m.date).plus({ days: 2 }).startOf('day'));
    const day2 = weekdayFrom(day1.plus({ days: 2 }));
    const s = await startMcp({
      configDir: t.dir,
      env: { SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: t.sb.baseUrl },
    });
    try {
      await refuse(2);
      const r = await s.call('reschedule_meeting', {
        email: 'mcp@acme.example',
        start: firstOf(day1),
        tz: 'Asia/Tokyo',
      });
      expect(r.isError, r.text).toBe(false);
      expect(r.doc.tried.map((x: Tried) => x.answer)).toEqual(['CONFLICT', 'CONFLICT', 'moved']);
      expect(r.text).toContain("Tried first (this meeting's host refused them, nothing changed)");
      expect(r.text).toContain(
        DateTime.fromISO(r.doc.tried[0].startTime, { zone: 'Asia/Tokyo' }).toFormat('yyyy-MM-dd HH:mm'),
      );
      expect(await patches()).toHaveLength(3);

      const x = m.free.find((f) => utc(f).hasSame(day1, 'day') && utc(f).hour === 16)!;
      await refuse(1);
      const one = await s.call('reschedule_meeting', { meeting_id: m.id, start: x, tz: 'Asia/Tokyo' });
      expect(one.isError).toBe(true);
      expect(one.doc.error.code).toBe('CONFLICT');
      expect(one.text).not.toMatch(/(?<![\w-])--[a-z]|schedctl (?:slots|reschedule)\b/);
      expect(one.text).toContain('free for the event: ');
      expect(one.text).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d (?:JST|GMT\+9) \(start: \S+Z\)/);
      expect(one.text).not.toContain(`(start: ${x})`);
      expect(one.text).toContain('first friday');

      // Every try refused: the error names them in tz, with tool words only.
      await t.sb.clearFaults();
      await refuse(2);
      const none = await s.call('reschedule_meeting', {
        meeting_id: m.id,
        start: firstOf(day2),
        tries: 2,
        tz: 'Asia/Tokyo',
      });
      expect(none.isError).toBe(true);
      expect(none.doc.error.code).toBe('CONFLICT');
      expect(none.text).toContain("this meeting's host refused all 2 times tried");
      expect(none.text).toMatch(/refused: \d{4}-\d\d-\d\d \d\d:\d\d (?:JST|GMT\+9) \(start: \S+Z\)/);
      expect(none.text).not.toMatch(/(?<![\w-])--[a-z]|schedctl (?:slots|reschedule)\b/);
      const tries = await s.call('reschedule_meeting', { meeting_id: m.id, start: x, tries: 2 });
      expect(tries.isError).toBe(true);
      expect(tries.text).toContain('tries is for a start that names a day');
    } finally {
      await s.close();
    }
  }, 60_000);
});

const terminal = useTerminalSandbox();

describe.skipIf(!hasTmux)('the picker after a refusal (tmux)', () => {
  it('returns to the times of that day with the refused one marked, never to the shell; the next run marks it too, until the hour is over', async () => {
    const sb = terminal.sandbox();
    const configDir = t.dir;
    const c = (args: string[]) => sb.cli(args, { configDir });
    const { reservationId, slots } = await sb.slots('quarterly-review', 14);
    const b = await c([
      'book',
      'quarterly-review',
      '--start',
      slots[0]!,
      '--reservation',
      reservationId,
      '--email',
      'pick@acme.example',
      '--json',
    ]);
    expect(b.code, b.stderr).toBe(0);
    // A day two to six days on with free times: typed to jump to it, still ahead when the clock moves an hour.
    const soon = DateTime.utc().plus({ days: 2 }).startOf('day');
    const x = slots.find(
      (f) => utc(f) >= soon && utc(f) < soon.plus({ days: 5 }) && !utc(f).hasSame(utc(slots[0]!), 'day'),
    )!;
    const dayTyped = utc(x).toFormat('LLL d').toLowerCase();
    const xLabel = utc(x).toFormat('ccc d LLL  HH:mm');
    await sb.fault({ method: 'PATCH', path: PATCH, fault: 'status', status: 409, code: 'CONFLICT', count: 1 });

    const open = async (name: string) => {
      const pane = terminal.start(name, ['reschedule', '--email', 'pick@acme.example', '--tz', 'UTC'], {
        TZ: 'UTC',
        SCHEDCTL_CONFIG_DIR: configDir,
      });
      await pane.waitFor('pick a day');
      await pane.waitFor('free time');
      await pane.type(['-l', dayTyped]);
      await pane.waitFor(utc(x).toFormat('ccc d LLL'));
      await pane.type(['Enter']);
      await pane.waitFor('← other days');
      return pane;
    };
    const pane = await open('reschedule-refused');
    expect(pane.screen()).toContain(xLabel);
    await pane.type(['Enter']);
    await pane.waitFor('Move "');
    await pane.type(['Enter']);
    await pane.waitFor("refused by this meeting's host", 20_000);
    const screen = pane.screen();
    expect(screen).toContain("this meeting's host refused");
    expect(screen).toContain(`${xLabel}  ·  refused by this meeting's host`);
    expect(screen).not.toContain('EXIT=');
    expect((await sb.state()).requests.filter((r) => r.method === 'PATCH').map((r) => r.status)).toEqual([409]);
    // The day's last time, typed (far from the refused one, which the moved meeting then leaves free).
    const last = slots.filter((f) => utc(f).hasSame(utc(x), 'day')).at(-1)!;
    await pane.type(['-l', utc(last).toFormat('HH:mm')]);
    await pane.waitFor(`${utc(last).toFormat('ccc d LLL  HH:mm')}`);
    await pane.type(['Enter']);
    await pane.waitFor('Move "');
    await pane.type(['Enter']);
    await pane.waitFor('EXIT=0', 20_000);
    const moved = (await sb.state()).meetings.find((m) => m.id === b.json().meeting.id)!;
    expect(moved.date).toBe(last);
    expect((await sb.state()).requests.filter((r) => r.method === 'PATCH').map((r) => r.status)).toEqual([409, 200]);
    expect(pane.screen()).toContain(`Rescheduled meeting ${moved.id}`);

    // The next run, within the hour: the refusal is remembered (the record), marked, not offered.
    const again = await open('reschedule-remembered');
    expect(again.screen()).toContain(`${xLabel}  ·  refused by this meeting's host`);
    again.kill();
    // An hour on by the server's clock: offered as free again.
    await sb.advance(3601);
    const later = await open('reschedule-lapsed');
    expect(later.screen()).toContain(xLabel);
    expect(later.screen()).not.toContain("refused by this meeting's host");
    later.kill();
  }, 90_000);
});
