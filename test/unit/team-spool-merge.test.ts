/** The team-spool's merge into the team database (src/state/postgres/spool.ts): what a kept record may replace. */
import { describe, expect, it } from 'vitest';
import { JOURNAL_FILE, MEETINGS_FILE } from '../../src/state/files.js';
import type { FileKind } from '../../src/state/json-file.js';
import { mergeRecords } from '../../src/state/postgres/spool.js';

const journal = JOURNAL_FILE as FileKind<unknown>;
const entry = (outcome: string, extra: Record<string, unknown> = {}) => ({ id: 'a1', outcome, ...extra });

describe('mergeRecords (replace: the spool moving in)', () => {
  it('replaces a journal entry with the kept copy, but never turns a known outcome back into unknown', () => {
    const booked = { entries: [entry('already_booked', { meetingId: 'm1' })] };
    expect(mergeRecords(journal, booked, new Map([['a1', entry('unknown', { lostBy: 'no_answer' })]]), 'replace')).toBe(
      0,
    );
    expect(booked.entries[0]).toEqual(entry('already_booked', { meetingId: 'm1' }));

    const unknown = { entries: [entry('unknown')] };
    expect(
      mergeRecords(journal, unknown, new Map([['a1', entry('unknown', { lostBy: 'no_answer' })]]), 'replace'),
    ).toBe(1);
    expect(unknown.entries[0]).toEqual(entry('unknown', { lostBy: 'no_answer' }));

    const learnt = { entries: [entry('unknown')] };
    expect(mergeRecords(journal, learnt, new Map([['a1', entry('booked', { meetingId: 'm1' })]]), 'replace')).toBe(1);
    expect(learnt.entries[0]).toEqual(entry('booked', { meetingId: 'm1' }));
  });

  it("replaces other documents' records as before", () => {
    const doc = { meetings: { k: { id: 'm1', date: 'old' } } };
    expect(
      mergeRecords(MEETINGS_FILE as FileKind<unknown>, doc, new Map([['k', { id: 'm1', date: 'new' }]]), 'replace'),
    ).toBe(1);
    expect(doc.meetings.k.date).toBe('new');
  });
});
