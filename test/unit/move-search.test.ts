/** The order a searched move tries free times in, and how long a refusal is believed (domain/move-search.ts). */
import { describe, expect, it } from 'vitest';
import {
  MAX_REFUSALS_KEPT,
  offerable,
  REFUSAL_LAPSE_MS,
  REFUSAL_SERVER_LEAD_MS,
  REFUSAL_SKEW_MS,
  refusalClock,
  refusalLive,
  refusedTimes,
  searchOrder,
  withRefusal,
} from '../../src/domain/move-search.js';

const at = (hhmm: string, day = '2026-12-04') => `${day}T${hhmm}:00.000Z`;
const ms = (iso: string) => Date.parse(iso);
/** Every half hour of a day, 00:00 to 23:30 UTC: an event whose hosts cover the clock. */
const wholeDay = Array.from({ length: 48 }, (_, i) =>
  at(`${String(Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}`),
);

describe('searchOrder', () => {
  it('without a time on record: every free time, earliest first', () => {
    const slots = [at('10:00'), at('09:00'), at('09:30')];
    expect(searchOrder({ slots, refused: new Set() })).toEqual([at('09:00'), at('09:30'), at('10:00')]);
  });

  it('first the times within two hours of the time of day the meeting has, earliest first; then the others', () => {
    const order = searchOrder({ slots: wholeDay, current: at('15:00', '2026-11-30'), refused: new Set() });
    expect(order.slice(0, 9)).toEqual(
      ['13:00', '13:30', '14:00', '14:30', '15:00', '15:30', '16:00', '16:30', '17:00'].map((h) => at(h)),
    );
    expect(order[9]).toBe(at('00:00'));
    expect(order).toHaveLength(48);
    expect(new Set(order).size).toBe(48);
  });

  it('the band goes round midnight', () => {
    const order = searchOrder({ slots: wholeDay, current: at('23:30', '2026-11-30'), refused: new Set() });
    expect(order.slice(0, 9)).toEqual(
      ['00:00', '00:30', '01:00', '01:30', '21:30', '22:00', '22:30', '23:00', '23:30'].map((h) => at(h)),
    );
  });

  it('earlier times the host took count as well', () => {
    const order = searchOrder({
      slots: [at('05:00'), at('09:00'), at('20:00')],
      current: at('19:00', '2026-11-30'),
      taken: [at('08:00', '2026-11-20'), undefined],
      refused: new Set(),
    });
    expect(order).toEqual([at('09:00'), at('20:00'), at('05:00')]);
  });

  it('a meeting already in the window is tried at its own time first (it stays), unless refused', () => {
    const current = at('15:00');
    const window = { from: new Date(at('12:00')), to: new Date(at('17:00')) };
    const slots = [at('13:00'), at('16:00')];
    expect(searchOrder({ slots, current, window, refused: new Set() })).toEqual([current, at('13:00'), at('16:00')]);
    expect(searchOrder({ slots, current, window, refused: new Set([ms(current)]) })).toEqual([
      at('13:00'),
      at('16:00'),
    ]);
    const elsewhere = { from: new Date(at('16:00')), to: new Date(at('17:00')) };
    expect(searchOrder({ slots, current, window: elsewhere, refused: new Set() })).toEqual([at('13:00'), at('16:00')]);
    // The window is half-open: a meeting at its end is not in it.
    const ending = { from: new Date(at('12:00')), to: new Date(current) };
    expect(searchOrder({ slots, current, window: ending, refused: new Set() })[0]).toBe(at('13:00'));
  });

  it('never a refused time, nor the time the meeting has (outside a window), nor one twice', () => {
    const current = at('15:00');
    const order = searchOrder({
      slots: [at('14:00'), current, at('14:30'), at('14:30'), 'not a time'],
      current,
      refused: new Set([ms(at('14:00'))]),
    });
    expect(order).toEqual([at('14:30')]);
  });
});

describe('refusals lapse after an hour of the server’s clock', () => {
  const answered = '2026-12-01T10:00:00.000Z';
  it('is live until the hour is over', () => {
    expect(refusalLive({ at: answered }, new Date(ms(answered) + REFUSAL_LAPSE_MS - 1))).toBe(true);
    expect(refusalLive({ at: answered }, new Date(ms(answered) + REFUSAL_LAPSE_MS))).toBe(false);
    expect(refusalLive({ at: 'garbage' }, new Date(ms(answered)))).toBe(false);
    expect(REFUSAL_LAPSE_MS).toBe(3_600_000);
  });

  it('refusedTimes keeps the live ones only', () => {
    const now = new Date('2026-12-01T10:30:00.000Z');
    const set = refusedTimes(
      [
        { startTime: at('09:00'), at: answered },
        { startTime: at('10:00'), at: '2026-12-01T09:00:00.000Z' },
        { startTime: 'nope', at: answered },
      ],
      now,
    );
    expect([...set]).toEqual([ms(at('09:00'))]);
    expect(refusedTimes(undefined, now).size).toBe(0);
  });

  it('withRefusal drops lapsed ones and an older answer for the same time, and keeps a bounded number', () => {
    const now = new Date('2026-12-01T10:30:00.000Z');
    const kept = withRefusal(
      [
        { startTime: at('09:00'), at: '2026-12-01T09:00:00.000Z' },
        { startTime: at('10:00'), at: answered },
      ],
      { startTime: at('10:00'), at: now.toISOString() },
      now,
    );
    expect(kept).toEqual([{ startTime: at('10:00'), at: now.toISOString() }]);
    const times = [...wholeDay, ...wholeDay.map((s) => s.replace('12-04', '12-05'))];
    let many = withRefusal(undefined, { startTime: times[0]!, at: answered }, now);
    for (const s of times.slice(1)) many = withRefusal(many, { startTime: s, at: answered }, now);
    expect(many).toHaveLength(MAX_REFUSALS_KEPT);
    expect(many.at(-1)!.startTime).toBe(times.at(-1));
    expect(many[0]!.startTime).toBe(times[times.length - MAX_REFUSALS_KEPT]);
  });

  it('issue 52 finding 6: a server clock ahead never makes a refusal last longer', () => {
    const local = new Date('2026-12-01T10:00:00.000Z');
    const server9999 = new Date('9999-12-31T23:59:59.000Z');
    expect(refusalClock(server9999, local)).toEqual(new Date(local.getTime() + REFUSAL_SERVER_LEAD_MS));
    const behind = new Date('2026-11-30T10:00:00.000Z');
    expect(refusalClock(behind, local)).toBe(behind);
    const hourAhead = new Date(local.getTime() + 3_600_000);
    expect(refusalClock(hourAhead, local), "an honest skew keeps the server's word").toBe(hourAhead);
    // One dated in the future (an older version trusted the server's Date) is not believed.
    expect(refusalLive({ at: server9999.toISOString() }, local)).toBe(false);
    expect(refusalLive({ at: new Date(local.getTime() + REFUSAL_SKEW_MS).toISOString() }, local)).toBe(true);
    expect(refusalLive({ at: new Date(local.getTime() + REFUSAL_SKEW_MS + 1).toISOString() }, local)).toBe(false);
    // A new one dated in the future is kept dated now; the old future-dated ones are dropped.
    const kept = withRefusal(
      [{ startTime: at('09:00'), at: server9999.toISOString() }],
      { startTime: at('10:00'), at: server9999.toISOString() },
      local,
    );
    expect(kept).toEqual([{ startTime: at('10:00'), at: local.toISOString() }]);
  });

  it('offerable leaves out refused times', () => {
    expect(offerable([at('09:00'), at('09:30')], new Set([ms(at('09:00'))]))).toEqual([at('09:30')]);
  });
});
