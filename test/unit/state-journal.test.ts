import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openState, type State } from '../../src/state/index.js';
import type { NewAttempt } from '../../src/state/journal.js';

const DAY = 86_400_000;
// Every date below is relative to this injected clock, never to the real date.
const NOW = new Date('2031-03-01T12:00:00.000Z');
const S1 = 'prod@https://api.example.com';
const S2 = 'staging@https://api.example.com';
const T = '2031-04-01T10:00:00.000Z';

let clock: Date;
let state: State;
let dir: string;
beforeEach(() => {
  clock = NOW;
  dir = mkdtempSync(join(tmpdir(), 'state-journal-'));
  state = openState(dir, { now: () => clock });
});

const attempt = (over: Partial<NewAttempt> = {}): NewAttempt => ({
  scope: S1,
  event: 'ev1',
  reservationId: 'r1',
  workflowExecutionId: null,
  personEmail: 'lead-a@example.com',
  startTime: T,
  outcome: 'unknown',
  ...over,
});
async function sent(over: Partial<NewAttempt> = {}) {
  const e = await state.journal.add(attempt(over));
  return (await state.journal.markSent(e.id))!;
}

describe('journal findPrior', () => {
  it("never matches another lead's, reservation's or workspace's entry", async () => {
    const a1 = await sent({ reservationId: 'r1', workflowExecutionId: 'e1' });
    const b = await sent({ reservationId: 'r2', workflowExecutionId: 'e2', personEmail: 'lead-b@example.com' });
    // Same ids in another workspace, recorded later: must not shadow S1's entry.
    await sent({ scope: S2, reservationId: 'r1', workflowExecutionId: 'e1' });
    await sent({ reservationId: 'r9', workflowExecutionId: null });

    expect(await state.journal.findPrior(S1, { reservationId: 'r3', workflowExecutionId: 'e3' })).toBeUndefined();
    expect((await state.journal.findPrior(S1, { reservationId: 'r1' }))?.id).toBe(a1.id);
    expect((await state.journal.findPrior(S1, { reservationId: 'rX', workflowExecutionId: 'e2' }))?.id).toBe(b.id);
    // A null workflow run matches nothing by run (entries without a run are not "the same run").
    expect(await state.journal.findPrior(S1, { reservationId: 'rX', workflowExecutionId: null })).toBeUndefined();
    expect(await state.journal.findPrior('other@https://api.example.com', { reservationId: 'r1' })).toBeUndefined();
  });

  it('counts a booked entry only for the same start instant and the same email', async () => {
    const e = await sent({ reservationId: 'r1' });
    await state.journal.update(e.id, { outcome: 'booked', meetingId: 'm1' });
    const by = { reservationId: 'r1', personEmail: 'LEAD-A@example.com' };
    expect((await state.journal.findPrior(S1, { ...by, startTime: '2031-04-01T12:00:00+02:00' }))?.id).toBe(e.id);
    expect(await state.journal.findPrior(S1, { ...by, startTime: '2031-04-01T10:30:00.000Z' })).toBeUndefined();
    expect(
      await state.journal.findPrior(S1, { ...by, startTime: T, personEmail: 'lead-b@example.com' }),
    ).toBeUndefined();
    expect(
      await state.journal.findPrior(S1, { reservationId: 'r1', personEmail: 'lead-a@example.com' }),
    ).toBeUndefined();
  });

  it('does not treat an attempt that was never sent as a lost response', async () => {
    const e = await state.journal.add(attempt());
    expect(e.sentAt).toBeNull();
    expect(await state.journal.findPrior(S1, { reservationId: 'r1' })).toBeUndefined();
    const marked = await state.journal.markSent(e.id);
    expect(marked?.sentAt).toBe(NOW.toISOString());
    expect((await state.journal.findPrior(S1, { reservationId: 'r1' }))?.id).toBe(e.id);
  });

  it('treats an entry written before sentAt existed as sent (the old schedctl sent right after writing)', async () => {
    const legacy = { id: 'old', ...attempt(), attemptedAt: NOW.toISOString() };
    writeFileSync(join(dir, 'journal.json'), JSON.stringify({ entries: [legacy] }));
    expect((await state.journal.findPrior(S1, { reservationId: 'r1' }))?.id).toBe('old');
  });

  it('begin returns the prior attempt and records the new one in one step', async () => {
    const first = await sent();
    const { prior, attempt: second } = await state.journal.begin(attempt());
    expect(prior?.id).toBe(first.id);
    expect((await state.journal.all()).map((e) => e.id)).toEqual([first.id, second.id]);
  });
});

describe('journal findOpenAttempt', () => {
  it("finds the lead's latest sent unknown attempt on that run or event, and nothing else", async () => {
    await sent({ workflowExecutionId: 'e1', triggerId: 't1', answersKey: 'k1' });
    const latest = await sent({ workflowExecutionId: 'e1', triggerId: 't1', answersKey: 'k1', reservationId: 'r2' });
    await state.journal.add(attempt({ workflowExecutionId: 'e1', triggerId: 't1', reservationId: 'r3' })); // never sent
    const booked = await sent({ workflowExecutionId: 'e1', triggerId: 't1', reservationId: 'r4' });
    await state.journal.update(booked.id, { outcome: 'booked' });
    await sent({ personEmail: 'lead-b@example.com', workflowExecutionId: 'e1', triggerId: 't1' });
    await sent({ scope: S2, workflowExecutionId: 'e1', triggerId: 't1' });

    const j = state.journal;
    expect((await j.findOpenAttempt(S1, { personEmail: ' Lead-A@Example.com', workflowExecutionId: 'e1' }))?.id).toBe(
      latest.id,
    );
    expect(
      (
        await j.findOpenAttempt(S1, {
          personEmail: 'lead-a@example.com',
          triggerId: 't1',
          event: 'ev1',
          answersKey: 'k1',
        })
      )?.id,
    ).toBe(latest.id);
    expect(await j.findOpenAttempt(S1, { personEmail: 'lead-a@example.com', event: 'ev2' })).toBeUndefined();
    expect(
      await j.findOpenAttempt(S1, { personEmail: 'lead-a@example.com', workflowExecutionId: 'e2' }),
    ).toBeUndefined();
    expect(await j.findOpenAttempt(S1, { personEmail: 'lead-c@example.com' })).toBeUndefined();
    expect((await j.listOpen(S1)).length).toBe(3);
  });
});

describe('journal retention', () => {
  it('drops entries older than 90 days by the injected clock, at the boundary, but keeps booked ones', async () => {
    const at = (ms: number) => (clock = new Date(NOW.getTime() + ms));
    at(-200 * DAY);
    const oldBooked = await sent({ reservationId: 'b' });
    await state.journal.update(oldBooked.id, { outcome: 'booked' });
    const oldButUpdated = await sent({ reservationId: 'u' });
    await state.journal.update(oldButUpdated.id, {
      outcome: 'already_booked',
      updatedAt: new Date(NOW.getTime() - DAY).toISOString(),
    });
    at(-90 * DAY - 1);
    await sent({ reservationId: 'o' });
    at(-90 * DAY);
    const edge = await sent({ reservationId: 'e' });

    at(0);
    const fresh = await state.journal.add(attempt({ reservationId: 'f' }));
    expect((await state.journal.all()).map((e) => e.id)).toEqual([oldBooked.id, oldButUpdated.id, edge.id, fresh.id]);

    at(1);
    await state.journal.add(attempt({ reservationId: 'g' }));
    expect((await state.journal.all()).map((e) => e.reservationId)).toEqual(['b', 'u', 'f', 'g']);
  });
});
