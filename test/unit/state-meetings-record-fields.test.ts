/**
 * The meeting record's later fields (src/state/meetings.ts): a meeting the server no longer has
 * (gone: the lead's next booking goes ahead), the moves its host refused, the routing trigger's
 * name, who booked it, and a slug's event ids in `meetings ls`. SQLite in-process, one temporary
 * ledger per test.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Meeting } from '../../src/api/schemas.js';
import { meetingFixture } from '../helpers/meeting.js';
import { openState, type State } from '../../src/state/index.js';
import { Meetings, putMeeting, whoAmI } from '../../src/state/meetings.js';
import type { Sql } from '../../src/state/sql/types.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const S = 'https://api.example.com#key:0123456789abcdef';
const EVENT = '11111111-1111-4111-8111-111111111111';
const LEAD = 'lead@acme.example';
const meeting = (id: string, over: Partial<Meeting> = {}): Meeting =>
  meetingFixture(id, NOW, { eventId: EVENT, personEmail: LEAD, ...over });

let state: State;
beforeEach(() => {
  state = openState(mkdtempSync(join(tmpdir(), 'meetings-fields-')), { now: () => NOW });
});
// The ledger's connection is shared by the process (one per file): closed, not left to the next test file.
afterEach(() => state.close());
const sql = async () => (await state.backend()).sql();
const book = (m: Meeting, over: { triggerName?: string; event?: string } = {}) =>
  state.meetings.record({ scope: S, meeting: m, source: 'booked', event: over.event ?? 'intro-call', ...over });
/** The `status` column, as sqlite3 shows it. */
const column = async (id: string) =>
  (await (await sql()).all<{ status: string }>('SELECT status FROM schedctl_meetings WHERE id = ?', [id]))[0]?.status;
const upcoming = async () => (await state.meetings.findUpcoming(S, { email: LEAD })).map((m) => m.id);

describe('a meeting the server no longer has (markGone)', () => {
  it('is marked gone at the first 404 (kept at a later one), no longer upcoming, `gone` in the status column; its body keeps the last status', async () => {
    await book(meeting('m1'));
    expect(await column('m1')).toBe('scheduled');
    expect(await upcoming()).toEqual(['m1']);
    const first = new Date('2031-03-01T12:05:00.000Z');
    const gone = await state.meetings.markGone(S, 'm1', first);
    expect(gone).toMatchObject({ id: 'm1', status: 'scheduled', goneAt: first.toISOString() });
    expect(await state.meetings.get(S, 'm1')).toEqual(gone);
    expect(await column('m1')).toBe('gone');
    expect(await upcoming()).toEqual([]);
    const again = await state.meetings.markGone(S, 'm1', new Date('2031-03-01T13:00:00.000Z'));
    expect(again?.goneAt).toBe(first.toISOString());
    // The server answers with it again: it exists, the mark is dropped.
    const back = await book(meeting('m1'));
    expect(back.goneAt).toBeUndefined();
    expect(await column('m1')).toBe('scheduled');
    expect(await upcoming()).toEqual(['m1']);
  });

  it('a meeting not on record stays unrecorded: undefined, nothing written', async () => {
    expect(await state.meetings.markGone(S, 'nobody', NOW)).toBeUndefined();
    expect(await state.meetings.get(S, 'nobody')).toBeUndefined();
    expect(await state.meetings.list(S)).toEqual([]);
  });

  it('a canceled meeting is not upcoming either; its column says canceled', async () => {
    await book(meeting('m2', { status: 'canceled' }));
    expect(await column('m2')).toBe('canceled');
    expect(await upcoming()).toEqual([]);
    expect((await state.meetings.list(S, { email: LEAD })).map((m) => m.id)).toEqual(['m2']);
  });
});

describe('a move its host refused (recordRefusal)', () => {
  it('is kept in the record, lapsed ones dropped; the rest of the record stays', async () => {
    const held = await book(meeting('m1'), { triggerName: 'Inbound demo' });
    const refusal = { startTime: '2031-03-04T10:00:00.000Z', at: NOW.toISOString() };
    const once = await state.meetings.recordRefusal(S, 'm1', refusal, NOW);
    expect(once).toEqual({ ...held, refused: [refusal] });
    expect(await state.meetings.get(S, 'm1')).toEqual(once);
    const later = { startTime: '2031-03-05T10:00:00.000Z', at: '2031-03-03T12:00:00.000Z' };
    // Two days on, the first refusal has lapsed: only the new one is kept.
    const twice = await state.meetings.recordRefusal(S, 'm1', later, new Date('2031-03-03T12:00:00.000Z'));
    expect(twice?.refused).toEqual([later]);
    expect(await column('m1')).toBe('scheduled');
  });

  it('a meeting not on record stays unrecorded (a refusal is no Meeting): undefined', async () => {
    const refusal = { startTime: '2031-03-04T10:00:00.000Z', at: NOW.toISOString() };
    expect(await state.meetings.recordRefusal(S, 'nobody', refusal, NOW)).toBeUndefined();
    expect(await state.meetings.get(S, 'nobody')).toBeUndefined();
  });
});

describe('how and by whom it was booked', () => {
  it('the routing trigger’s name is kept, also through a refresh that does not know it; a newer name replaces it', async () => {
    expect((await book(meeting('m1'), { triggerName: 'Inbound demo' })).triggerName).toBe('Inbound demo');
    const refreshed = await state.meetings.record({
      scope: S,
      meeting: meeting('m1', { title: 'Intro (moved room)' }),
      source: 'recovered',
      event: 'intro-call',
    });
    expect(refreshed).toMatchObject({ title: 'Intro (moved room)', source: 'booked', triggerName: 'Inbound demo' });
    expect(await state.meetings.get(S, 'm1')).toEqual(refreshed);
    expect((await book(meeting('m1'), { triggerName: 'Renamed' })).triggerName).toBe('Renamed');
    // None known: no field at all (not `undefined` in the body).
    expect(Object.keys(await book(meeting('m2')))).not.toContain('triggerName');
  });

  it('a move keeps who booked it (another user on a shared state); the move itself is by this process', async () => {
    const db = await sql();
    const theirs = { ...(await book(meeting('m1'))), bookedBy: 'ana@laptop' };
    await putMeeting(db, theirs);
    const to = '2031-03-03T10:00:00.000Z';
    const moved = await state.meetings.recordMove(S, 'm1', meeting('m1', { date: to }), NOW);
    expect(moved.bookedBy).toBe('ana@laptop');
    expect(moved.history).toEqual([{ from: theirs.date, to, at: NOW.toISOString(), by: whoAmI() }]);
    // First seen in a move: booked, as far as this ledger knows, by this process.
    expect((await state.meetings.recordMove(S, 'm9', meeting('m9', { date: to }), NOW)).bookedBy).toBe(whoAmI());
    expect(whoAmI()).toMatch(/^.+@.+$/);
  });
});

describe('meetings ls of a slug: the event as booked, or any of the event ids it stands for', () => {
  it('finds the meetings of each id, once each, earliest first', async () => {
    await book(meeting('a', { eventId: 'ev-a', date: '2031-03-04T10:00:00.000Z' }), { event: 'demo' });
    await book(meeting('b', { eventId: 'ev-b', date: '2031-03-03T10:00:00.000Z' }), { event: 'link-b' });
    await book(meeting('c', { eventId: 'ev-c', date: '2031-03-02T10:00:00.000Z' }), { event: 'link-c' });
    const ids = async (eventIds?: string[]) =>
      (await state.meetings.list(S, { event: 'demo', eventIds })).map((m) => m.id);
    expect(await ids()).toEqual(['a']);
    expect(await ids(['ev-b'])).toEqual(['b', 'a']);
    expect(await ids(['ev-c', 'ev-b'])).toEqual(['c', 'b', 'a']);
    // The slug among its own ids (an id given as itself) changes nothing.
    expect(await ids(['demo', 'ev-b'])).toEqual(['b', 'a']);
    expect(await ids(['demo'])).toEqual(['a']);
  });
});

describe('what the steps ask of the database (a team state runs a one-write step without a transaction block)', () => {
  it('marking gone and keeping a refusal each read the row and write it back once', async () => {
    await book(meeting('m1'));
    const asked: unknown[] = [];
    const inner = await sql();
    const recording = (s: Sql): Sql => ({
      ...s,
      all: (text, params = []) => (asked.push(text.trim().split(/\s+/)[0]), s.all(text, params)),
      run: (text, params = []) => (asked.push(text.trim().split(/\s+/)[0]), s.run(text, params)),
      step: (statements) => (
        asked.push(...statements.map(([t]) => `step ${t.trim().split(/\s+/)[0]}`)),
        s.step(statements)
      ),
      transaction: (work) => (asked.push('transaction'), s.transaction((tx) => work(recording(tx)))),
    });
    const meetings = new Meetings(
      async () => recording(inner),
      () => NOW,
      () => inner.where,
    );
    await meetings.markGone(S, 'm1', NOW);
    await meetings.recordRefusal(S, 'm1', { startTime: '2031-03-04T10:00:00.000Z', at: NOW.toISOString() }, NOW);
    await meetings.markGone(S, 'nobody', NOW);
    expect(asked).toEqual([
      'transaction',
      'SELECT',
      'step INSERT',
      'transaction',
      'SELECT',
      'step INSERT',
      'transaction',
      'SELECT',
    ]);
  });
});
