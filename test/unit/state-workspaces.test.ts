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
import { leadRecord } from '../../src/state/ledger.js';
import { APPLICATION_ID } from '../../src/state/sqlite/migrate.js';
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
  it('a ledger of schema 1 moves to schema 2 with its records, and its keys are recorded from then on', async () => {
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
    expect(after.prepare('PRAGMA user_version').get()).toEqual({ user_version: 2 });
    after.close();
  });
});
