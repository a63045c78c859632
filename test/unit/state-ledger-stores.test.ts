/**
 * The fires and event-alias stores and the documents' import on their own, against SQLite in
 * the process: what each operation writes, what it leaves alone, and what it prunes. (The
 * attempts, meetings and outcomes stores: state-ledger-queries.test.ts.)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { EventAliases } from '../../src/state/events.js';
import { Fires, type FireEntry } from '../../src/state/fires.js';
import { openState, type State } from '../../src/state/index.js';
import { countDocuments, countTables, importDocuments } from '../../src/state/sql/documents.js';
import type { Sql } from '../../src/state/sql/types.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const DAY = 86_400_000;
const S = 'https://api.example.com#key:0123456789abcdef';
const OTHER = 'https://api.example.com#ws:acme corp';
const EVENT = '11111111-1111-4111-8111-111111111111';
const EVENT2 = '22222222-2222-4222-8222-222222222222';

let state: State;
let clock: Date;
let sql: Sql;
/** Statements that changed the database, counted through the stores' handle. */
let runs: string[];
beforeEach(async () => {
  clock = NOW;
  state = openState(mkdtempSync(join(tmpdir(), 'ledger-stores-')), { now: () => clock });
  const inner = await (await state.backend()).sql();
  runs = [];
  sql = {
    where: inner.where,
    all: (text, params) => inner.all(text, params),
    run: (text, params) => (runs.push(text), inner.run(text, params)),
    step: (statements) => (runs.push(...statements.map(([text]) => text)), inner.step(statements)),
    transaction: (work) => inner.transaction(work),
  };
});

const fires = () =>
  new Fires(
    async () => sql,
    () => clock,
  );
const fireRows = async () =>
  (
    await sql.all<{ id: string; workspace: string; state: string }>(
      'SELECT id, workspace, state FROM schedctl_fires ORDER BY seq',
    )
  ).map((r) => `${r.id} ${r.workspace} ${r.state}`);
const newFire = (email = 'lead@acme.example', triggerId = 't1') => ({
  scope: S,
  triggerId,
  personEmail: email,
  answersKey: 'k',
});

describe('Fires', () => {
  it('prepares a fire as `prepared`, marks it sent, answers it with its run', async () => {
    const f = fires();
    const fire = await f.prepare(newFire());
    expect(fire).toMatchObject({ scope: S, state: 'prepared', preparedAt: NOW.toISOString() });
    expect(await fireRows()).toEqual([`${fire.id} ${S} prepared`]);
    clock = new Date(NOW.getTime() + 1000);
    await f.markSent(fire.id);
    expect(await f.unanswered(S, 'LEAD@acme.example', 't1')).toEqual([
      expect.objectContaining({ id: fire.id, state: 'sent', sentAt: clock.toISOString() }),
    ]);
    await f.answered(fire.id, 'x1', 'scheduler');
    expect(await f.byExecution(S, 'x1')).toMatchObject({ id: fire.id, state: 'answered', outcomeType: 'scheduler' });
    expect(await f.unanswered(S, 'lead@acme.example')).toEqual([]);
  });

  it('writes nothing for a new entry; records it whole as sent (one step, old fires pruned) before it leaves', async () => {
    const f = fires();
    clock = new Date(NOW.getTime() - 91 * DAY);
    const old = await f.prepare(newFire('old@acme.example'));
    clock = NOW;
    const entry = f.newEntry(newFire());
    expect(entry).toMatchObject({ scope: S, state: 'prepared', preparedAt: NOW.toISOString() });
    expect(await fireRows()).toEqual([`${old.id} ${S} prepared`]);
    const sent = await f.recordSent(entry);
    expect(sent).toMatchObject({ id: entry.id, state: 'sent', sentAt: NOW.toISOString() });
    expect(await fireRows()).toEqual([`${entry.id} ${S} sent`]);
    expect(await f.unanswered(S, 'lead@acme.example', 't1')).toEqual([expect.objectContaining({ id: entry.id })]);
  });

  it('prunes fires prepared over 90 days ago when it prepares one, and keeps younger ones', async () => {
    const f = fires();
    clock = new Date(NOW.getTime() - 91 * DAY);
    const old = await f.prepare(newFire('old@acme.example'));
    clock = new Date(NOW.getTime() - 89 * DAY);
    const young = await f.prepare(newFire('young@acme.example'));
    clock = NOW;
    const fresh = await f.prepare(newFire('fresh@acme.example'));
    expect(await fireRows()).toEqual([`${young.id} ${S} prepared`, `${fresh.id} ${S} prepared`]);
    expect(old.id).not.toBe(young.id);
  });

  it('lists the unanswered fires of a lead, of every trigger unless one is named', async () => {
    const f = fires();
    const a = await f.prepare(newFire('lead@acme.example', 't1'));
    const b = await f.prepare(newFire('lead@acme.example', 't2'));
    const other = await f.prepare(newFire('other@acme.example', 't1'));
    for (const x of [a, b, other]) await f.markSent(x.id);
    expect((await f.unanswered(S, 'lead@acme.example')).map((x) => x.id)).toEqual([a.id, b.id]);
    expect((await f.unanswered(S, 'lead@acme.example', 't2')).map((x) => x.id)).toEqual([b.id]);
  });

  it('answering one drops the earlier sent fires of that lead and trigger only', async () => {
    const f = fires();
    const lost = await f.prepare(newFire('lead@acme.example', 't1'));
    const otherTrigger = await f.prepare(newFire('lead@acme.example', 't2'));
    const now = await f.prepare(newFire('lead@acme.example', 't1'));
    for (const x of [lost, otherTrigger, now]) await f.markSent(x.id);
    await f.answered(now.id, 'x2', 'scheduler');
    expect(await fireRows()).toEqual([`${otherTrigger.id} ${S} sent`, `${now.id} ${S} answered`]);
  });

  it('forgets a fire (and only it); marking or answering a fire not on record does nothing', async () => {
    const f = fires();
    const a = await f.prepare(newFire('a@acme.example'));
    const b = await f.prepare(newFire('b@acme.example'));
    await f.forget(a.id);
    expect(await fireRows()).toEqual([`${b.id} ${S} prepared`]);
    await f.markSent('not-on-record');
    await f.answered('not-on-record', 'x9', 'scheduler');
    expect(await fireRows()).toEqual([`${b.id} ${S} prepared`]);
  });

  it('a legacy scope adopted into a workspace takes its fires along, and no other', async () => {
    const f = fires();
    const legacy = await f.prepare({ ...newFire(), scope: 'prod@https://api.example.com' });
    const mine = await f.prepare(newFire());
    await state.adopt('prod@https://api.example.com', OTHER);
    expect(await fireRows()).toEqual([`${legacy.id} ${OTHER} prepared`, `${mine.id} ${S} prepared`]);
  });
});

describe('EventAliases', () => {
  const aliases = () =>
    new EventAliases(
      async () => sql,
      () => clock,
    );

  it('learns an alias once, writes again only when it names another event, and reads only the names asked', async () => {
    const e = aliases();
    // One statement each, no read first: what is already known changes no row.
    expect(await e.learn(S, 'Intro-Call', EVENT.toUpperCase())).toBe(true);
    expect(await e.learn(S, 'intro-call', EVENT)).toBe(false);
    expect(await e.learn(S, 'intro-call', EVENT2)).toBe(true);
    expect(runs).toHaveLength(3);
    await e.learn(OTHER, 'demo', EVENT);
    expect(await e.of(S, ['INTRO-CALL', 'intro-call', 'demo'])).toEqual({ 'intro-call': EVENT2 });
    expect(await e.of(S, [])).toEqual({});
    // An id is not its own alias: no statement at all.
    expect(await e.learn(S, EVENT, EVENT)).toBe(false);
    expect(runs).toHaveLength(4);
  });
});

describe('documents: counted and moved in', () => {
  it('counts an empty set of documents as nothing, and moves nothing from it', async () => {
    expect(countDocuments({})).toEqual({ journal: 0, meetings: 0, outcomes: 0, fires: 0, events: 0 });
    const written = await sql.transaction((tx) => importDocuments(tx, {}, false));
    expect(written).toEqual({ journal: 0, meetings: 0, outcomes: 0, fires: 0, events: 0 });
    expect(await countTables(sql)).toEqual(written);
  });

  it("finds an outcome's workspace from its key when the record has none, a workspace with a space included", async () => {
    const outcome = (email: string, triggerId: string) => ({
      executionId: `x-${email}`,
      outcome: { type: 'scheduler', schedulerUrl: 'https://x', schedulingLinkId: EVENT2 },
      firedAt: NOW.toISOString(),
      email,
      triggerId,
      answersKey: 'k',
    });
    const docs = {
      outcomes: {
        outcomes: {
          [`${OTHER} t1 a@acme.example`]: outcome('A@acme.example', 't1'),
          // A key that does not end as the record says (an older writer): its first word is the scope.
          [`${S} t9 b@acme.example`]: outcome('b@acme.example', 't1'),
        },
      },
    } as Parameters<typeof importDocuments>[1];
    await sql.transaction((tx) => importDocuments(tx, docs, false));
    expect((await state.outcomes.get(OTHER, 't1', 'a@acme.example'))?.executionId).toBe('x-A@acme.example');
    expect((await state.outcomes.get(S, 't1', 'b@acme.example'))?.executionId).toBe('x-b@acme.example');
  });

  it('moves the aliases keyed `<workspace> <alias>`, and none without a workspace', async () => {
    const docs = { events: { aliases: { [`${OTHER} demo`]: EVENT, nospace: EVENT, ' lonely': EVENT } } };
    expect(await sql.transaction((tx) => importDocuments(tx, docs, false))).toMatchObject({ events: 1 });
    expect(await state.events.of(OTHER, ['demo', 'lonely'])).toEqual({ demo: EVENT });
    expect(await sql.all('SELECT workspace, alias FROM schedctl_event_aliases')).toEqual([
      { workspace: OTHER, alias: 'demo' },
    ]);
  });

  it('with keep, leaves a record already there as it is and counts only what it wrote', async () => {
    const fire = (state: FireEntry['state']): FireEntry => ({
      id: 'f1',
      scope: S,
      triggerId: 't1',
      personEmail: 'lead@acme.example',
      answersKey: 'k',
      preparedAt: NOW.toISOString(),
      state,
    });
    expect(
      await sql.transaction((tx) => importDocuments(tx, { fires: { fires: [fire('answered')] } }, true)),
    ).toMatchObject({
      fires: 1,
    });
    expect(
      await sql.transaction((tx) => importDocuments(tx, { fires: { fires: [fire('sent')] } }, true)),
    ).toMatchObject({
      fires: 0,
    });
    expect(await fireRows()).toEqual([`f1 ${S} answered`]);
    // Without keep, the record is replaced.
    await sql.transaction((tx) => importDocuments(tx, { fires: { fires: [fire('sent')] } }, false));
    expect(await fireRows()).toEqual([`f1 ${S} sent`]);
  });
});
