import { describe, expect, it } from 'vitest';
import { renderWeekGrid, weekGrid, zoneHeading, type Paint } from '../../src/ui/slots-grid.js';
import { renderSlotsByDay } from '../../src/ui/slots-view.js';

const at = (iso: string) => new Date(iso).toISOString();
/** Tue 1 Dec 2026 to Mon 7 Dec 2026 (a week from a Tuesday), in UTC. */
const WEEK = { from: new Date('2026-12-01T00:00:00Z'), to: new Date('2026-12-08T00:00:00Z') };

describe('weekGrid: days as columns, times of day as rows', () => {
  it('a column per day of the range from its first day, a row per time; free where a slot is', () => {
    const slots = [at('2026-12-01T09:00:00Z'), at('2026-12-03T09:00:00Z'), at('2026-12-03T14:00:00Z')];
    const [week, ...more] = weekGrid({ slots, zone: 'UTC', ...WEEK });
    expect(more).toEqual([]);
    expect(week!.days.map((d) => `${d.weekday} ${d.date}`)).toEqual([
      'Tue 1 Dec',
      'Wed 2 Dec',
      'Thu 3 Dec',
      'Fri 4 Dec',
      'Sat 5 Dec',
      'Sun 6 Dec',
      'Mon 7 Dec',
    ]);
    expect(week!.rows).toEqual([
      { time: '09:00', free: [true, false, true, false, false, false, false] },
      { time: '14:00', free: [false, false, true, false, false, false, false] },
    ]);
  });

  it('days and times are the display zone’s: a slot late in UTC is the next day in Tokyo', () => {
    const [week] = weekGrid({ slots: [at('2026-12-01T23:30:00Z')], zone: 'Asia/Tokyo', ...WEEK });
    expect(week!.rows).toEqual([{ time: '08:30', free: [false, true, false, false, false, false, false] }]);
  });

  it('ranges over a week make a grid per 7 days; a week without a free time is left out', () => {
    const weeks = weekGrid({
      slots: [at('2026-12-16T10:00:00Z')],
      zone: 'UTC',
      from: WEEK.from,
      to: new Date('2026-12-22T00:00:00Z'),
    });
    expect(weeks).toHaveLength(1);
    expect(weeks[0]!.days[0]!.date).toBe('15 Dec');
    expect(weeks[0]!.days).toHaveLength(7);
  });

  it("the lead's wall time beside each row when the zones differ, with the day it falls on", () => {
    const slots = [at('2026-12-01T09:00:00Z'), at('2026-12-01T16:00:00Z')];
    const [week] = weekGrid({ slots, zone: 'Europe/London', leadZone: 'Asia/Tokyo', ...WEEK });
    expect(week!.rows.map((r) => [r.time, r.lead])).toEqual([
      ['09:00', '18:00'],
      ['16:00', '01:00+1'],
    ]);
    const [west] = weekGrid({
      slots: [at('2026-12-01T03:00:00Z')],
      zone: 'UTC',
      leadZone: 'America/Los_Angeles',
      ...WEEK,
    });
    expect(west!.rows[0]!.lead).toBe('19:00-1');
  });

  it('no lead column when the lead keeps the same clock (the same zone, or another with the same offset)', () => {
    const slots = [at('2026-12-01T09:00:00Z')];
    for (const leadZone of ['UTC', 'Europe/London']) {
      const [week] = weekGrid({ slots, zone: 'UTC', leadZone, ...WEEK });
      expect(week!.rows[0]!.lead).toBeUndefined();
    }
  });

  it('a week in which one zone changes its clock marks the lead time that differs between days (*)', () => {
    // New York leaves daylight saving on Sun 1 Nov 2026; London on Sun 25 Oct.
    const slots = [at('2026-10-30T14:00:00Z'), at('2026-11-02T14:00:00Z')];
    const [week] = weekGrid({
      slots,
      zone: 'UTC',
      leadZone: 'America/New_York',
      from: new Date('2026-10-30T00:00:00Z'),
      to: new Date('2026-11-06T00:00:00Z'),
    });
    expect(week!.rows[0]!.lead).toBe('10:00*');
    const lines = renderWeekGrid([week!], 'UTC', 'America/New_York', 100)!;
    expect(lines.at(-1)).toContain("* the zones' offset changes this week (DST)");
  });

  it('consecutive rows free on the same days, a step apart, merge into a range', () => {
    const slots = ['09:00', '09:15', '09:30', '10:30'].map((t) => at(`2026-12-01T${t}:00Z`));
    const [week] = weekGrid({ slots, zone: 'UTC', ...WEEK });
    expect(week!.step).toBe(15);
    expect(week!.rows.map((r) => [r.time, r.until])).toEqual([
      ['09:00', '09:30'],
      ['10:30', undefined],
    ]);
  });
});

describe('renderWeekGrid', () => {
  const slots = ['09:00', '09:15', '14:00'].map((t) => at(`2026-12-01T${t}:00Z`));
  const weeks = weekGrid({ slots, zone: 'Europe/London', leadZone: 'America/New_York', ...WEEK });

  it('lines no wider than the terminal: the zones as headings, a mark per day, notes under it', () => {
    const lines = renderWeekGrid(weeks, 'Europe/London', 'America/New_York', 80)!;
    expect(lines[0]).toMatch(/^ {2}London +New York \(lead\) +Tue +Wed +Thu +Fri +Sat +Sun +Mon$/);
    expect(lines[1]).toMatch(/1 Dec +2 Dec .* 7 Dec$/);
    expect(lines[2]).toMatch(/^ {2}09:00–09:15 +04:00–04:15 +● +· +· +· +· +· +·$/);
    expect(lines[3]).toMatch(/^ {2}14:00 +09:00 +●/);
    expect(lines.at(-1)).toBe('  a–b: a free start every 15 min from a to b');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
  });

  it('undefined on a terminal too narrow for it (the caller prints the list)', () => {
    expect(renderWeekGrid(weeks, 'Europe/London', 'America/New_York', 60)).toBeUndefined();
    const noLead = weekGrid({ slots, zone: 'UTC', ...WEEK });
    // Two spaces, `09:00–09:15`, then 7 columns of 7: 62.
    expect(renderWeekGrid(noLead, 'UTC', undefined, 62)).toBeDefined();
    expect(renderWeekGrid(noLead, 'UTC', undefined, 61)).toBeUndefined();
  });

  it('colors only through paint, and the width is measured without them', () => {
    const sgr: Paint = { head: (t) => `\x1b[1m${t}\x1b[22m`, free: (t) => `\x1b[32m${t}\x1b[39m`, busy: (t) => t };
    const lines = renderWeekGrid(weeks, 'Europe/London', 'America/New_York', 80, sgr)!;
    expect(lines.join('\n')).toContain('\x1b[32m●\x1b[39m');
    expect(renderWeekGrid(weeks, 'Europe/London', 'America/New_York', 80)!.join('\n')).not.toContain('\x1b');
  });

  it('names a zone by its city', () => {
    expect(zoneHeading('America/Argentina/Buenos_Aires')).toBe('Buenos Aires');
    expect(zoneHeading('UTC')).toBe('UTC');
  });
});

describe('renderSlotsByDay: the list, when the grid does not fit', () => {
  const day = Array.from({ length: 16 }, (_, i) =>
    at(`2026-12-01T${String(8 + Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}:00Z`),
  );
  it('12 times a line without a terminal; on one, as many as its width takes, no line wider', () => {
    const plain = renderSlotsByDay(day, 'UTC').split('\n');
    expect(plain).toHaveLength(2);
    expect(plain[0]!.split(' ').filter((w) => /^\d\d:\d\d$/.test(w))).toHaveLength(12);
    for (const columns of [30, 60, 80]) {
      const lines = renderSlotsByDay(day, 'UTC', columns).split('\n');
      for (const l of lines) expect(l.length, `${columns}: ${l}`).toBeLessThanOrEqual(columns);
      expect(lines.join(' ').match(/\d\d:\d\d/g)).toHaveLength(16);
    }
    // Narrower than one time still shows them, one a line.
    expect(renderSlotsByDay(day, 'UTC', 5).split('\n')).toHaveLength(16);
  });
});
