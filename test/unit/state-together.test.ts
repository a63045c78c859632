/**
 * Writes of several stores as one step (state/together.ts), on a real SQLite ledger: all land or
 * none, each store's slower way runs only for a write that changed no row, and each store's
 * write for a shared step does what its own method does.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { learnWrite } from '../../src/state/events.js';
import { openState, type JournalEntry, type State } from '../../src/state/index.js';
import type { SqlSource } from '../../src/state/sql/types.js';
import { writeTogether } from '../../src/state/together.js';
import { meetingFixture } from '../helpers/meeting.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const S = 'ws-a';
const OTHER = 'ws-b';
const EVENT = '0b9e4d7c-1f2a-4c3b-9d8e-7f6a5b4c3d2e';
const LEAD = 'lead@company.com';

let state: State;
let ledger: SqlSource;
beforeEach(() => {
  state = openState(mkdtempSync(join(tmpdir(), 'together-')), { now: () => NOW });
  ledger = state.journal.ledger;
});

const aliasCount = async () =>
  (await (await ledger()).all<{ n: number }>('SELECT count(*) AS n FROM schedctl_event_aliases'))[0]!.n;

describe('writeTogether', () => {
  it('writes nothing, and opens no transaction, for no writes', async () => {
    let asked = 0;
    const counting: SqlSource = async () => {
      asked++;
      return ledger();
    };
    await writeTogether(counting, [undefined, undefined]);
    expect(asked).toBe(0);
  });

  it('lands every write, and calls a write’s slower way only when it changed no row, after the step', async () => {
    const calls: string[] = [];
    const alias = learnWrite(S, 'intro-call', EVENT)!;
    await writeTogether(ledger, [
      { ...alias, otherwise: async () => calls.push('alias') },
      {
        statement: ['DELETE FROM schedctl_outcomes WHERE workspace = ?', [S]],
        otherwise: async () => calls.push(`none-deleted ${await aliasCount()}`),
      },
    ]);
    // The alias was new (a row), the delete found none: only its way runs, once the alias is in.
    expect(calls).toEqual(['none-deleted 1']);
    expect(await state.events.of(S, ['intro-call'])).toEqual({ 'intro-call': EVENT });
    // Known already: the upsert changes no row.
    await writeTogether(ledger, [{ ...alias, otherwise: async () => calls.push('known') }]);
    expect(calls).toEqual(['none-deleted 1', 'known']);
  });

  it('lands none of the writes when one fails', async () => {
    const failing = writeTogether(ledger, [
      learnWrite(S, 'intro-call', EVENT),
      { statement: ['INSERT INTO schedctl_no_such_table (x) VALUES (?)', [1]] },
    ]);
    await expect(failing).rejects.toThrow(/no such table/);
    expect(await aliasCount()).toBe(0);
  });

  it('runs the slower way of each write that changed no row, in order, once the step has landed', async () => {
    const calls: string[] = [];
    const alias = learnWrite(S, 'intro-call', EVENT)!;
    await writeTogether(ledger, [
      { ...alias, otherwise: async () => calls.push('alias') },
      {
        statement: ['DELETE FROM schedctl_outcomes WHERE workspace = ?', [S]],
        otherwise: async () => calls.push('none'),
      },
      undefined,
    ]);
    expect(await aliasCount()).toBe(1);
    expect(calls).toEqual(['none']);
    // Nothing to write: no step at all.
    await writeTogether(ledger, [undefined]);
  });
});

describe("each store's write for a shared step", () => {
  const meeting = meetingFixture('m-1', NOW, { eventId: EVENT, date: '2031-03-03T14:00:00.000Z', personEmail: LEAD });

  it('Meetings.recordWrite: a new meeting in the step; one on record refreshed afterwards, its history kept', async () => {
    const input = { scope: S, meeting, source: 'booked' as const, event: 'intro-call', triggerName: 'Demo' };
    const first = state.meetings.recordWrite(input);
    expect(first.fresh).toMatchObject({ id: 'm-1', source: 'booked', recordedAt: NOW.toISOString(), history: [] });
    await writeTogether(ledger, [first]);
    expect(await state.meetings.get(S, 'm-1')).toMatchObject({ source: 'booked', triggerName: 'Demo' });

    await state.meetings.recordMove(S, 'm-1', { ...meeting, date: '2031-03-04T14:00:00.000Z' }, NOW);
    const again = state.meetings.recordWrite({
      ...input,
      source: 'rescheduled',
      triggerName: undefined,
      meeting: { ...meeting, title: 'New title' },
    });
    await writeTogether(ledger, [again]);
    const held = await state.meetings.get(S, 'm-1');
    expect(held).toMatchObject({ title: 'New title', source: 'booked', triggerName: 'Demo' });
    expect(held?.history).toHaveLength(1);
  });

  it('Journal.updateWrite: the attempt written over; one moved to another workspace is read and patched', async () => {
    const { attempt } = await state.journal.begin(
      {
        scope: S,
        event: 'intro-call',
        reservationId: 'r-1',
        workflowExecutionId: null,
        personEmail: LEAD,
        startTime: '2031-03-03T14:00:00.000Z',
        outcome: 'unknown',
      },
      { sent: true },
    );
    expect(attempt.sentAt).toBe(NOW.toISOString());
    await writeTogether(ledger, [state.journal.updateWrite(attempt, { outcome: 'booked', meetingId: 'm-1' })]);
    expect(await state.journal.findMeeting(S, 'm-1')).toMatchObject({ id: attempt.id, outcome: 'booked' });

    // Its row adopted into another workspace since: the write over it (same workspace only) changes nothing.
    await (await ledger()).run('UPDATE schedctl_attempts SET workspace = ? WHERE id = ?', [OTHER, attempt.id]);
    const stale: JournalEntry = { ...attempt, outcome: 'booked', meetingId: 'm-1' };
    await writeTogether(ledger, [state.journal.updateWrite(stale, { meetingId: 'm-2' })]);
    expect(await state.journal.findMeeting(OTHER, 'm-2')).toMatchObject({ id: attempt.id, scope: OTHER });
  });

  it('learnWrite: none for an event named by its own id (any case)', () => {
    expect(learnWrite(S, EVENT.toUpperCase(), EVENT)).toBeUndefined();
    expect(learnWrite(S, 'Intro-Call', EVENT.toUpperCase())?.statement[1]).toEqual([S, 'intro-call', EVENT]);
  });

  it("Outcomes.remember's along: the fire's answer lands in the outcome's step", async () => {
    const fire = await state.fires.recordSent(
      state.fires.newEntry({ scope: S, triggerId: 't1', personEmail: LEAD, answersKey: 'k' }),
    );
    const along = state.fires.answeredWrites(fire, 'x-1', 'scheduler');
    await state.outcomes.remember(
      S,
      't1',
      LEAD,
      {
        executionId: 'x-1',
        outcome: { type: 'scheduler', schedulerUrl: 'https://x', schedulingLinkId: EVENT },
        firedAt: NOW.toISOString(),
        answersKey: 'k',
      },
      along,
    );
    expect(await state.fires.unanswered(S, LEAD, 't1')).toEqual([]);
    expect((await state.outcomes.get(S, 't1', LEAD))?.executionId).toBe('x-1');
  });
});
