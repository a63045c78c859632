/**
 * The lead's reads across workspaces and triggers (Outcomes.ofLead, Fires.ofLead: a lead's
 * timeline, `meetings history`) and the fires' writes the other store tests leave open, against
 * SQLite in the process. The same reads on PostgreSQL: the backend contract suite, which the
 * mutation run leaves out (it starts PostgreSQL).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Fires, putFire, type FireEntry } from '../../src/state/fires.js';
import { answersKey, openState, type State } from '../../src/state/index.js';
import { Outcomes } from '../../src/state/outcomes.js';
import type { Sql, SqlSource } from '../../src/state/sql/types.js';
import { writeTogether } from '../../src/state/together.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const DAY = 86_400_000;
const S1 = 'https://api.example.com#key:0123456789abcdef';
const S2 = 'https://api.example.com#ws:acme corp';
const S3 = 'https://api.example.com#ws:elsewhere';
const LEAD = 'lead@acme.example';

let state: State;
let clock: Date;
let sql: Sql;
/** The ledger, counting how often a store asks for it (each ask is a statement, or a round trip on a team state). */
let asked: number;
let ledger: SqlSource;
beforeEach(async () => {
  clock = NOW;
  state = openState(mkdtempSync(join(tmpdir(), 'lead-reads-')), { now: () => clock });
  sql = await (await state.backend()).sql();
  asked = 0;
  ledger = async () => (asked++, sql);
});
afterEach(() => state.close());

const scheduler = (link: string) => ({ type: 'scheduler', schedulerUrl: `https://x/${link}`, schedulingLinkId: link });
const remember = (scope: string, triggerId: string, email: string, executionId: string) =>
  state.outcomes.remember(scope, triggerId, email, {
    executionId,
    outcome: scheduler(executionId),
    firedAt: NOW.toISOString(),
    answersKey: 'k',
  });
/** What ofLead found, as `workspace trigger run`, in a stable order (the query has no ORDER BY). */
const found = (outcomes: { scope?: string | undefined; triggerId: string; executionId: string }[]) =>
  outcomes.map((o) => `${o.scope} ${o.triggerId} ${o.executionId}`).sort();

describe('Outcomes.ofLead', () => {
  beforeEach(async () => {
    await remember(S1, 't1', LEAD, 'run-1');
    await remember(S1, 't2', LEAD, 'run-2');
    await remember(S2, 't1', LEAD, 'run-3');
    // Not asked for: another workspace, another trigger, another lead.
    await remember(S3, 't1', LEAD, 'run-4');
    await remember(S1, 't3', LEAD, 'run-5');
    await remember(S1, 't1', 'other@acme.example', 'run-6');
  });

  it("finds the lead's outcomes of the triggers asked, in every workspace asked, and no other", async () => {
    const outcomes = new Outcomes(ledger, () => clock);
    expect(found(await outcomes.ofLead([S1, S2], ' Lead@ACME.example', ['t1', 't2']))).toEqual([
      `${S1} t1 run-1`,
      `${S1} t2 run-2`,
      `${S2} t1 run-3`,
    ]);
    // One query, whatever the number of workspaces and triggers.
    expect(asked).toBe(1);
  });

  it('takes one workspace given as a string, each outcome naming the workspace it is in', async () => {
    const outcomes = await state.outcomes.ofLead(S1, LEAD, ['t1', 't3']);
    expect(found(outcomes)).toEqual([`${S1} t1 run-1`, `${S1} t3 run-5`]);
    expect(outcomes.find((o) => o.triggerId === 't1')).toMatchObject({
      email: LEAD,
      answersKey: 'k',
      outcome: scheduler('run-1'),
    });
    expect(await state.outcomes.ofLead(S2, LEAD, ['t2'])).toEqual([]);
  });

  it('asks the ledger nothing for a lead with no trigger on record', async () => {
    const outcomes = new Outcomes(ledger, () => clock);
    expect(await outcomes.ofLead([S1, S2], LEAD, [])).toEqual([]);
    expect(asked).toBe(0);
  });
});

describe('Outcomes', () => {
  it('names the ledger in its path, "the ledger" when not told where it is', () => {
    expect(new Outcomes(ledger, () => clock).path).toBe('the ledger (outcomes)');
    expect(
      new Outcomes(
        ledger,
        () => clock,
        () => '/c/ledger.db',
      ).path,
    ).toBe('/c/ledger.db (outcomes)');
  });

  it('keys an answer JSON cannot write (a function) as null, the way an absent array item is', () => {
    // A value JSON has no form for is written null (as JSON.stringify does in an array), never `{"a":}`.
    expect(answersKey({ a: () => 1 })).toBe(answersKey({ a: null }));
    expect(answersKey({ a: [undefined] })).toBe(answersKey({ a: [null] }));
    expect(answersKey({ a: () => 1 })).not.toBe(answersKey({ a: 'null' }));
  });
});

const newFire = (scope: string, email = LEAD, triggerId = 't1') => ({
  scope,
  triggerId,
  personEmail: email,
  answersKey: 'k',
});
const fireRows = async () =>
  (
    await sql.all<{ id: string; workspace: string; state: string }>(
      'SELECT id, workspace, state FROM schedctl_fires ORDER BY seq',
    )
  ).map((r) => `${r.id} ${r.workspace} ${r.state}`);

describe('Fires.ofLead', () => {
  it('lists every fire of the lead in the workspaces asked, oldest first, whatever its state', async () => {
    const fires = new Fires(ledger, () => clock);
    const a = await fires.prepare(newFire(S1));
    const b = await fires.prepare(newFire(S2, 'LEAD@acme.example', 't2'));
    const c = await fires.recordSent(fires.newEntry(newFire(S1, LEAD, 't3')));
    await fires.answered(c.id, 'run-1', 'scheduler');
    // Not asked for: another workspace, another lead.
    await fires.prepare(newFire(S3));
    await fires.prepare(newFire(S1, 'other@acme.example'));
    asked = 0;
    const listed = await fires.ofLead([S1, S2], ' Lead@Acme.example');
    expect(listed.map((f) => `${f.id} ${f.scope} ${f.state}`)).toEqual([
      `${a.id} ${S1} prepared`,
      `${b.id} ${S2} prepared`,
      `${c.id} ${S1} answered`,
    ]);
    expect(listed[2]).toMatchObject({ executionId: 'run-1', outcomeType: 'scheduler', triggerId: 't3' });
    expect(asked).toBe(1);
  });

  it('takes one workspace given as a string', async () => {
    const fires = new Fires(ledger, () => clock);
    const a = await fires.prepare(newFire(S1));
    await fires.prepare(newFire(S2));
    expect((await fires.ofLead(S1, LEAD)).map((f) => `${f.id} ${f.scope}`)).toEqual([`${a.id} ${S1}`]);
    expect(await fires.ofLead(S3, LEAD)).toEqual([]);
  });
});

describe('Fires, writes', () => {
  // (The same pruning with recordSentIfNewLead: fires-new-lead.test.ts.)
  it('prunes only fires prepared over 90 days ago when it records one sent', async () => {
    const fires = new Fires(ledger, () => clock);
    clock = new Date(NOW.getTime() - 91 * DAY);
    const old = await fires.prepare(newFire(S1, 'old@acme.example'));
    clock = new Date(NOW.getTime() - 89 * DAY);
    const young = await fires.prepare(newFire(S1, 'young@acme.example'));
    clock = NOW;
    const sent = await fires.recordSent(fires.newEntry(newFire(S1)));
    expect(await fireRows()).toEqual([`${young.id} ${S1} prepared`, `${sent.id} ${S1} sent`]);
    expect(old.id).not.toBe(young.id);
  });

  it('putFire replaces the row of its id, moving it to the workspace it names', async () => {
    const fire: FireEntry = { ...newFire(S1), id: 'f-1', preparedAt: NOW.toISOString(), state: 'prepared' };
    expect(await putFire(sql, fire)).toBe(1);
    await putFire(sql, { ...fire, scope: S2, state: 'sent', sentAt: NOW.toISOString() });
    expect(await fireRows()).toEqual([`f-1 ${S2} sent`]);
    // `keep`: a fire already on record stays as it is.
    expect(await putFire(sql, { ...fire, state: 'answered' }, true)).toBe(0);
    expect(await fireRows()).toEqual([`f-1 ${S2} sent`]);
  });

  it('answers a fire moved to another workspace since it was written, where it now is', async () => {
    const fires = new Fires(ledger, () => clock);
    const known = await fires.recordSent(fires.newEntry(newFire(S1)));
    // Attributed to another workspace meanwhile (workspaces.ts): the shared step's write changes nothing.
    await putFire(sql, { ...known, scope: S2 });
    await writeTogether(ledger, fires.answeredWrites(known, 'run-7', 'scheduler'));
    expect(await fireRows()).toEqual([`${known.id} ${S2} answered`]);
    expect(await fires.byExecution(S2, 'run-7')).toMatchObject({ id: known.id, scope: S2, outcomeType: 'scheduler' });
    expect(await fires.byExecution(S1, 'run-7')).toBeUndefined();
  });
});
