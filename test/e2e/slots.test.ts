import { describe, expect, it } from 'vitest';
import { strictSchemas } from '../../src/api/schemas.js';
import { show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();

const slotPosts = async () =>
  (await t.sb.state()).requests.filter((r) => r.method === 'POST' && r.path.endsWith('/slots'));

describe('slots', () => {
  it('shows the reservation, its expiry, the slots grouped by day in --tz, and the next command', async () => {
    const r = await t.sb.cli(['slots', 'quarterly-review', '--tz', 'America/New_York']);
    expect(r.code, show(r)).toBe(0);
    const [state] = [await t.sb.state()];
    const reservation = state.reservations[0]!;
    expect(r.stdout).toContain(`Reservation ${reservation.id}, expires `);
    expect(r.stdout).toMatch(/\(in 10 min\)/);
    expect(r.stdout).toContain('(America/New_York)');
    // Ben works 09:00-17:00 New York time, 90-minute meetings every 30 minutes: each day starts at 09:00.
    const dayLines = r.stdout.split('\n').filter((l) => /^ {2}\w{3} \d{1,2} \w{3}/.test(l));
    expect(dayLines.length).toBeGreaterThan(0);
    for (const line of dayLines) expect(line, line).toMatch(/^ {2}\w{3} \d{1,2} \w{3}\s+(\d{2}:\d{2} ?)+$/);
    expect(dayLines.some((l) => l.includes(' 09:00 09:30'))).toBe(true);
    expect(r.stderr).toMatch(
      new RegExp(`Next: schedctl book quarterly-review --start \\S+ --reservation ${reservation.id} --email <email>`),
    );
  });

  it('prints the slots result with --json, in the API shape', async () => {
    const r = await t.sb.cli(['slots', 'intro-call', '--json', '--days', '3']);
    expect(r.code, show(r)).toBe(0);
    const result = r.json();
    expect(strictSchemas.slotsResult.safeParse(result).success).toBe(true);
    expect(result.slots.length).toBeGreaterThan(0);
    const times = result.slots.map((s: string) => Date.parse(s));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(r.stderr).toBe('');
  });

  it('splits a range over 63 days into ceil(N/63) requests with one reservation, merged and filtered', async () => {
    const from = new Date(Date.parse((await t.sb.state()).now) + 86_400_000).toISOString().slice(0, 10);
    const r = await t.sb.cli(['slots', 'support-escalation', '--from', from, '--days', '130', '--tz', 'UTC', '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(await slotPosts()).toHaveLength(3);
    const state = await t.sb.state();
    expect(state.reservations).toHaveLength(1);
    const result = r.json();
    expect(result.reservationId).toBe(state.reservations[0]!.id);
    const start = Date.parse(`${from}T00:00:00Z`);
    const end = start + 130 * 86_400_000;
    const times: number[] = result.slots.map((s: string) => Date.parse(s));
    expect(new Set(times).size).toBe(times.length);
    expect(times.every((x) => x >= start && x < end)).toBe(true);
    // Slots come from all three windows.
    expect(times.some((x) => x > start + 126 * 86_400_000)).toBe(true);
  });

  it('reuses a reservation passed with --reservation', async () => {
    const first = (await t.sb.cli(['slots', 'intro-call', '--json'])).json();
    const r = await t.sb.cli([
      'slots',
      'intro-call',
      '--json',
      '--reservation',
      first.reservationId,
      '--from',
      'tomorrow',
      '--days',
      '70',
    ]);
    expect(r.code, show(r)).toBe(0);
    expect(r.json().reservationId).toBe(first.reservationId);
    expect((await t.sb.state()).reservations).toHaveLength(1);
  });

  it('says to drop --reservation when it expired', async () => {
    const first = (await t.sb.cli(['slots', 'intro-call', '--json'])).json();
    await t.sb.advance(601);
    const r = await t.sb.cli(['slots', 'intro-call', '--reservation', first.reservationId]);
    expect(r.code, show(r)).toBe(5);
    expect(r.stderr).toContain('RESERVATION_EXPIRED');
    expect(r.stderr).toContain('fetch slots again without --reservation: schedctl slots intro-call');
  });

  // --to before --from, a bad --from or --tz, --days 0 and a bad --reservation are cases of the
  // bad-input matrix (test/reliability/bad-input.test.ts: exit 2, one line naming the flag,
  // nothing sent; and slots' --json USAGE document); the readings of a range it lacks are here.
  it.each([
    [['--from', '2026-12-05 10:00', '--to', '2026-12-05 10:00'], '--to'],
    [['--to', '2026-02-30'], '--to'],
    [['--days', '366'], '--days'],
    [['--days', '1.5'], '--days'],
    [['--days', '3', '--to', 'tomorrow'], '--to'],
  ])('rejects %j before any request, naming %s (exit 2)', async (args, flag) => {
    const r = await t.sb.cli(['slots', 'intro-call', ...args]);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain(flag);
    expect(await t.sb.requestCount()).toBe(0);
    const j = await t.sb.cli(['slots', 'intro-call', ...args, '--json']);
    expect(j.code).toBe(2);
    expect(j.json().error.code).toBe('USAGE');
  });

  it('reports an unknown event with exit 4', async () => {
    const r = await t.sb.cli(['slots', 'no-such-event', '--json']);
    expect(r.code, show(r)).toBe(4);
    expect(r.json().error).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
      hint: expect.stringContaining('schedctl events ls'),
    });
  });
});
