import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_FORMAT } from '../../src/state/config-file.js';
import { StateFileError } from '../../src/state/errors.js';
import { openState, StateLockError, StateWriteError, type State } from '../../src/state/index.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const open = (dir: string, opts: { lockWaitMs?: number } = {}) => openState(dir, { now: () => NOW, ...opts });
const tempDir = () => mkdtempSync(join(tmpdir(), 'state-files-'));
const mode = (path: string) => statSync(path).mode & 0o7777;
const profile = { baseUrl: 'https://api.example.com', apiKey: 'sk_test' };
const scheduler = { type: 'scheduler', schedulerUrl: 'u', schedulingLinkId: 'l' };
const meeting = {
  id: 'm1',
  eventId: 'ev',
  title: 't',
  status: 'scheduled',
  date: '2031-04-01T10:00:00.000Z',
  duration: 30,
  meetingLink: null,
  conferencingType: 'zoom',
  location: null,
  personEmail: 'a@example.com',
  additionalAttendees: [],
  cancellationReason: null,
  createdAt: '2031-03-01T12:00:00.000Z',
  updatedAt: '2031-03-01T12:00:00.000Z',
};

/** Per file: its name, what the message calls it, one read, one write, and a JSON object of the wrong shape. */
const FILES: Array<{
  name: string;
  what: string;
  read: (s: State) => Promise<unknown>;
  write: (s: State) => Promise<unknown>;
  wrong: string;
}> = [
  {
    name: 'config.json',
    what: 'profile',
    read: (s) => s.profiles.list(),
    write: (s) => s.profiles.set('p', profile),
    wrong: '{"profiles":{"p":{"baseUrl":"x"}}}',
  },
  {
    name: 'journal.json',
    what: 'journal',
    read: (s) => s.journal.all(),
    write: (s) =>
      s.journal.add({
        scope: 's',
        event: 'e',
        reservationId: 'r',
        workflowExecutionId: null,
        personEmail: 'a@example.com',
        startTime: 't',
        outcome: 'unknown',
      }),
    wrong: '{"entries":{"0":{}}}',
  },
  {
    name: 'outcomes.json',
    what: 'outcomes',
    read: (s) => s.outcomes.get('s', 't', 'a@example.com'),
    write: (s) =>
      s.outcomes.remember('s', 't', 'a@example.com', {
        executionId: 'x',
        outcome: scheduler,
        firedAt: 'f',
        answersKey: 'k',
      }),
    wrong: '{"outcomes":[]}',
  },
  {
    name: 'meetings.json',
    what: 'meetings',
    read: (s) => s.meetings.list('s'),
    write: (s) => s.meetings.record({ scope: 's', meeting, source: 'booked', event: 'ev' }),
    wrong: '{"meetings":{"s m1":{"id":"m1"}}}',
  },
];
const BROKEN: Array<[string, (f: (typeof FILES)[number]) => string]> = [
  ['empty', () => ''],
  ['truncated', () => '{"defaultProfile":"p","profiles":{"p":{"baseUrl":"https://ap'],
  ['an array', () => '[]'],
  ['of the wrong shape', (f) => f.wrong],
];

describe('unreadable state files', () => {
  for (const file of FILES) {
    for (const [label, content] of BROKEN) {
      it(`refuses a ${file.name} that is ${label}, and leaves it untouched`, async () => {
        const dir = tempDir();
        const path = join(dir, file.name);
        writeFileSync(path, content(file), { mode: 0o600 });
        const state = open(dir);
        for (const op of [file.read, file.write]) {
          const error = await op(state).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(StateFileError);
          const e = error as StateFileError;
          expect([e.code, e.exitCode]).toEqual(['STATE_FILE', 1]);
          expect(e.message).toMatch(
            new RegExp(
              `^${path.replace(/[.\\]/g, '\\$&')} is not a readable schedctl ${file.what} file \\(.+\\): move it aside and schedctl recreates it; nothing else was touched$`,
            ),
          );
          expect(e.message).not.toContain('\n');
        }
        expect(readFileSync(path, 'utf8')).toBe(content(file));
        // No temp file or lock left behind.
        expect(readdirSync(dir)).toEqual([file.name]);
      });
    }
  }

  it('reads a profile file written by conf (tabs, extra keys) and keeps unknown fields on rewrite', async () => {
    const dir = tempDir();
    const legacy = { profiles: { old: { ...profile, note: 'kept' } }, defaultProfile: 'old', __internal__: { v: 1 } };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(legacy, null, '\t'));
    const state = open(dir);
    expect(await state.profiles.get('old')).toMatchObject(profile);
    await state.profiles.set('new', { ...profile, rate: 10 });
    const after = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(after).toEqual({
      ...legacy,
      __internal__: { ...legacy.__internal__, migrations: { version: CONFIG_FORMAT } }, // conf's record of the format
      profiles: { ...legacy.profiles, new: { ...profile, rate: 10 } },
    });
  });
});

describe('directories and modes', () => {
  it('opens and reads a missing directory without creating anything', async () => {
    const dir = join(tempDir(), 'a', 'schedctl');
    const state = open(dir);
    expect(await state.profiles.list()).toEqual([]);
    expect(await state.journal.all()).toEqual([]);
    expect(await state.outcomes.get('s', 't', 'e')).toBeUndefined();
    expect(await state.meetings.list('s')).toEqual([]);
    expect(state.profiles.keyFileExposed()).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it('creates a missing directory 0700 and its files 0600', async () => {
    const dir = join(tempDir(), 'a', 'schedctl');
    const state = open(dir);
    for (const f of FILES) await f.write(state);
    expect(mode(dir)).toBe(0o700);
    for (const name of written(dir)) expect(mode(join(dir, name)), name).toBe(0o600);
  });

  for (const existing of [0o755, 0o777, 0o1777]) {
    it(`never changes the mode of an existing directory (${existing.toString(8)})`, async () => {
      const dir = join(tempDir(), 'shared');
      mkdirSync(dir);
      chmodSync(dir, existing);
      const state = open(dir);
      for (const f of FILES) await f.write(state);
      expect(mode(dir)).toBe(existing);
      for (const name of written(dir)) expect(mode(join(dir, name)), name).toBe(0o600);
    });
  }

  it('reports a key file readable by others, and makes it 0600 on the next write', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: {} }));
    chmodSync(join(dir, 'config.json'), 0o644);
    const state = open(dir);
    expect(state.profiles.keyFileExposed()).toBe(true);
    await state.profiles.set('p', profile);
    expect(state.profiles.keyFileExposed()).toBe(false);
  });

  it('reads defaults but refuses to write when the directory cannot be created', async () => {
    const parent = tempDir();
    writeFileSync(join(parent, 'file'), '');
    const dir = join(parent, 'file', 'schedctl');
    const state = open(dir);
    expect(await state.profiles.list()).toEqual([]);
    const error = await state.profiles.set('p', profile).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateWriteError);
    expect((error as StateWriteError).code).toBe('STATE_WRITE');
    expect((error as StateWriteError).message).toBe(
      `cannot write ${dir} (ENOTDIR: not a directory): nothing was saved`,
    );
  });
});

describe('locks', () => {
  /** A lock directory as a schedctl holding it leaves it: who holds it, in owner.json. */
  const heldBy = (lock: string, pid: number, ageMs = 0) => {
    mkdirSync(lock);
    const owner = join(lock, 'owner.json');
    writeFileSync(owner, JSON.stringify({ token: 't', pid, host: hostname(), user: 'u', command: 'c', since: '' }));
    const at = new Date(Date.now() - ageMs);
    utimesSync(owner, at, at);
    utimesSync(lock, at, at);
  };

  it('takes over at once a lock whose holder is gone from this host', async () => {
    const dir = tempDir();
    const lock = join(dir, 'config.json.lock');
    heldBy(lock, spawnSync(process.execPath, ['-e', '0']).pid!);
    // A wait shorter than the stale age: only "the holder is gone" can let this write through.
    const state = open(dir, { lockWaitMs: 1_000 });
    await state.profiles.set('p', profile);
    expect(await state.profiles.names()).toEqual(['p']);
    expect(existsSync(lock)).toBe(false);
  });

  it('never takes over the lock of a live holder on this host, however old its mtime (a clock that jumped)', async () => {
    const dir = tempDir();
    const lock = join(dir, 'config.json.lock');
    heldBy(lock, process.pid, 3_600_000);
    const error = await open(dir, { lockWaitMs: 300 })
      .profiles.set('p', profile)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateLockError);
    expect(existsSync(join(lock, 'owner.json'))).toBe(true);
  });

  it('takes over a lock that says nothing of its holder once it has stood still for the stale age', async () => {
    const dir = tempDir();
    const lock = join(dir, 'config.json.lock');
    mkdirSync(lock);
    const state = openState(dir, { now: () => NOW, lockWaitMs: 5_000, staleMs: 500 });
    await state.profiles.set('p', profile);
    expect(await state.profiles.names()).toEqual(['p']);
    expect(existsSync(lock)).toBe(false);
  });

  it('gives up on a live lock with StateLockError, leaving file and lock alone', async () => {
    const dir = tempDir();
    const path = join(dir, 'config.json');
    writeFileSync(path, '{"profiles":{}}');
    mkdirSync(`${path}.lock`);
    const error = await FILES[0]!.write(open(dir, { lockWaitMs: 300 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateLockError);
    expect((error as StateLockError).message).toBe(
      `another schedctl process holds ${path} for too long; if none is running, remove ${path}.lock`,
    );
    expect(readFileSync(path, 'utf8')).toBe('{"profiles":{}}');
    expect(existsSync(`${path}.lock`)).toBe(true);
  });
});

describe("config.json's fast path (isPlainConfig)", () => {
  const samples: unknown[] = [
    { profiles: {} },
    { defaultProfile: 'a', profiles: { a: profile } },
    { defaultProfile: 'a', profiles: { a: { ...profile, rate: 10 }, b: { ...profile, extra: [1] } }, newer: true },
    {},
    { profiles: null },
    { profiles: [] },
    { defaultProfile: 3, profiles: {} },
    { defaultProfile: null, profiles: {} },
    { profiles: { a: { baseUrl: 'x' } } },
    { profiles: { a: { ...profile, rate: '10' } } },
    { profiles: { a: { ...profile, rate: null } } },
    { profiles: { a: null } },
    { profiles: { a: [] } },
    [],
    null,
    'config',
  ];

  it('accepts only what the schema accepts, exactly as the schema returns it', async () => {
    const { configSchema, isPlainConfig } = await import('../../src/state/schemas.js');
    let plain = 0;
    for (const sample of samples) {
      const parsed = configSchema().safeParse(structuredClone(sample));
      if (!isPlainConfig(structuredClone(sample))) continue;
      plain++;
      expect(parsed.success, JSON.stringify(sample)).toBe(true);
      expect(parsed.data, JSON.stringify(sample)).toEqual(sample);
    }
    expect(plain).toBe(3); // the three well-formed files above
  });

  it('leaves every other file to the schema, which names what is wrong', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { a: { ...profile, rate: '10' } } }));
    await expect(open(dir).profiles.snapshot()).rejects.toThrow(/at profiles\.a\.rate/);
  });
});

/** The files a state wrote: the profiles and the ledger database (with its WAL files while they exist). */
function written(dir: string): string[] {
  return readdirSync(dir).filter((f) => f === 'config.json' || f.startsWith('ledger.db'));
}
