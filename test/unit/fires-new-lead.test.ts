/**
 * A fire marked sent in front of the lead's reads (Fires.recordSentIfNewLead), on a real SQLite ledger:
 * marked for a lead with nothing on record, in one step with the pruning of old fires, and
 * nothing for a lead with a record (test/unit/state-postgres-steps.test.ts proves the same on
 * PostgreSQL, where the mark and the reads go out together).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { Fires } from '../../src/state/fires.js';
import { openState, type State } from '../../src/state/index.js';
import { get, type Sql } from '../../src/state/sql/types.js';
import { insertLeadRecords, LEADS_WITH_RECORDS } from '../helpers/lead-records.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const S = 'ws-a';
const TRIGGER = 'trig-1';

let state: State;
let base: Sql;
beforeEach(async () => {
  state = openState(mkdtempSync(join(tmpdir(), 'fires-new-lead-')), { now: () => NOW });
  base = await state.journal.ledger();
});

const fires = () =>
  new Fires(
    async () => base,
    () => NOW,
  );
const fire = (email: string, triggerId = TRIGGER) =>
  fires().newEntry({ scope: S, triggerId, personEmail: email, answersKey: 'k' });
const rowOf = async (id: string) =>
  get<{ state: string; lead: string }>(base, 'SELECT state, lead FROM schedctl_fires WHERE id = ?', [id]);

describe("Fires.recordSentIfNewLead (a fire marked sent in front of the lead's reads)", () => {
  it('marks the fire sent for a lead with nothing on record; the reads after it see it (left out by `except`)', async () => {
    const entry = fire('New.Lead@Acme.example');
    const got = await fires().recordSentIfNewLead(entry);
    expect(got).toMatchObject({ id: entry.id, state: 'sent', sentAt: NOW.toISOString() });
    expect(await rowOf(entry.id)).toEqual({ state: 'sent', lead: 'new.lead@acme.example' });
    expect(await fires().unanswered(S, 'new.lead@acme.example', TRIGGER, entry.id)).toEqual([]);
    expect((await fires().unanswered(S, 'new.lead@acme.example', TRIGGER)).map((f) => f.id)).toEqual([entry.id]);
    // Taken back when the fire does not follow.
    await fires().forget(entry.id);
    expect(await rowOf(entry.id)).toBeUndefined();
  });

  it('prunes fires prepared over 90 days ago in the same step', async () => {
    const old = fire('o@x.example');
    await fires().recordSent({ ...old, preparedAt: new Date(NOW.getTime() - 91 * 86_400_000).toISOString() });
    const recent = await fires().recordSent({
      ...old,
      id: 'recent',
      preparedAt: new Date(NOW.getTime() - 89 * 86_400_000).toISOString(),
    });
    expect(await fires().recordSentIfNewLead(fire('p@x.example'))).toBeDefined();
    expect(await rowOf(old.id)).toBeUndefined();
    expect(await rowOf(recent.id)).toBeDefined();
  });

  it('marks nothing for a lead with a meeting, an attempt or a remembered outcome of this trigger', async () => {
    await insertLeadRecords(base, S, TRIGGER);
    for (const email of LEADS_WITH_RECORDS) {
      const entry = fire(email);
      expect(await fires().recordSentIfNewLead(entry), email).toBeUndefined();
      expect(await rowOf(entry.id), email).toBeUndefined();
    }
    // The lead as the ledger keys it: an email in another case is the same lead.
    expect(await fires().recordSentIfNewLead(fire('Tried@Acme.Example'))).toBeUndefined();
    // Records of another workspace, or an outcome of another trigger, do not count.
    for (const entry of [fire('kept@acme.example', 'trig-2'), { ...fire('met@acme.example'), scope: 'ws-b' }])
      expect((await fires().recordSentIfNewLead(entry))?.id).toBe(entry.id);
  });
});
