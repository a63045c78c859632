/**
 * `meetings history` and the lost-booking views on a team state (issue 52): one machine's lost
 * booking, its re-run and another machine's move are one record, read from either machine.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { bookSlotArgs } from '../helpers/args.js';
import { show } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { useSandbox } from '../helpers/sandbox.js';
import { machine, type Machine } from '../helpers/team.js';

const fx = usePostgres();
const t = useSandbox({ holdSeconds: 60 });
const BOOK_PATH = '/v1/scheduling/meetings';

let stateUrl = '';
beforeEach(async () => {
  stateUrl = await fx.pg.createDatabase();
});
const on = (): Machine => machine(t.sb, stateUrl);

interface Entry {
  kind: string;
  [k: string]: unknown;
}
async function historyOn(m: Machine, email: string): Promise<Entry[]> {
  const r = await m.run(['meetings', 'history', email, '--json']);
  expect(r.code, show(r)).toBe(0);
  return (r.json() as { entries: Entry[] }).entries;
}

describe('a lead on team state', () => {
  it(
    'is one record on every machine: another machine sees the lost booking, its proof and the move (issue 52 finding 7)',
    { timeout: 90_000 },
    async () => {
      const [a, b] = [on(), on()];
      const email = 'team-hist@acme.example';
      await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'drop-after-commit' });
      const s = await t.sb.slots('quarterly-review', 14);
      const args = [...bookSlotArgs('quarterly-review', s.slots[1]!, s.reservationId, email), '--json'];
      const lost = await a.run(args);
      expect(lost.code, show(lost)).toBe(7);

      // Machine b, which sent nothing, sees the unresolved booking in its views.
      expect((await historyOn(b, email)).find((e) => e.kind === 'booking')).toMatchObject({ outcome: 'unknown' });
      const ls = await b.run(['meetings', 'ls', '--email', email, '--json']);
      expect(ls.json()).toEqual([expect.objectContaining({ source: 'unresolved', id: null })]);
      const human = await b.run(['meetings', 'history', email]);
      expect(human.stderr).toContain("the team state's: every machine's");

      const again = await a.run(args);
      expect(again.code, show(again)).toBe(0);
      const listed = (await b.run(['meetings', 'ls', '--email', email, '--json'])).json() as { source: string }[];
      expect(listed.map((m) => m.source)).toEqual(['recovered']);

      // Machine b moves it by the id the scheduling app shows (the answer that carried it was lost).
      const [meeting] = (await t.sb.state()).meetings.filter((m) => m.personEmail === email);
      const meetingId = meeting!.id;
      const moved = await b.run(['reschedule', meetingId, '--start', s.slots[3]!, '--json']);
      expect(moved.code, show(moved)).toBe(0);

      const entries = await historyOn(a, email);
      expect(entries.map((e) => e.kind)).toEqual(expect.arrayContaining(['booking', 'booking_settled']));
      expect(entries.filter((e) => e.kind === 'booking').some((e) => e.outcome === 'unknown')).toBe(false);
      expect(entries.find((e) => e.kind === 'move')).toMatchObject({
        meetingId,
        to: s.slots[3],
        by: expect.stringMatching(/.+@.+/),
      });
      expect((await t.sb.state()).meetings.filter((m) => m.personEmail === email)).toHaveLength(1);
    },
  );
});
