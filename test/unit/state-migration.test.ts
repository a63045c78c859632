/**
 * The ledger's move from documents into tables, nothing lost: the local JSON files of the last
 * schedctl into SQLite, and a team database's schema 2 into schema 3 (with a second machine
 * starting at the same moment). Every kind of record is counted before and after.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import { countDocuments, countTables, type LedgerDocuments } from '../../src/state/sql/documents.js';
import { usePostgres } from '../helpers/postgres.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const WS = 'https://api.example.com#key:0123456789abcdef';
const LEGACY = 'prod@https://api.example.com';

/** A ledger as the last schedctl wrote it: every kind of record, legacy scopes and keys included. */
function documents(n: number): LedgerDocuments {
  const entries = [];
  const meetings: Record<string, never> = {};
  const fires = [];
  const outcomes: Record<string, unknown> = {};
  const aliases: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const scope = i % 5 === 0 ? LEGACY : WS;
    const email = `Lead${i}@Example.com`;
    const date = new Date(NOW.getTime() + (i - n / 2) * 3_600_000).toISOString();
    entries.push({
      id: `a${i}`,
      scope,
      event: 'intro-call',
      reservationId: `r${i}`,
      workflowExecutionId: i % 2 ? `x${i}` : null,
      personEmail: email,
      startTime: date,
      attemptedAt: NOW.toISOString(),
      outcome: i % 3 === 0 ? 'unknown' : 'booked',
      ...(i % 3 === 0 ? {} : { meetingId: `m${i}` }),
      sentAt: NOW.toISOString(),
    });
    (meetings as Record<string, unknown>)[`${scope} m${i}`] = {
      id: `m${i}`,
      eventId: '11111111-1111-4111-8111-111111111111',
      title: 'Intro',
      status: 'scheduled',
      date,
      duration: 30,
      meetingLink: null,
      conferencingType: 'zoom',
      location: null,
      personEmail: email,
      additionalAttendees: [],
      cancellationReason: null,
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
      scope,
      source: 'booked',
      recordedAt: NOW.toISOString(),
      event: 'intro-call',
      history: [],
    };
    fires.push({
      id: `f${i}`,
      scope,
      triggerId: 't1',
      personEmail: email,
      answersKey: 'k',
      preparedAt: NOW.toISOString(),
      state: 'answered',
      executionId: `x${i}`,
      outcomeType: 'scheduler',
    });
    // One outcome in two from before `scope` was stored: its key says it.
    outcomes[`${scope} t1 ${email.toLowerCase()}`] = {
      executionId: `x${i}`,
      outcome: {
        type: 'scheduler',
        schedulerUrl: 'https://x',
        schedulingLinkId: '22222222-2222-4222-8222-222222222222',
      },
      firedAt: NOW.toISOString(),
      email,
      triggerId: 't1',
      answersKey: 'k',
      ...(i % 2 ? { scope } : {}),
    };
    aliases[`${scope} link-${i}`] = '11111111-1111-4111-8111-111111111111';
  }
  return {
    journal: { entries } as LedgerDocuments['journal'],
    meetings: { meetings } as LedgerDocuments['meetings'],
    fires: { fires } as LedgerDocuments['fires'],
    outcomes: { outcomes } as LedgerDocuments['outcomes'],
    events: { aliases },
  };
}

const FILE_OF = {
  journal: 'journal.json',
  meetings: 'meetings.json',
  outcomes: 'outcomes.json',
  fires: 'fires.json',
  events: 'events.json',
};

describe('the local documents move into SQLite', () => {
  it('moves every record once, puts the files aside and says where, and answers the same questions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrate-local-'));
    const docs = documents(40);
    for (const [kind, file] of Object.entries(FILE_OF))
      writeFileSync(join(dir, file), JSON.stringify(docs[kind as keyof LedgerDocuments]));
    const said: string[] = [];
    const state = openState(dir, { now: () => NOW, warn: (line) => said.push(line) });
    // A write opens the file: the move happens then, in one transaction.
    await state.journal.remove('none');
    const sql = await (await state.backend()).sql();
    expect(await countTables(sql)).toEqual(countDocuments(docs));
    expect(said).toEqual([
      expect.stringMatching(
        /^note: the ledger moved into .*ledger\.db; its former files \(journal\.json, meetings\.json, outcomes\.json, fires\.json, events\.json\) are kept in .*ledger-documents-before-sqlite$/,
      ),
    ]);
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toEqual([]);
    expect(readdirSync(join(dir, 'ledger-documents-before-sqlite')).sort()).toEqual(Object.values(FILE_OF).sort());
    // The same answers as the documents gave: a lead's attempts (case-folded), legacy outcomes by their key.
    expect((await state.journal.ofLead(WS, 'lead1@example.com')).map((e) => e.id)).toEqual(['a1']);
    expect((await state.outcomes.get(LEGACY, 't1', 'LEAD0@example.com'))?.executionId).toBe('x0');
    expect(await state.events.of(WS, ['link-1'])).toEqual({ 'link-1': '11111111-1111-4111-8111-111111111111' });
    expect((await state.meetings.get(LEGACY, 'm5'))?.personEmail).toBe('Lead5@Example.com');
    await state.close();

    // A second run finds the tables current, moves nothing and says nothing.
    const again = openState(dir, { now: () => NOW, warn: (line) => said.push(line) });
    await again.journal.remove('none');
    expect(await countTables(await (await again.backend()).sql())).toEqual(countDocuments(docs));
    expect(said).toHaveLength(1);
    await again.close();
  });

  it('reads the documents in place before the first write, and leaves a damaged one untouched, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrate-local-'));
    writeFileSync(join(dir, 'journal.json'), JSON.stringify(documents(3).journal));
    writeFileSync(join(dir, 'meetings.json'), '{"meetings": {');
    const state = openState(dir, { now: () => NOW });
    const error = await state.journal.add(documents(1).journal!.entries[0]!).catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      `${join(dir, 'meetings.json')} is not a readable schedctl meetings file`,
    );
    expect(existsSync(join(dir, 'ledger.db'))).toBe(false);
    expect(existsSync(join(dir, 'journal.json'))).toBe(true);
  });
});

describe('a team database of schema 2 moves into schema 3', () => {
  const fx = usePostgres();

  it('under the migration lock, once, with every record, while a second machine starts at the same moment', async () => {
    const url = await fx.pg.createDatabase('schema2');
    const docs = documents(30);
    // Schema 2 as the last schedctl made it: its documents table, meta row and the other tables.
    await fx.pg.psql(
      [
        'CREATE TABLE schedctl_meta (key text PRIMARY KEY, value text NOT NULL)',
        `INSERT INTO schedctl_meta VALUES ('schema_version', '2')`,
        'CREATE TABLE schedctl_documents (kind text PRIMARY KEY, body jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())',
        'CREATE TABLE schedctl_locks (name text PRIMARY KEY, lock_key bigint NOT NULL, backend_pid integer NOT NULL, owner jsonb NOT NULL)',
        'CREATE TABLE schedctl_rate_budgets (budget_id text PRIMARY KEY, state jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())',
        'CREATE TABLE schedctl_run_records (log_key text NOT NULL, seq bigserial NOT NULL, record jsonb NOT NULL, at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (log_key, seq))',
        // Made by schedctl's own role, as the last schedctl did.
        ...['meta', 'documents', 'locks', 'rate_budgets', 'run_records'].map(
          (t) => `ALTER TABLE schedctl_${t} OWNER TO schedctl_test`,
        ),
        ...Object.entries(FILE_OF).map(
          ([kind, file]) =>
            `INSERT INTO schedctl_documents (kind, body) VALUES ('${file}', '${JSON.stringify(docs[kind as keyof LedgerDocuments]).replace(/'/g, "''")}')`,
        ),
      ].join(';'),
      'schema2',
    );
    const machine = () =>
      openState(mkdtempSync(join(tmpdir(), 'migrate-team-')), { now: () => NOW, stateUrl: () => url });
    const [a, b] = [machine(), machine()];
    const [ca, cb] = await Promise.all([
      a.backend().then(async (x) => countTables(await x.sql())),
      b.backend().then(async (x) => countTables(await x.sql())),
    ]);
    expect(ca).toEqual(countDocuments(docs));
    expect(cb).toEqual(countDocuments(docs));
    expect(await fx.pg.psql(`SELECT value FROM schedctl_meta WHERE key = 'schema_version'`, 'schema2')).toBe('3');
    // The documents' table is kept, renamed; nothing was moved twice.
    expect(await fx.pg.psql('SELECT count(*) FROM schedctl_documents_schema2', 'schema2')).toBe('5');
    expect((await a.journal.ofLead(WS, 'LEAD1@example.com')).map((e) => e.id)).toEqual(['a1']);
    await Promise.all([a.close(), b.close()]);
  });
});
