import { mkdtempSync } from 'node:fs';
import { notOver, whoAmI } from '../../src/state/meetings.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Meeting } from '../../src/api/schemas.js';
import { openState, type State } from '../../src/state/index.js';

const DAY = 86_400_000;
const NOW = new Date('2031-03-01T12:00:00.000Z');
const S1 = 'prod@https://api.example.com';
const S2 = 'staging@https://api.example.com';
const inDays = (d: number) => new Date(NOW.getTime() + d * DAY).toISOString();
const meeting = (id: string, over: Partial<Meeting> = {}): Meeting => ({
  id,
  eventId: 'ev-uuid',
  title: 'Intro',
  status: 'scheduled',
  date: inDays(2),
  duration: 30,
  meetingLink: null,
  conferencingType: 'zoom',
  location: null,
  personEmail: 'lead@example.com',
  additionalAttendees: [],
  cancellationReason: null,
  createdAt: inDays(0),
  updatedAt: inDays(0),
  ...over,
});
let state: State;
beforeEach(() => {
  state = openState(mkdtempSync(join(tmpdir(), 'state-meetings-')), { now: () => NOW });
});

describe('meetings record', () => {
  it('records a booking with how and where it was booked, and keeps a history of moves', async () => {
    await state.meetings.record({
      scope: S1,
      meeting: meeting('m1'),
      source: 'booked',
      event: 'link-1',
      triggerId: 't1',
      answersKey: 'k',
    });
    expect(await state.meetings.get(S1, 'm1')).toMatchObject({
      id: 'm1',
      scope: S1,
      source: 'booked',
      recordedAt: NOW.toISOString(),
      event: 'link-1',
      triggerId: 't1',
      history: [],
    });
    expect(await state.meetings.get(S2, 'm1')).toBeUndefined();

    const moved = await state.meetings.recordMove(
      S1,
      'm1',
      meeting('m1', { date: inDays(3), status: 'rescheduled' }),
      new Date(NOW.getTime() + 1000),
    );
    expect(moved).toMatchObject({
      source: 'booked',
      event: 'link-1',
      triggerId: 't1',
      status: 'rescheduled',
      date: inDays(3),
    });
    expect(moved.history).toEqual([
      { from: inDays(2), to: inDays(3), at: new Date(NOW.getTime() + 1000).toISOString(), by: whoAmI() },
    ]);
    // Refreshing the same time is not a move.
    expect((await state.meetings.recordMove(S1, 'm1', meeting('m1', { date: inDays(3) }), NOW)).history).toHaveLength(
      1,
    );
  });

  it('records a meeting first seen in a reschedule, without inventing its old time', async () => {
    const r = await state.meetings.recordMove(S1, 'm9', meeting('m9', { date: inDays(5) }), NOW);
    expect(r).toMatchObject({
      source: 'rescheduled',
      event: 'ev-uuid',
      history: [{ to: inDays(5), at: NOW.toISOString(), by: whoAmI() }],
    });
    expect(r.history[0]).not.toHaveProperty('from');
  });

  it("finds a lead's upcoming meetings only: same workspace, not canceled, not past, same trigger or event when asked", async () => {
    const rec = (
      scope: string,
      id: string,
      over: Partial<Meeting>,
      extra: { triggerId?: string; event?: string } = {},
    ) =>
      state.meetings.record({
        scope,
        meeting: meeting(id, over),
        source: 'booked',
        event: extra.event ?? 'link-1',
        triggerId: extra.triggerId ?? 't1',
      });
    await rec(S1, 'later', { date: inDays(9) });
    await rec(S1, 'soon', { date: inDays(1), personEmail: 'LEAD@example.com' });
    await rec(S1, 'now', { date: NOW.toISOString() });
    await rec(S1, 'past', { date: inDays(-1) });
    // Began 29 minutes ago, 30 long: in progress, still the lead's meeting. The other just ended.
    await rec(S1, 'in-progress', { date: new Date(NOW.getTime() - 29 * 60_000).toISOString(), duration: 30 });
    await rec(S1, 'just-over', { date: new Date(NOW.getTime() - 30 * 60_000).toISOString(), duration: 30 });
    await rec(S1, 'canceled', { date: inDays(3), status: 'canceled' });
    await rec(S1, 'other-lead', { date: inDays(3), personEmail: 'other@example.com' });
    await rec(S2, 'other-scope', { date: inDays(3) });
    await rec(S1, 'other-trigger', { date: inDays(4) }, { triggerId: 't2', event: 'link-2' });

    const ids = async (by: { email: string; triggerId?: string; event?: string }) =>
      (await state.meetings.findUpcoming(S1, by)).map((m) => m.id);
    expect(await ids({ email: ' lead@example.com' })).toEqual(['in-progress', 'now', 'soon', 'other-trigger', 'later']);
    expect(await ids({ email: 'lead@example.com', triggerId: 't1' })).toEqual(['in-progress', 'now', 'soon', 'later']);
    expect(await ids({ email: 'lead@example.com', event: 'link-2' })).toEqual(['other-trigger']);
    expect(
      (await state.meetings.findUpcoming(S1, { email: 'lead@example.com' }, new Date(inDays(5)))).map((m) => m.id),
    ).toEqual(['later']);
    expect((await state.meetings.list(S1)).map((m) => m.id)).toEqual([
      'past',
      'just-over',
      'in-progress',
      'now',
      'soon',
      'canceled',
      'other-lead',
      'other-trigger',
      'later',
    ]);
  });

  it('refreshes a recorded meeting without losing its first source, recordedAt or history', async () => {
    await state.meetings.record({ scope: S1, meeting: meeting('m1'), source: 'booked', event: 'link-1' });
    await state.meetings.recordMove(S1, 'm1', meeting('m1', { date: inDays(3) }), NOW);
    const later = openState(state.dir, { now: () => new Date(NOW.getTime() + DAY) });
    const r = await later.meetings.record({
      scope: S1,
      meeting: meeting('m1', { date: inDays(3), status: 'canceled' }),
      source: 'recovered',
      event: 'link-1',
    });
    expect(r).toMatchObject({ source: 'booked', recordedAt: NOW.toISOString(), status: 'canceled' });
    expect(r.history).toHaveLength(1);
  });
});

describe('notOver: what "upcoming" means', () => {
  const at = (msFromNow: number) => new Date(NOW.getTime() + msFromNow).toISOString();
  const now = NOW.getTime();
  it('holds a meeting until its start plus its duration, one in progress included', () => {
    expect(notOver({ date: at(-29 * 60_000), duration: 30 }, now)).toBe(true);
    expect(notOver({ date: at(-30 * 60_000 + 1), duration: 30 }, now)).toBe(true);
    expect(notOver({ date: at(-30 * 60_000), duration: 30 }, now)).toBe(false);
    expect(notOver({ date: at(-DAY), duration: 30 }, now)).toBe(false);
  });
  it('holds one without a duration (recovered after a lost response) until it starts', () => {
    expect(notOver({ date: at(0), duration: null }, now)).toBe(true);
    expect(notOver({ date: at(1), duration: null }, now)).toBe(true);
    expect(notOver({ date: at(-1), duration: null }, now)).toBe(false);
  });
});
