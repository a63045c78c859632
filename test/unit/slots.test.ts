import { describe, expect, it } from 'vitest';
import type { SlotsRequest, SlotsResult } from '../../src/api/schemas.js';
import { fetchSlots, groupByDay, MAX_RANGE_DAYS, nearestSlots, splitRange } from '../../src/domain/slots.js';

const DAY = 86_400_000;
const from = new Date('2026-12-01T00:00:00Z');

describe('splitRange', () => {
  it('splits N days into ceil(N/63) consecutive windows', () => {
    for (const days of [1, 62, 63, 64, 126, 130, 365]) {
      const windows = splitRange(from, new Date(from.getTime() + days * DAY));
      expect(windows, `${days} days`).toHaveLength(Math.ceil(days / MAX_RANGE_DAYS));
      expect(windows[0]!.start).toEqual(from);
      expect(windows.at(-1)!.end).toEqual(new Date(from.getTime() + days * DAY));
      for (let i = 1; i < windows.length; i++) expect(windows[i]!.start).toEqual(windows[i - 1]!.end);
      for (const w of windows) expect(w.end.getTime() - w.start.getTime()).toBeLessThanOrEqual(MAX_RANGE_DAYS * DAY);
    }
  });
  it('splits 130 days into 63 + 63 + 4', () => {
    const windows = splitRange(from, new Date(from.getTime() + 130 * DAY));
    expect(windows.map((w) => (w.end.getTime() - w.start.getTime()) / DAY)).toEqual([63, 63, 4]);
  });
});

function fakeApi(answer: (body: SlotsRequest, i: number) => string[]) {
  const calls: Array<{ event: string; body: SlotsRequest }> = [];
  return {
    calls,
    api: {
      slots: async (event: string, body: SlotsRequest): Promise<SlotsResult> => {
        calls.push({ event, body });
        return {
          reservationId: body.reservationId ?? 'res-first',
          eventId: 'ev',
          expiresAt: `2026-12-01T00:1${calls.length}:00.000Z`,
          slots: answer(body, calls.length - 1),
          activeHost: null,
        };
      },
    },
  };
}

describe('fetchSlots', () => {
  it('passes the first reservation to every later window and returns the last expiry', async () => {
    const { api, calls } = fakeApi(() => []);
    const r = await fetchSlots(api, 'intro-call', { from, to: new Date(from.getTime() + 130 * DAY) });
    expect(calls).toHaveLength(3);
    expect(calls.map((c) => c.body.reservationId)).toEqual([undefined, 'res-first', 'res-first']);
    expect(r.reservationId).toBe('res-first');
    expect(r.expiresAt).toBe('2026-12-01T00:13:00.000Z');
  });
  it('reuses a given reservation on every request', async () => {
    const { api, calls } = fakeApi(() => []);
    await fetchSlots(api, 'x', { from, to: new Date(from.getTime() + 70 * DAY), reservationId: 'mine' });
    expect(calls.map((c) => c.body.reservationId)).toEqual(['mine', 'mine']);
  });
  it('merges without duplicates (same instant, other spelling), sorts, and keeps [from, to)', async () => {
    const to = new Date(from.getTime() + 70 * DAY);
    const { api } = fakeApi((_b, i) =>
      i === 0
        ? ['2026-12-05T10:00:00.000Z', '2026-11-30T10:00:00.000Z', '2026-12-02T10:00:00.000Z']
        : ['2026-12-05T11:00:00+01:00', to.toISOString(), '2027-01-20T09:00:00.000Z', from.toISOString()],
    );
    const r = await fetchSlots(api, 'x', { from, to });
    expect(r.slots).toEqual([
      from.toISOString(),
      '2026-12-02T10:00:00.000Z',
      '2026-12-05T10:00:00.000Z',
      '2027-01-20T09:00:00.000Z',
    ]);
  });
});

describe('groupByDay and nearestSlots', () => {
  it('groups by the calendar day in the zone', () => {
    const slots = ['2026-12-01T22:30:00Z', '2026-12-01T23:30:00Z', '2026-12-02T08:00:00Z'];
    expect(groupByDay(slots, 'UTC').map((d) => [d.day, d.slots.length])).toEqual([
      ['2026-12-01', 2],
      ['2026-12-02', 1],
    ]);
    expect(groupByDay(slots, 'Europe/Berlin').map((d) => [d.day, d.slots.length])).toEqual([
      ['2026-12-01', 1],
      ['2026-12-02', 2],
    ]);
  });
  it('picks the n closest slots, in time order', () => {
    const slots = ['2026-12-01T08:00:00Z', '2026-12-01T09:00:00Z', '2026-12-01T11:30:00Z', '2026-12-03T09:00:00Z'];
    expect(nearestSlots(slots, new Date('2026-12-01T10:00:00Z'), 2)).toEqual([
      '2026-12-01T09:00:00Z',
      '2026-12-01T11:30:00Z',
    ]);
    expect(nearestSlots([], new Date(), 3)).toEqual([]);
  });
});
