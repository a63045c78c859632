/**
 * On a team state, bookings of different leads never wait on each other: no row, table or
 * advisory lock shared by two leads is held across a command's work. Machine A holds lead A's
 * lock and an open transaction over lead A's rows for 10 s; machine B books lead B from start to
 * end meanwhile (its lock, its attempt begun, sent, settled, its meeting, outcome, fire and alias).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openState, type State } from '../../src/state/index.js';
import type { Meeting } from '../../src/api/schemas.js';
import { meetingFixture } from '../helpers/meeting.js';
import { usePostgres } from '../helpers/postgres.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const WS = 'https://api.example.com#key:0123456789abcdef';
const HOLD_MS = 10_000;

const meeting = (id: string, email: string): Meeting => meetingFixture(id, NOW, { personEmail: email });

async function bookLead(state: State, email: string, id: string): Promise<void> {
  await state.holdLead({ scope: WS, email }, async (held) => {
    const { attempt } = await state.journal.begin({
      scope: WS,
      event: 'intro-call',
      reservationId: `r-${id}`,
      workflowExecutionId: `x-${id}`,
      personEmail: email,
      startTime: '2031-03-02T10:00:00.000Z',
      outcome: 'unknown',
    });
    await held.assertHeld();
    await state.journal.markSent(attempt.id);
    await state.journal.update(attempt.id, { outcome: 'booked', meetingId: id });
    await state.meetings.record({ scope: WS, meeting: meeting(id, email), source: 'booked', event: 'intro-call' });
    const fire = await state.fires.prepare({ scope: WS, triggerId: 't1', personEmail: email, answersKey: 'k' });
    await state.fires.markSent(fire.id);
    await state.fires.answered(fire.id, `x-${id}`, 'scheduler');
    await state.outcomes.remember(WS, 't1', email, {
      executionId: `x-${id}`,
      outcome: {
        type: 'scheduler',
        schedulerUrl: 'https://x',
        schedulingLinkId: '22222222-2222-4222-8222-222222222222',
      },
      firedAt: NOW.toISOString(),
      answersKey: 'k',
    });
    await state.events.learn(WS, `link-${id}`, '11111111-1111-4111-8111-111111111111');
  });
}

describe('bookings of different leads on a team state', () => {
  const fx = usePostgres();

  it("are not delayed by another lead's lock and open transaction", async () => {
    const url = await fx.pg.createDatabase('leads');
    const machine = () => openState(mkdtempSync(join(tmpdir(), 'leads-')), { now: () => NOW, stateUrl: () => url });
    const [a, b] = [machine(), machine()];
    await bookLead(a, 'a@acme.example', 'ma');

    // Machine A: lead A's lock, and a transaction that has changed every kind of lead A's rows, held open.
    const raw = new pg.Client({ connectionString: url });
    await raw.connect();
    let released!: () => void;
    const releasedA = new Promise<void>((resolve) => (released = resolve));
    const holding = a.holdLead({ scope: WS, email: 'a@acme.example' }, async () => {
      await raw.query('BEGIN');
      for (const table of ['attempts', 'meetings', 'fires', 'outcomes'])
        await raw.query(`UPDATE schedctl_${table} SET body = body WHERE lead = 'a@acme.example'`);
      await raw.query(`UPDATE schedctl_event_aliases SET event_id = event_id WHERE alias = 'link-ma'`);
      await Promise.race([releasedA, new Promise((resolve) => setTimeout(resolve, HOLD_MS))]);
      await raw.query('ROLLBACK');
    });

    // Machine B books lead B while A holds on: done before A lets go.
    let aStillHolding = true;
    void holding.then(() => (aStillHolding = false));
    await bookLead(b, 'b@acme.example', 'mb');
    expect(aStillHolding, "lead B's booking waited for lead A's").toBe(true);
    released();
    await holding;
    expect((await b.meetings.get(WS, 'mb'))?.personEmail).toBe('b@acme.example');
    await raw.end();
    await Promise.all([a.close(), b.close()]);
  }, 30_000);
});
