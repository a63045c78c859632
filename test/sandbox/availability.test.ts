/** Pure availability math with fixed dates (no server, no clock). */
import { describe, expect, it } from 'vitest';
import { checkStart, type HostCalendar, listSlots } from '../../src/sandbox/availability.js';

const t = (s: string) => Date.parse(s);
const iso = (ms: number[]) => ms.map((m) => new Date(m).toISOString().slice(0, 16));
const host = (over: Partial<HostCalendar> = {}): HostCalendar => ({
  id: 'h1',
  zone: 'Europe/London',
  weekdays: [1, 2, 3, 4, 5],
  startMinute: 9 * 60,
  endMinute: 17 * 60,
  busy: [],
  booked: [],
  ...over,
});
const LONG_AGO = 0;
// Monday 2026-11-23: London is on GMT (UTC+0).
const MON = '2026-11-23';

describe('listSlots', () => {
  it('steps by the increment and keeps the whole duration inside working hours', () => {
    const day = listSlots([host()], t(`${MON}T00:00Z`), t(`${MON}T23:59Z`), {
      duration: 30,
      increment: 30,
      now: LONG_AGO,
    });
    expect(day).toHaveLength(16);
    expect(iso([day[0]!, day.at(-1)!])).toEqual([`${MON}T09:00`, `${MON}T16:30`]);
    const long = listSlots([host()], t(`${MON}T00:00Z`), t(`${MON}T23:59Z`), {
      duration: 60,
      increment: 15,
      now: LONG_AGO,
    });
    expect(long).toHaveLength(29);
    expect(iso([long[1]!, long.at(-1)!])).toEqual([`${MON}T09:15`, `${MON}T16:00`]);
  });

  it('leaves out starts whose meeting would overlap a busy block', () => {
    const busy = [{ start: t(`${MON}T10:00Z`), end: t(`${MON}T11:00Z`) }];
    const slots = listSlots([host({ busy })], t(`${MON}T09:00Z`), t(`${MON}T12:00Z`), {
      duration: 60,
      increment: 30,
      now: LONG_AGO,
    });
    expect(iso(slots)).toEqual([`${MON}T09:00`, `${MON}T11:00`, `${MON}T11:30`]);
  });

  it('treats the range as half-open [start, end)', () => {
    const slots = listSlots([host()], t(`${MON}T09:00Z`), t(`${MON}T10:00Z`), {
      duration: 30,
      increment: 30,
      now: LONG_AGO,
    });
    expect(iso(slots)).toEqual([`${MON}T09:00`, `${MON}T09:30`]);
  });

  it('offers only times after now, and no weekends', () => {
    const slots = listSlots([host()], t('2026-11-21T00:00Z'), t(`${MON}T11:00Z`), {
      duration: 60,
      increment: 60,
      now: t(`${MON}T09:00Z`),
    });
    expect(iso(slots)).toEqual([`${MON}T10:00`]);
  });

  it("uses each host's own time zone and merges hosts", () => {
    const tokyo = host({ id: 'h2', zone: 'Asia/Tokyo', startMinute: 10 * 60, endMinute: 12 * 60 });
    const slots = listSlots([tokyo], t(`${MON}T00:00Z`), t(`${MON}T23:59Z`), {
      duration: 60,
      increment: 60,
      now: LONG_AGO,
    });
    expect(iso(slots)).toEqual([`${MON}T01:00`, `${MON}T02:00`]); // 10:00 and 11:00 JST
    const both = listSlots([tokyo, host({ endMinute: 10 * 60 })], t(`${MON}T00:00Z`), t(`${MON}T23:59Z`), {
      duration: 60,
      increment: 60,
      now: LONG_AGO,
    });
    expect(iso(both)).toEqual([`${MON}T01:00`, `${MON}T02:00`, `${MON}T09:00`]);
  });

  it('keeps local working hours across a DST change inside the range', () => {
    // New York leaves DST on Sunday 2026-11-01: 09:00 local is 13:00Z before, 14:00Z after.
    const ny = host({ zone: 'America/New_York', startMinute: 9 * 60, endMinute: 10 * 60 });
    const slots = listSlots([ny], t('2026-10-30T00:00Z'), t('2026-11-03T00:00Z'), {
      duration: 60,
      increment: 60,
      now: LONG_AGO,
    });
    expect(iso(slots)).toEqual(['2026-10-30T13:00', '2026-11-02T14:00']);
  });
});

describe('checkStart', () => {
  const rules = { duration: 30, increment: 30, now: LONG_AGO };
  const at = t(`${MON}T10:00Z`);
  const meeting = { start: at, end: at + 30 * 60_000 };

  it('names the free hosts', () => {
    expect(checkStart([host(), host({ id: 'h2', booked: [meeting] })], at, rules)).toEqual({
      kind: 'free',
      hostIds: ['h1'],
    });
  });

  it('says taken when every working host is booked', () => {
    expect(checkStart([host({ booked: [meeting] })], at, rules)).toEqual({ kind: 'taken' });
  });

  it('says none for off-grid, outside hours, busy blocks and past times', () => {
    expect(checkStart([host()], at + 10 * 60_000, rules).kind).toBe('none');
    expect(checkStart([host()], t(`${MON}T17:00Z`), rules).kind).toBe('none');
    expect(checkStart([host({ busy: [meeting] })], at, rules).kind).toBe('none');
    expect(checkStart([host()], at, { ...rules, now: at }).kind).toBe('none');
    expect(checkStart([], at, rules).kind).toBe('none');
  });
});
