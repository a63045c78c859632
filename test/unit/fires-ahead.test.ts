/**
 * A fire marked sent ahead, with the lead's reads (Fires.recordSentAhead), and writes that ride
 * with the next step (Sql.later), on a real SQLite ledger given a `later` the way the team state
 * has one (postgres/sql.ts: held until the next statement; test/unit/state-postgres-steps.test.ts
 * proves the same on PostgreSQL, which mutation testing does not run).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { Fires } from '../../src/state/fires.js';
import { openState, type State } from '../../src/state/index.js';
import { Outcomes } from '../../src/state/outcomes.js';
import type { Sql, SqlSource, SqlValue } from '../../src/state/sql/types.js';
import { insertLeadRecords, LEADS_WITH_RECORDS } from '../helpers/lead-records.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const S = 'ws-a';
const TRIGGER = 'trig-1';

let state: State;
let base: Sql;
/** The writes held (later) and sent with the next statement, the way a team state does. */
let held: Array<{ writes: ReadonlyArray<readonly [string, readonly SqlValue[]]>; landed?: (c: number[]) => unknown }>;
let riding: SqlSource;
beforeEach(async () => {
  state = openState(mkdtempSync(join(tmpdir(), 'fires-ahead-')), { now: () => NOW });
  base = await state.journal.ledger();
  held = [];
  const send = async () => {
    const waiting = held.splice(0);
    for (const h of waiting) {
      const counts: number[] = [];
      for (const [text, params] of h.writes) counts.push(await base.run(text, [...params]));
      await h.landed?.(counts);
    }
  };
  const sql: Sql = {
    where: base.where,
    defer: (t, p) => base.defer(t, p),
    last: async (t, p) => (await send(), base.last(t, p)),
    transaction: async (work, o) => (await send(), base.transaction(work, o)),
    all: async (t, p) => (await send(), base.all(t, p)),
    get: async (t, p) => (await send(), base.get(t, p)),
    run: async (t, p) => (await send(), base.run(t, p)),
    later: (writes, landed) => void held.push({ writes, landed }),
    flush: send,
  };
  riding = async () => sql;
});

const fires = (ledger: SqlSource = riding) => new Fires(ledger, () => NOW);
const fire = (email: string, triggerId = TRIGGER) =>
  fires().newEntry({ scope: S, triggerId, personEmail: email, answersKey: 'k' });
const rowOf = async (id: string) =>
  base.get<{ state: string; lead: string }>('SELECT state, lead FROM schedctl_fires WHERE id = ?', [id]);

describe('Fires.recordSentAhead', () => {
  it('marks the fire sent for a lead with nothing on record, once the next statement carries it', async () => {
    const entry = fire('New.Lead@Acme.example');
    const marked = fires().recordSentAhead(entry);
    await Promise.resolve();
    expect(await base.get('SELECT id FROM schedctl_fires WHERE id = ?', [entry.id])).toBeUndefined();
    // The lead's reads carry it; they see it (left out by `except`).
    expect(await fires().unanswered(S, 'new.lead@acme.example', TRIGGER, entry.id)).toEqual([]);
    expect((await fires().unanswered(S, 'new.lead@acme.example', TRIGGER)).map((f) => f.id)).toEqual([entry.id]);
    const got = await marked;
    expect(got).toMatchObject({ id: entry.id, state: 'sent', sentAt: NOW.toISOString() });
    expect(await rowOf(entry.id)).toEqual({ state: 'sent', lead: 'new.lead@acme.example' });
  });

  it('prunes fires prepared over 90 days ago in the same step', async () => {
    const old = fires(async () => base).newEntry({
      scope: S,
      triggerId: TRIGGER,
      personEmail: 'o@x.example',
      answersKey: 'k',
    });
    await fires(async () => base).recordSent({
      ...old,
      preparedAt: new Date(NOW.getTime() - 91 * 86_400_000).toISOString(),
    });
    const recent = await fires(async () => base).recordSent({
      ...old,
      id: 'recent',
      preparedAt: new Date(NOW.getTime() - 89 * 86_400_000).toISOString(),
    });
    const marked = fires().recordSentAhead(fire('p@x.example'));
    await fires().flush();
    expect(await marked).toBeDefined();
    expect(await rowOf(old.id)).toBeUndefined();
    expect(await rowOf(recent.id)).toBeDefined();
  });

  it('marks nothing for a lead with a meeting, an attempt or a remembered outcome of this trigger', async () => {
    await insertLeadRecords(base, S, TRIGGER);
    for (const email of LEADS_WITH_RECORDS) {
      const entry = fire(email);
      const marked = fires().recordSentAhead(entry);
      await fires().flush();
      expect(await marked, email).toBeUndefined();
      expect(await rowOf(entry.id), email).toBeUndefined();
    }
    // The lead as the ledger keys it: an email in another case is the same lead.
    const upper = fires().recordSentAhead(fire('Tried@Acme.Example'));
    await fires().flush();
    expect(await upper).toBeUndefined();
    // Records of another workspace, or an outcome of another trigger, do not count.
    for (const entry of [fire('kept@acme.example', 'trig-2'), { ...fire('met@acme.example'), scope: 'ws-b' }]) {
      const marked = fires().recordSentAhead(entry);
      await fires().flush();
      expect((await marked)?.id).toBe(entry.id);
    }
  });

  it('marks nothing, and forgetLater deletes at once, where the ledger writes at once (no later)', async () => {
    const direct = fires(async () => base);
    const entry = fire('direct@acme.example');
    expect(await direct.recordSentAhead(entry)).toBeUndefined();
    expect(await rowOf(entry.id)).toBeUndefined();
    await direct.recordSent(entry);
    await direct.forgetLater(entry.id);
    expect(await rowOf(entry.id)).toBeUndefined();
    await direct.flush(); // nothing to send: no error
  });

  it('forgetLater takes a mark back with the next statement', async () => {
    const entry = fire('back@acme.example');
    const marked = fires().recordSentAhead(entry);
    await fires().flush();
    expect(await marked).toBeDefined();
    await fires().forgetLater(entry.id);
    expect(await rowOf(entry.id)).toBeDefined();
    await fires().flush();
    expect(await rowOf(entry.id)).toBeUndefined();
  });
});

describe('Outcomes.remember, later', () => {
  const outcome = {
    executionId: 'x-9',
    outcome: { type: 'scheduler', schedulerUrl: 'https://x', schedulingLinkId: 'l' },
    firedAt: NOW.toISOString(),
    answersKey: 'k',
  } as never;
  const count = async () => (await base.get<{ n: number }>('SELECT count(*) AS n FROM schedctl_outcomes'))!.n;

  it('rides with the next statement when asked to, and is written at once otherwise', async () => {
    const outcomes = new Outcomes(riding, () => NOW);
    await outcomes.remember(S, TRIGGER, 'a@acme.example', outcome, [], { later: true });
    expect(await count()).toBe(0);
    await (
      await riding()
    ).flush!();
    expect(await count()).toBe(1);
    await outcomes.remember(S, TRIGGER, 'b@acme.example', outcome);
    expect(await count()).toBe(2);
  });
});
