/**
 * The parts of the state store the booking core stands on, where a slip would book twice or
 * lose a record: how a damaged file is reported, that nothing is rewritten (or created) when
 * nothing changed, the journal's look-ups, the answers key, workspace scoping of outcomes,
 * waiting for another process's lock, and profiles' default. Real files in a temp dir, an
 * injected clock; everything that calls src/ runs inside a test (an error while collecting a
 * file is not a failed test to Stryker).
 */
import { spawn } from 'node:child_process';
import { whoAmI } from '../../src/state/meetings.js';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Meeting } from '../../src/api/schemas.js';
import { meetingFixture } from '../helpers/meeting.js';
import { UsageError } from '../../src/errors.js';
import { StateFileError } from '../../src/state/errors.js';
import { answersKey, openState, StateLockError, StateWriteError, type State } from '../../src/state/index.js';
import type { NewAttempt } from '../../src/state/journal.js';
import { DEFAULT_LOCK_TIMING, withLock } from '../../src/state/lock.js';

const DAY = 86_400_000;
// Every date below is relative to this injected clock (far from the real date on purpose).
const NOW = new Date('2031-03-01T12:00:00.000Z');
const S1 = 'prod@https://api.example.com';
const S2 = 'staging@https://api.example.com';
const LEAD = 'lead@example.com';

let dir: string;
let state: State;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'booking-store-'));
  state = openState(dir, { now: () => NOW });
});
const journalPath = () => join(dir, 'journal.json');

const attempt = (over: Partial<NewAttempt> = {}): NewAttempt => ({
  scope: S1,
  event: 'ev1',
  reservationId: 'r1',
  workflowExecutionId: null,
  personEmail: LEAD,
  startTime: '2031-03-05T10:00:00.000Z',
  outcome: 'unknown',
  ...over,
});
async function sent(over: Partial<NewAttempt> = {}) {
  const e = await state.journal.add(attempt(over));
  return (await state.journal.markSent(e.id))!;
}
const refusal = (e: unknown) => {
  expect(e).toBeInstanceOf(StateFileError);
  return (e as StateFileError).message;
};

describe('a state file that does not read', () => {
  const reason = async (content: string) => {
    writeFileSync(journalPath(), content);
    const message = refusal(await state.journal.all().catch((e: unknown) => e));
    // Never reset: the file is left exactly as it was.
    expect(readFileSync(journalPath(), 'utf8')).toBe(content);
    return message;
  };

  it('is reported with why, naming the file, and what to do', async () => {
    expect(await reason('')).toBe(
      `${journalPath()} is not a readable schedctl journal file (it is empty): move it aside and schedctl recreates it; nothing else was touched`,
    );
    expect(await reason(' \n\t')).toContain('(it is empty)');
    expect(await reason('{"entries": [')).toContain('(not JSON, maybe cut off)');
  });

  it('names where the content is wrong, and the schema message', async () => {
    expect(await reason('{"entries":[{"id":1}]}')).toMatch(/\(unexpected content at entries\.0\.id: [A-Z][^)]*\)/);
    // A wrong top level has no path to name.
    expect(await reason('[]')).toContain('(unexpected content Invalid input: expected object, received array)');
  });

  it('is an error when it cannot be read at all, not an empty journal', async () => {
    mkdirSync(journalPath());
    expect(refusal(await state.journal.all().catch((e: unknown) => e))).toMatch(/\(EISDIR: /);
  });

  it('reads as empty when missing, also below a path that is a file', async () => {
    expect(await state.journal.all()).toEqual([]);
    writeFileSync(join(dir, 'file'), '');
    expect(await openState(join(dir, 'file', 'sub'), { now: () => NOW }).journal.all()).toEqual([]);
  });
});

describe('the ledger database', () => {
  it('lives in the state directory, beside the profiles', () => {
    expect([state.journal.path, state.outcomes.path, state.meetings.path, state.profiles.path]).toEqual([
      `${join(dir, 'ledger.db')} (attempts)`,
      `${join(dir, 'ledger.db')} (outcomes)`,
      `${join(dir, 'ledger.db')} (meetings)`,
      join(dir, 'config.json'),
    ]);
  });
});

describe('a change that changes nothing', () => {
  it('changes no row', async () => {
    expect(await state.journal.remove('nope')).toBe(false);
    expect(await state.journal.update('nope', { outcome: 'booked' })).toBeUndefined();
    const kept = await state.journal.add(attempt());
    expect(await state.journal.update('nope', { outcome: 'booked' })).toBeUndefined();
    expect(await state.journal.remove('nope')).toBe(false);
    expect(await state.journal.all()).toEqual([kept]);
    expect(await state.journal.remove(kept.id)).toBe(true);
    expect(await state.journal.all()).toEqual([]);
  });
});

describe('journal look-ups', () => {
  it("finds the lead's latest open attempt, narrowed by run, event, trigger and answers", async () => {
    const q = { personEmail: 'LEAD@example.com' };
    await sent({ triggerId: 't1', answersKey: 'k1', workflowExecutionId: 'x1' });
    const latest = await sent({ triggerId: 't1', answersKey: 'k1', workflowExecutionId: 'x2', event: 'ev2' });
    await sent({ triggerId: 't1', answersKey: 'k1', personEmail: 'other@example.com' });
    await sent({ scope: S2, triggerId: 't1', answersKey: 'k1' });
    await state.journal.add(attempt({ triggerId: 't1', answersKey: 'k1' })); // never sent
    const find = (by: object) => state.journal.findOpenAttempt(S1, { ...q, ...by });
    expect((await find({}))?.id).toBe(latest.id);
    expect((await find({ triggerId: 't1', answersKey: 'k1' }))?.id).toBe(latest.id);
    expect((await find({ workflowExecutionId: 'x1' }))?.workflowExecutionId).toBe('x1');
    expect((await find({ event: 'ev1' }))?.workflowExecutionId).toBe('x1');
    expect(await find({ triggerId: 't2' })).toBeUndefined();
    expect(await find({ answersKey: 'k2' })).toBeUndefined();
    expect(await find({ event: 'ev3' })).toBeUndefined();
    expect(await find({ workflowExecutionId: 'x3' })).toBeUndefined();
    expect(await state.journal.findOpenAttempt(S2, { personEmail: 'nobody@example.com' })).toBeUndefined();
  });

  it('never counts an attempt that was not sent, whatever the instant', async () => {
    await state.journal.add(attempt({ triggerId: 't1' }));
    const q = { personEmail: LEAD, triggerId: 't1', bookedSince: new Date('2031-03-01T00:00:00.000Z') };
    expect(await state.journal.findOpenAttempt(S1, q)).toBeUndefined();
  });

  it('counts an attempt known to have booked only when asked, and only from the given instant on', async () => {
    const e = await sent({ triggerId: 't1' });
    await state.journal.update(e.id, { outcome: 'already_booked' });
    const q = { personEmail: LEAD, triggerId: 't1' };
    expect(await state.journal.findOpenAttempt(S1, q)).toBeUndefined();
    const at = (iso: string) => state.journal.findOpenAttempt(S1, { ...q, bookedSince: new Date(iso) });
    expect((await at('2031-03-05T10:00:00.000Z'))?.id).toBe(e.id);
    expect((await at('2031-03-01T00:00:00.000Z'))?.id).toBe(e.id);
    expect(await at('2031-03-05T10:00:00.001Z')).toBeUndefined();
  });

  it('lists the sent unknown attempts of one workspace, oldest first', async () => {
    const a = await sent();
    const done = await sent({ reservationId: 'r2' });
    await state.journal.update(done.id, { outcome: 'booked' });
    await state.journal.add(attempt({ reservationId: 'r3' }));
    const b = await sent({ reservationId: 'r4' });
    await sent({ scope: S2 });
    expect((await state.journal.listOpen(S1)).map((e) => e.id)).toEqual([a.id, b.id]);
  });

  it('looks up a prior attempt without an email as nobody in particular', async () => {
    const e = await sent();
    await state.journal.update(e.id, { outcome: 'booked' });
    expect(await state.journal.findPrior(S1, { reservationId: 'r1', startTime: e.startTime })).toBeUndefined();
    expect(
      (await state.journal.findPrior(S1, { reservationId: 'r1', startTime: e.startTime, personEmail: LEAD }))?.id,
    ).toBe(e.id);
  });

  it('finds a meeting by workspace and id, the latest entry for it', async () => {
    const a = await state.journal.add(attempt());
    await state.journal.update(a.id, { outcome: 'booked', meetingId: 'm1' });
    const b = await state.journal.add(attempt({ reservationId: 'r2' }));
    await state.journal.update(b.id, { outcome: 'booked', meetingId: 'm1', event: 'moved' });
    expect((await state.journal.findMeeting(S1, 'm1'))?.id).toBe(b.id);
    expect(await state.journal.findMeeting(S2, 'm1')).toBeUndefined();
    expect(await state.journal.findMeeting(S1, 'm2')).toBeUndefined();
  });

  it('stamps an attempt with the injected clock and keeps 90 days', async () => {
    const { KEEP_DAYS } = await import('../../src/state/journal.js');
    expect(KEEP_DAYS).toBe(90);
    const e = await state.journal.add(attempt());
    expect(e).toMatchObject({ attemptedAt: NOW.toISOString(), sentAt: null });
    let clock = new Date(NOW.getTime() + KEEP_DAYS * DAY + 1);
    const later = openState(dir, { now: () => clock });
    expect((await later.journal.markSent(e.id))?.sentAt).toBe(clock.toISOString());
    clock = new Date(clock.getTime() + 1);
    await later.journal.add(attempt({ reservationId: 'r2' }));
    expect((await later.journal.all()).map((x) => x.reservationId)).toEqual(['r2']);
  });
});

describe('answersKey', () => {
  it('is the sha256 of the canonical JSON of the answers and the context (keys sorted at every depth)', () => {
    // Pinned: keys on disk (outcomes.json, journal.json, meetings.json) were computed this way.
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(answersKey({ region: 'emea', company: 'Acme' })).toBe(
      sha('{"context":{},"responses":{"company":"Acme","region":"emea"}}'),
    );
    expect(answersKey({ b: '2', a: '1' }, { utm: { z: 1, y: [1, null, undefined] }, gone: undefined })).toBe(
      sha('{"context":{"utm":{"y":[1,null,null],"z":1}},"responses":{"a":"1","b":"2"}}'),
    );
  });

  it('is a sha256 hex digest of the answers and the context', () => {
    expect(answersKey({ a: '1' })).toMatch(/^[0-9a-f]{64}$/);
    expect(answersKey({ a: '1' })).toBe(answersKey({ a: '1' }, {}));
    expect(answersKey({ a: '1' })).not.toBe(answersKey({ a: '2' }));
    expect(answersKey({ a: '1' })).not.toBe(answersKey({}, { a: '1' }));
  });

  it('does not depend on key order, at any depth', () => {
    const orders = [
      { c: '3', a: '1', d: '4', b: '2' },
      { a: '1', b: '2', c: '3', d: '4' },
      { d: '4', c: '3', b: '2', a: '1' },
      { b: '2', d: '4', a: '1', c: '3' },
    ];
    const keys = orders.map((o) => answersKey(o, { z: { y: 1, x: [1, { q: 1, p: 2 }] }, a: 0 }));
    expect(new Set(keys).size).toBe(1);
    expect(answersKey({}, { n: { b: 1, a: 2 } })).toBe(answersKey({}, { n: { a: 2, b: 1 } }));
  });

  it('tells apart what JSON tells apart: array order and grouping, arrays from objects, strings from objects, null from absent', () => {
    const k = (context: Record<string, unknown>) => answersKey({}, context);
    expect(k({ x: [1, 2] })).not.toBe(k({ x: [2, 1] }));
    expect(k({ x: [1, 23] })).not.toBe(k({ x: [12, 3] }));
    expect(k({ x: [1] })).not.toBe(k({ x: { 0: 1 } }));
    expect(k({ x: 'ab' })).not.toBe(k({ x: { 0: 'a', 1: 'b' } }));
    expect(k({ x: null })).not.toBe(k({ x: 'null' }));
    expect(k({ x: null })).not.toBe(k({}));
    // An absent value and an undefined one are the same answer; in an array, undefined is null.
    expect(k({ x: undefined })).toBe(k({}));
    expect(k({ x: [undefined] })).toBe(k({ x: [null] }));
    expect(k({ x: 1 })).not.toBe(k({ x: '1' }));
  });
});

describe('remembered outcomes and workspaces', () => {
  const outcome = { type: 'scheduler', schedulerUrl: 'u', schedulingLinkId: 'l' };
  const fired = (executionId: string) => ({ executionId, outcome, firedAt: NOW.toISOString(), answersKey: 'k' });

  it('scopes a record written before scope was stored by its key', async () => {
    const legacy = {
      executionId: 'x1',
      outcome,
      firedAt: NOW.toISOString(),
      email: LEAD,
      triggerId: 't1',
      answersKey: 'k',
    };
    writeFileSync(join(dir, 'outcomes.json'), JSON.stringify({ outcomes: { [`${S1} t1 ${LEAD}`]: legacy } }));
    // Moved into the table under the scope its key names.
    expect(await state.outcomes.findExecution(S1, 'x1')).toEqual({ ...legacy, scope: S1 });
    expect(await state.outcomes.findExecution(S2, 'x1')).toBeUndefined();
    expect(await state.outcomes.forgetExecution(S2, 'x1')).toBeUndefined();
    expect(await state.outcomes.forgetExecution(S1, 'x1')).toEqual({ ...legacy, scope: S1 });
    expect(await state.outcomes.get(S1, 't1', LEAD)).toBeUndefined();
  });

  it('goes by the stored scope, not the key, when there is one', async () => {
    // A workspace name with a space makes one key a prefix of another's.
    const spaced = `${S1} t1`;
    await state.outcomes.remember(S1, 't1', LEAD, fired('x1'));
    expect(await state.outcomes.findExecution(spaced, 'x1')).toBeUndefined();
    expect(await state.outcomes.forgetExecution(spaced, 'x1')).toBeUndefined();
    expect((await state.outcomes.findExecution(S1, 'x1'))?.scope).toBe(S1);
  });

  it('finds the run of the asked workspace when two hold the same run id', async () => {
    await state.outcomes.remember(S1, 't1', LEAD, fired('x1'));
    await state.outcomes.remember(S2, 't1', LEAD, fired('x1'));
    expect((await state.outcomes.findExecution(S2, 'x1'))?.scope).toBe(S2);
    expect((await state.outcomes.forgetExecution(S2, 'x1'))?.scope).toBe(S2);
    expect((await state.outcomes.get(S1, 't1', LEAD))?.executionId).toBe('x1');
  });
});

describe('meetings record', () => {
  const meeting = (over: Partial<Meeting> = {}): Meeting =>
    meetingFixture('m1', NOW, { eventId: 'ev-uuid', date: '2031-03-05T10:00:00.000Z', personEmail: LEAD, ...over });

  it('keeps how a meeting was routed when a later refresh does not say', async () => {
    await state.meetings.record({
      scope: S1,
      meeting: meeting(),
      source: 'booked',
      event: 'link',
      triggerId: 't1',
      answersKey: 'k1',
    });
    const refreshed = await state.meetings.record({
      scope: S1,
      meeting: meeting({ title: 'Renamed' }),
      source: 'recovered',
      event: 'link',
    });
    expect(refreshed).toMatchObject({ title: 'Renamed', source: 'booked', triggerId: 't1', answersKey: 'k1' });
    expect(
      await state.meetings.record({ scope: S1, meeting: meeting(), source: 'booked', event: 'link', answersKey: 'k2' }),
    ).toMatchObject({ answersKey: 'k2' });
  });

  it('records a move at the given instant, written as given, keeping when it was first recorded', async () => {
    await state.meetings.record({ scope: S1, meeting: meeting(), source: 'booked', event: 'link' });
    const moved = await state.meetings.recordMove(
      S1,
      'm1',
      meeting({ date: '2031-03-06T10:00:00.000Z' }),
      '2031-03-02T08:00:00+01:00',
    );
    expect(moved.recordedAt).toBe(NOW.toISOString());
    expect(moved.history).toEqual([
      {
        from: '2031-03-05T10:00:00.000Z',
        to: '2031-03-06T10:00:00.000Z',
        at: '2031-03-02T08:00:00+01:00',
        by: whoAmI(),
      },
    ]);
    const first = await state.meetings.recordMove(
      S1,
      'm2',
      meeting({ id: 'm2' }),
      new Date('2031-03-02T07:00:00.000Z'),
    );
    expect(first).toMatchObject({ recordedAt: '2031-03-02T07:00:00.000Z', source: 'rescheduled', event: 'ev-uuid' });
  });
});

describe('locks between processes', () => {
  it('waits for another process that holds the database in a write, then writes', async () => {
    await state.journal.all();
    await state.journal.remove('make the file');
    const holder = holdDatabase(join(dir, 'ledger.db'), 300);
    await holder.holding;
    const waiting = openState(dir, { now: () => NOW, lockWaitMs: 5_000 });
    const e = await waiting.journal.add(attempt());
    expect(await waiting.journal.all()).toEqual([e]);
    await holder.done;
  });

  it('gives up on a write held past the wait, naming the database', async () => {
    await state.journal.remove('make the file');
    await state.close();
    const holder = holdDatabase(join(dir, 'ledger.db'), 3_000);
    await holder.holding;
    const impatient = openState(join(dir, '.', ''), { now: () => NOW, lockWaitMs: 100 });
    const error = await impatient.journal.add(attempt()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateLockError);
    expect((error as StateLockError).message).toContain(join(dir, 'ledger.db'));
    holder.child.kill();
    await holder.done;
  });

  it('fails at once, as a write error, when the lock cannot be made at all', async () => {
    const error = await withLock(
      join(dir, 'missing', 'journal.json'),
      { waitMs: 5_000, staleMs: 2_000 },
      () => 1,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateWriteError);
    expect((error as StateWriteError).osCode).toBe('ENOENT');
    // Named by the file that was not written, not by its lock.
    expect((error as StateWriteError).path).toBe(join(dir, 'missing', 'journal.json'));
  });

  it('passes a write error of the critical section on as it is (only a lock that cannot be made is renamed)', async () => {
    const file = join(dir, 'x.json');
    const inside = new StateWriteError(
      join(dir, 'x.json.tmp'),
      Object.assign(new Error('disk full'), { code: 'ENOSPC' }),
    );
    const error = await withLock(file, { waitMs: 100, staleMs: 2_000 }, () => {
      throw inside;
    }).catch((e: unknown) => e);
    expect(error).toBe(inside);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('returns what the critical section returns and releases the lock', async () => {
    const file = join(dir, 'x.json');
    expect(await withLock(file, { waitMs: 100, staleMs: 2_000 }, () => 42)).toBe(42);
    expect(existsSync(`${file}.lock`)).toBe(false);
    await expect(
      withLock(file, { waitMs: 100, staleMs: 2_000 }, () => {
        throw new Error('inside');
      }),
    ).rejects.toThrow('inside');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('waits 12 s for another process by default, and takes a lock over once 10 s stale', () => {
    expect(DEFAULT_LOCK_TIMING).toEqual({ waitMs: 12_000, staleMs: 10_000 });
  });
});

describe('profiles', () => {
  const p = (n: number) => ({ baseUrl: `https://api${n}.example.com`, apiKey: `key-${n}` });

  it('lists names sorted, and keeps the default when another profile is removed', async () => {
    await state.profiles.set('zeta', p(1));
    await state.profiles.set('alpha', p(2));
    expect(await state.profiles.names()).toEqual(['alpha', 'zeta']);
    expect(await state.profiles.remove('alpha')).toBe(true);
    expect(await state.profiles.defaultName()).toBe('zeta');
  });

  it('makes a first profile the default even when it is named "undefined"', async () => {
    await state.profiles.set('undefined', p(1));
    expect(await state.profiles.defaultName()).toBe('undefined');
  });

  it('refuses "__proto__" with a message saying why and what to do', async () => {
    const e = await state.profiles.set('__proto__', p(1)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UsageError);
    expect((e as UsageError).message).toBe('"__proto__" cannot be a profile name: choose another');
  });
});

/** Another process holding the SQLite database's write lock for `ms` (a schedctl that hangs mid-write). */
function holdDatabase(path: string, ms: number) {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const { DatabaseSync } = require('node:sqlite');
       const db = new DatabaseSync(${JSON.stringify(path)});
       db.exec('BEGIN IMMEDIATE');
       process.stdout.write('held\\n');
       setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const holding = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const done = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return { child, holding, done };
}
