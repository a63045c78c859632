/**
 * One ledger copied into another (state/sql/copy.ts: `state push` and `state pull`), here two
 * SQLite ledgers: each table counted under its name, rows the target has left alone (a second
 * copy writes nothing), an outcome the target does not know learnt only when asked (a pull). The
 * same copy to and from a team database: test/e2e/team-state.test.ts, team-state-pull.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openState, type State } from '../../src/state/index.js';
import { putAttempt, type NewAttempt } from '../../src/state/journal.js';
import { copyLedger } from '../../src/state/sql/copy.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const SCOPE = 'https://api.example.com#key:0123456789abcdef';
const states: State[] = [];
afterEach(async () => {
  for (const s of states.splice(0)) await s.close();
});
const ledger = () => {
  const s = openState(mkdtempSync(join(tmpdir(), 'sql-copy-')), { now: () => NOW });
  states.push(s);
  return s;
};
const sqlOf = async (s: State) => (await s.backend()).sql();
const attempt = (email: string): NewAttempt => ({
  scope: SCOPE,
  event: 'ev',
  reservationId: `r-${email}`,
  workflowExecutionId: `run-${email}`,
  personEmail: email,
  startTime: '2031-03-05T10:00:00.000Z',
  outcome: 'unknown',
});

describe('copyLedger', () => {
  it('copies every table under its name once; a second copy finds them all there', async () => {
    const [from, into] = [ledger(), ledger()];
    await from.journal.add(attempt('a@example.com'));
    await from.journal.add(attempt('b@example.com'));
    await from.events.learn(SCOPE, 'intro', 'e-1');
    const first = await copyLedger(await sqlOf(from), await sqlOf(into), { learn: false });
    expect(first.copied).toEqual({ journal: 2, meetings: 0, outcomes: 0, fires: 0, events: 1, workspaceKeys: 0 });
    expect(first.already).toEqual({ journal: 0, meetings: 0, outcomes: 0, fires: 0, events: 0, workspaceKeys: 0 });
    expect((await into.journal.all()).map((e) => e.personEmail).sort()).toEqual(['a@example.com', 'b@example.com']);
    const again = await copyLedger(await sqlOf(from), await sqlOf(into), { learn: false });
    expect(again.copied.journal).toBe(0);
    expect(again.already).toMatchObject({ journal: 2, events: 1 });
  });

  it("learns an attempt's outcome the target holds as unknown only when asked (a pull), never the other way", async () => {
    const [from, into] = [ledger(), ledger()];
    const made = await from.journal.add(attempt('c@example.com'));
    await copyLedger(await sqlOf(from), await sqlOf(into), { learn: false });
    await from.journal.update(made.id, { outcome: 'booked', meetingId: 'm-1' });
    const pushed = await copyLedger(await sqlOf(from), await sqlOf(into), { learn: false });
    expect(pushed.copied.journal).toBe(0);
    expect((await into.journal.all())[0]?.outcome).toBe('unknown');
    const pulled = await copyLedger(await sqlOf(from), await sqlOf(into), { learn: true });
    expect(pulled.copied.journal).toBe(1);
    expect((await into.journal.all())[0]).toMatchObject({ outcome: 'booked', meetingId: 'm-1' });
    // Known stays known: a source's unknown copy never undoes it.
    const stale = ledger();
    await putAttempt(await sqlOf(stale), made);
    const back = await copyLedger(await sqlOf(stale), await sqlOf(into), { learn: true });
    expect(back.already.journal).toBe(1);
    expect((await into.journal.all())[0]?.outcome).toBe('booked');
  });
});
