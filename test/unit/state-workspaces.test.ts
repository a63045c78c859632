/**
 * Workspaces on record (state/workspaces.ts) and the records from before workspaces
 * (state/legacy-records.ts), on a real SQLite ledger: a join moves keys and records together;
 * legacy records go to their profiles' keys once, for every profile at the same time; what no
 * profile can take is every workspace's at that URL.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src/state/identity.js';
import { openState } from '../../src/state/index.js';
import { attributeLegacyOnce, legacyMark } from '../../src/state/legacy-records.js';
import { isUnattributed, leadRecord } from '../../src/state/ledger.js';
import type { Sql } from '../../src/state/sql/types.js';
import { JOIN_LOCK, moveRecords, Workspaces } from '../../src/state/workspaces.js';
import { APPLICATION_ID, SQLITE_SCHEMA_VERSION } from '../../src/state/sqlite/migrate.js';
import { ledgerTables } from '../../src/state/sql/tables.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const LATER = '2031-03-04T15:00:00.000Z';
const URL = 'https://api.example.com';
const KEY1 = 'sk_test_one_0123456789';
const KEY2 = 'sk_test_two_0123456789';
const [F1, F2] = [keyFingerprint(KEY1), keyFingerprint(KEY2)];

const fresh = () => openState(mkdtempSync(join(tmpdir(), 'workspaces-')), { now: () => NOW });

async function attempt(state: ReturnType<typeof openState>, scope: string, email: string) {
  const a = await state.journal.add({
    scope,
    event: 'intro-call',
    reservationId: `r-${scope}-${email}`,
    workflowExecutionId: null,
    personEmail: email,
    startTime: LATER,
    outcome: 'unknown',
  });
  await state.journal.markSent(a.id);
  return a.id;
}

describe('joins', () => {
  it("a name merges the key's former workspace, keys and records together; the key then resolves there", async () => {
    const state = fresh();
    const first = await state.workspaces.join({ url: URL, fingerprint: F1 });
    expect(first).toEqual({ workspace: `${URL}#key:${F1}`, how: 'new', merged: [] });
    await attempt(state, first.workspace, 'ada@acme.com');
    const named = await state.workspaces.join({ url: URL, fingerprint: F1, name: 'Acme' });
    expect(named).toEqual({ workspace: `${URL}#ws:acme`, how: 'name', merged: [first.workspace] });
    expect((await leadRecord(state, named.workspace, 'ada@acme.com', NOW)).unknown).toHaveLength(1);
    expect(await state.journal.ofLead(first.workspace, 'ada@acme.com')).toEqual([]);
    expect(await state.workspaces.lookup(URL, F1)).toBe(named.workspace);
    // Unnamed again (another profile of the key): the record decides.
    expect(await state.workspaces.join({ url: URL, fingerprint: F1 })).toEqual({
      workspace: named.workspace,
      how: 'recorded',
      merged: [],
    });
    expect(await state.workspaces.leadCount(named.workspace)).toBe(1);
    expect(await state.workspaces.keys(named.workspace)).toEqual([
      { fingerprint: F1, names: ['acme'], addedAt: NOW.toISOString() },
    ]);
  });

  it("a rotated key joins the predecessor's workspace; --new-workspace is refused for a key on record", async () => {
    const state = fresh();
    const old = await state.workspaces.join({ url: URL, fingerprint: F1 });
    await attempt(state, old.workspace, 'ada@acme.com');
    const rotated = await state.workspaces.join({ url: URL, fingerprint: F2, join: old.workspace });
    expect(rotated).toEqual({ workspace: old.workspace, how: 'rotation', merged: [] });
    expect((await state.workspaces.keys(old.workspace)).map((k) => k.fingerprint).sort()).toEqual([F1, F2].sort());
    await expect(state.workspaces.join({ url: URL, fingerprint: F2, fresh: true })).rejects.toThrow(
      `the key already belongs to workspace ${old.workspace}`,
    );
    expect(await state.workspaces.leadCount(`${URL}#key:${F2}`)).toBe(0);
  });
});

describe('records from before workspaces', () => {
  it("go once to their profiles' keys, all profiles at the same time; the rest is every workspace's at that URL", async () => {
    const state = fresh();
    await attempt(state, `p1@${URL}`, 'one@acme.com');
    await attempt(state, `p2@${URL}/`, 'two@acme.com');
    await attempt(state, `gone@${URL}/`, 'three@acme.com');
    const profiles = {
      p1: { baseUrl: URL, apiKey: KEY1 },
      p2: { baseUrl: `${URL}/`, apiKey: KEY1 },
      named: { baseUrl: URL, apiKey: KEY2, workspace: 'Acme' },
    };
    const done = await attributeLegacyOnce(state.workspaces, state.dir, profiles, NOW);
    const ws = `${URL}#key:${F1}`;
    expect(done).toEqual([
      { scope: `gone@${URL}/`, workspace: `${URL}#unattributed`, profile: undefined },
      { scope: `p1@${URL}`, workspace: ws, profile: 'p1' },
      { scope: `p2@${URL}/`, workspace: ws, profile: 'p2' },
    ]);
    expect(await state.workspaces.lookup(URL, F2)).toBe(`${URL}#ws:acme`);
    const seen = async (email: string, scope = ws) => (await leadRecord(state, scope, email, NOW)).unknown.length;
    expect(await seen('one@acme.com')).toBe(1);
    expect(await seen('two@acme.com')).toBe(1);
    // Unattributed: seen by every workspace at the URL, never by another URL's.
    expect(await seen('three@acme.com')).toBe(1);
    expect(await seen('three@acme.com', `${URL}#ws:acme`)).toBe(1);
    expect(await seen('three@acme.com', 'https://other.example.com#key:0000000000000000')).toBe(0);
    expect(await state.workspaces.marked(legacyMark(state.dir))).toBe(true);
    // Once: a record written under a legacy scope later stays where it is.
    await attempt(state, `p1@${URL}`, 'late@acme.com');
    expect(await attributeLegacyOnce(state.workspaces, state.dir, profiles, NOW)).toEqual([]);
    expect(await seen('late@acme.com')).toBe(0);
  });
});

describe('the SQLite schema', () => {
  it('a ledger of schema 1 moves to the current schema with its records, and its keys are recorded from then on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'workspaces-v1-'));
    const db = new DatabaseSync(join(dir, 'ledger.db'));
    for (const sql of ledgerTables('integer PRIMARY KEY AUTOINCREMENT', 'integer')) db.exec(sql);
    db.exec(
      `INSERT INTO schedctl_meetings (workspace, id, lead, start_ms, over_ms, status, event, event_id, body)
       VALUES ('${URL}#key:${F1}', 'm1', 'ada@acme.com', 0, ${Date.parse(LATER)}, 'scheduled', 'e', 'e', '{}')`,
    );
    db.exec(`PRAGMA application_id = ${APPLICATION_ID}; PRAGMA user_version = 1`);
    db.close();
    const state = openState(dir, { now: () => NOW });
    expect(await state.workspaces.join({ url: URL, fingerprint: F1 })).toMatchObject({ how: 'new' });
    expect(await state.workspaces.leadCount(`${URL}#key:${F1}`)).toBe(1);
    await state.close();
    const after = new DatabaseSync(join(dir, 'ledger.db'));
    expect(after.prepare('PRAGMA user_version').get()).toEqual({ user_version: SQLITE_SCHEMA_VERSION });
    // Every later migration ran once, on top of the first: its tables are there.
    expect(
      after
        .prepare(
          "SELECT count(*) AS n FROM sqlite_master WHERE name IN ('schedctl_workspace_keys', 'schedctl_run_records')",
        )
        .get(),
    ).toEqual({ n: 2 });
    after.close();
  });
});

/** The state's own database handle, with every statement and transaction it is given noted. */
async function watched(state: ReturnType<typeof openState>) {
  const sql = await (await state.backend()).sql();
  const seen = { runs: [] as string[], transactions: 0 };
  const wrap = (inner: Sql): Sql => ({
    where: inner.where,
    all: (text, params) => inner.all(text, params),
    run: (text, params) => {
      seen.runs.push(text);
      return inner.run(text, params);
    },
    step: (statements) => {
      seen.runs.push(...statements.map(([text]) => text));
      return inner.step(statements);
    },
    transaction: (work) => {
      seen.transactions++;
      return inner.transaction((tx) => work(wrap(tx)));
    },
  });
  return { sql, seen, wrapped: wrap(sql) };
}

const meetingOf = (id: string, email: string, title = 'Intro') => ({
  id,
  eventId: '7a3c9f10-1b2d-4e5f-8a9b-0c1d2e3f4a5b',
  title,
  status: 'scheduled',
  date: LATER,
  duration: 30,
  meetingLink: null,
  conferencingType: 'zoom',
  location: null,
  personEmail: email,
  additionalAttendees: [],
  cancellationReason: null,
  createdAt: NOW.toISOString(),
  updatedAt: NOW.toISOString(),
});

describe('the store', () => {
  it('a key not on record looks up as undefined', async () => {
    expect(await fresh().workspaces.lookup(URL, F1)).toBeUndefined();
  });

  it('a join that writes takes turns on the lock row; one that writes nothing takes no lock and keeps the row as it was', async () => {
    const state = fresh();
    const { seen, wrapped } = await watched(state);
    let clock = NOW;
    const ws = new Workspaces(
      async () => wrapped,
      () => clock,
    );
    await ws.join({ url: URL, fingerprint: F1 });
    expect(seen.runs.filter((r) => r.includes(`mark = '${JOIN_LOCK}'`))).toHaveLength(1);
    seen.runs.length = 0;
    clock = new Date(NOW.getTime() + 60_000);
    expect(await ws.join({ url: URL, fingerprint: F1 })).toMatchObject({ how: 'recorded' });
    expect(seen.runs).toEqual([]);
    expect((await ws.keys(`${URL}#key:${F1}`))[0]!.addedAt).toBe(NOW.toISOString());
  });

  it('answers a join that would write nothing from one read; one that would write is left to join', async () => {
    const state = fresh();
    // Not on record: the join has the key to write.
    expect(await state.workspaces.recorded({ url: URL, fingerprint: F1 })).toBeUndefined();
    const first = await state.workspaces.join({ url: URL, fingerprint: F1, name: 'Acme' });
    expect(await state.workspaces.recorded({ url: URL, fingerprint: F1 })).toEqual({
      workspace: first.workspace,
      how: 'recorded',
      merged: [],
    });
    expect(await state.workspaces.recorded({ url: URL, fingerprint: F1, name: 'acme' })).toEqual({
      workspace: first.workspace,
      how: 'recorded',
      merged: [],
    });
    // A new name for the key writes (joins the name), and a key refused a name is a refusal: both left to join.
    expect(await state.workspaces.recorded({ url: URL, fingerprint: F1, name: 'Other' })).toBeUndefined();
    expect(await state.workspaces.recorded({ url: URL, fingerprint: F2, name: 'acme' })).toBeUndefined();
  });

  it('a merge moves every key of the former workspace, and a key keeps each name it joined by', async () => {
    const state = fresh();
    const first = await state.workspaces.join({ url: URL, fingerprint: F1 });
    await state.workspaces.join({ url: URL, fingerprint: F2, join: first.workspace });
    await state.workspaces.join({ url: URL, fingerprint: F1, name: 'acme' });
    expect(await state.workspaces.lookup(URL, F2)).toBe(`${URL}#ws:acme`);
    await state.workspaces.join({ url: URL, fingerprint: F2, name: 'beta' });
    await state.workspaces.join({ url: URL, fingerprint: F2, name: 'acme' });
    const keys = await state.workspaces.keys(`${URL}#ws:beta`);
    expect(keys.map((k) => [k.fingerprint, k.names]).sort()).toEqual(
      [
        [F1, ['acme']],
        [F2, ['beta', 'acme']],
      ].sort(),
    );
  });

  it('a one-time step runs once; once marked, it is one read and no transaction', async () => {
    const state = fresh();
    const { seen, wrapped } = await watched(state);
    const ws = new Workspaces(
      async () => wrapped,
      () => NOW,
    );
    let runs = 0;
    await ws.once('step', async () => void runs++);
    await ws.once('step', async () => void runs++);
    expect(runs).toBe(1);
    expect(seen.transactions).toBe(1);
    expect(await ws.marked('step')).toBe(true);
    expect(await ws.marked('other')).toBe(false);
    // The inner check: a step marked while this one waited for the transaction does not run again.
    const tx = await (await state.backend()).sql();
    let inner = 0;
    await tx.transaction(async (t) => {
      await t.run('INSERT INTO schedctl_ledger_marks (mark, at_ms) VALUES (?, ?)', ['raced', 0]);
    });
    const racing = new Workspaces(
      async () => ({ ...wrapped, get: async () => undefined, transaction: wrapped.transaction }),
      () => NOW,
    );
    await racing.once('raced', async () => void inner++);
    expect(inner).toBe(0);
  });
});

describe('moveRecords', () => {
  it('moves every kind of record; where both hold one, the one already there wins and the other is dropped', async () => {
    const state = fresh();
    const [from, to] = ['p@https://x', `${URL}#key:${F1}`];
    await attempt(state, from, 'ada@acme.com');
    await state.fires.prepare({ scope: from, triggerId: 't1', personEmail: 'ada@acme.com', answersKey: 'k' });
    for (const [scope, title] of [
      [from, 'old'],
      [to, 'kept'],
    ] as const) {
      await state.meetings.record({
        scope,
        meeting: meetingOf('m1', 'ada@acme.com', title),
        source: 'booked',
        event: 'e',
      });
      await state.outcomes.remember(scope, 't1', 'ada@acme.com', {
        executionId: `x-${title}`,
        outcome: { type: 'scheduler', schedulerUrl: 'u', schedulingLinkId: 'l' },
        firedAt: NOW.toISOString(),
        answersKey: 'k',
      });
      await state.events.learn(
        scope,
        'demo',
        title === 'old' ? '11111111-1111-4111-8111-111111111111' : '22222222-2222-4222-8222-222222222222',
      );
    }
    await state.meetings.record({
      scope: from,
      meeting: meetingOf('m2', 'bob@acme.com'),
      source: 'booked',
      event: 'e',
    });
    await state.events.learn(from, 'intro', '33333333-3333-4333-8333-333333333333');
    const sql = await (await state.backend()).sql();
    await sql.transaction((tx) => moveRecords(tx, to, to));
    await sql.transaction((tx) => moveRecords(tx, from, to));
    const count = async (table: string, scope: string) =>
      Number((await sql.all<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE workspace = ?`, [scope]))[0]!.n);
    for (const table of [
      'schedctl_attempts',
      'schedctl_fires',
      'schedctl_meetings',
      'schedctl_outcomes',
      'schedctl_event_aliases',
    ])
      expect(await count(table, from), table).toBe(0);
    expect(await count('schedctl_attempts', to)).toBe(1);
    expect(await count('schedctl_fires', to)).toBe(1);
    expect((await state.meetings.list(to)).map((m) => [m.id, m.title])).toEqual([
      ['m1', 'kept'],
      ['m2', 'Intro'],
    ]);
    expect((await state.outcomes.get(to, 't1', 'ada@acme.com'))?.executionId).toBe('x-kept');
    expect(await state.events.of(to, ['demo', 'intro'])).toEqual({
      demo: '22222222-2222-4222-8222-222222222222',
      intro: '33333333-3333-4333-8333-333333333333',
    });
  });
});

describe('attribution, further', () => {
  it("marks per config directory; moves records under a key's former ids; a name taken by a later profile merges an earlier one", async () => {
    expect(legacyMark('/home/ana/.config/schedctl')).toBe('legacy-records:/home/ana/.config/schedctl');
    const state = fresh();
    // The named profile first: the plain one's key is then on record in the named workspace, and
    // records under the plain key's own id (an older schedctl's) must still come along.
    await attempt(state, `${URL}#key:${F1}`, 'own@acme.com');
    await attempt(state, `${URL}#ws:Acme`, 'cased@acme.com');
    await attempt(state, `plain@${URL}`, 'plain@acme.com');
    await attempt(state, `plain@https://elsewhere.example.com`, 'moved@acme.com');
    await attempt(state, `constructor@${URL}`, 'proto@acme.com');
    // A scope with no profile name in it at all: no profile's, and no URL to read but itself.
    await attempt(state, 'stray', 'stray@acme.com');
    const done = await attributeLegacyOnce(
      state.workspaces,
      state.dir,
      { named: { baseUrl: URL, apiKey: KEY1, workspace: 'Acme' }, plain: { baseUrl: URL, apiKey: KEY1 } },
      NOW,
    );
    const acme = `${URL}#ws:acme`;
    expect(done).toEqual([
      { scope: `constructor@${URL}`, workspace: `${URL}#unattributed`, profile: undefined },
      { scope: `plain@${URL}`, workspace: acme, profile: 'plain' },
      {
        scope: 'plain@https://elsewhere.example.com',
        workspace: 'https://elsewhere.example.com#unattributed',
        profile: undefined,
      },
      { scope: 'stray', workspace: 'stray#unattributed', profile: undefined },
    ]);
    for (const email of ['own@acme.com', 'cased@acme.com', 'plain@acme.com'])
      expect((await state.journal.ofLead(acme, email)).length, email).toBe(1);
  });
});

describe('the lead record and the unattributed scope', () => {
  it('asked of the unattributed scope itself, counts each record once; isUnattributed reads the scope', async () => {
    const state = fresh();
    const scope = `${URL}#unattributed`;
    await attempt(state, scope, 'ada@acme.com');
    expect((await leadRecord(state, scope, 'ada@acme.com', NOW)).unknown).toHaveLength(1);
    expect(isUnattributed(scope)).toBe(true);
    expect(isUnattributed(`${URL}#key:${F1}`)).toBe(false);
    expect(isUnattributed(undefined)).toBe(false);
  });
});
