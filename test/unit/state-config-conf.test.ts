/**
 * config.json on conf (src/state/config-file.ts): files from before conf, conf's format
 * version and migrations, and the places where conf's own behaviour is held to the store's.
 */
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { CONFIG_FORMAT, CONFIG_MIGRATIONS, ConfigFileStore, older } from '../../src/state/config-file.js';
import { DEFAULT_LOCK_TIMING } from '../../src/state/lock.js';
import { StateFileError } from '../../src/state/errors.js';
import { openState, StateWriteError, type State } from '../../src/state/index.js';

const root = resolve(import.meta.dirname, '../..');
const open = (dir: string) => openState(dir, { now: () => new Date('2031-03-01T12:00:00.000Z') });
const tempDir = () => mkdtempSync(join(tmpdir(), 'state-conf-'));
const fileOf = (dir: string) => join(dir, 'config.json');
const readJson = (dir: string) => JSON.parse(readFileSync(fileOf(dir), 'utf8')) as Record<string, unknown>;
const version = (v: string) => ({ migrations: { version: v } });
const profile = { baseUrl: 'https://api.example.com', apiKey: 'sk_test' };

describe('a config.json written before conf (test/fixtures/config-before-conf.json)', () => {
  const fixture = join(root, 'test/fixtures/config-before-conf.json');
  const written = JSON.parse(readFileSync(fixture, 'utf8')) as {
    defaultProfile: string;
    profiles: Record<string, unknown>;
  };

  it('reads unchanged, and reading writes nothing', async () => {
    const dir = tempDir();
    copyFileSync(fixture, fileOf(dir));
    const state = open(dir);
    expect(await state.profiles.snapshot()).toEqual(written);
    expect((await state.profiles.list()).map((p) => [p.name, p.isDefault])).toEqual([
      ['alpha', false],
      ['beta', true],
    ]);
    expect(readFileSync(fileOf(dir), 'utf8')).toBe(readFileSync(fixture, 'utf8'));
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('keeps everything on its first change, which records the format (conf migration 1.0.0)', async () => {
    const dir = tempDir();
    copyFileSync(fixture, fileOf(dir));
    await open(dir).profiles.setDefault('alpha');
    expect(readJson(dir)).toEqual({ ...written, defaultProfile: 'alpha', __internal__: version(CONFIG_FORMAT) });
    // Still the layout schedctl always wrote (conf's own default indents with tabs).
    expect(readFileSync(fileOf(dir), 'utf8')).toMatch(/^\{\n {2}"profiles": \{\n/);
    expect(statSync(fileOf(dir)).mode & 0o777).toBe(0o600);
  });
});

describe("conf's migrations", () => {
  it('records the format on the first change of a file from before (migration 1.0.0), nothing else changed', async () => {
    expect(Object.keys(CONFIG_MIGRATIONS)).toEqual([CONFIG_FORMAT]);
    const dir = tempDir();
    writeFileSync(fileOf(dir), '{"defaultProfile":"gone","profiles":{"a":{"baseUrl":"u","apiKey":"k"}}}\n');
    const state = open(dir);
    expect(await state.profiles.remove('none')).toBe(false);
    expect(readJson(dir)).toEqual({
      defaultProfile: 'gone',
      profiles: { a: { baseUrl: 'u', apiKey: 'k' } },
      __internal__: version('1.0.0'),
    });
  });

  it('runs the migrations newer than the file, in order, once, under the lock (a later format)', async () => {
    const dir = tempDir();
    const ran: string[] = [];
    // A later schedctl: 2.0.0 renames `rate` to `ratePerMinute`; 1.5.0 ran already for this file.
    const later = new ConfigFileStore(dir, DEFAULT_LOCK_TIMING, {
      version: '2.0.0',
      migrations: {
        ...CONFIG_MIGRATIONS,
        '1.5.0': () => void ran.push('1.5.0'),
        '2.0.0': (conf) => {
          ran.push('2.0.0');
          const store = conf.store;
          for (const p of Object.values(store.profiles) as Array<Record<string, unknown>>) {
            p.ratePerMinute = p.rate;
            delete p.rate;
          }
          conf.store = store;
        },
      },
    });
    const before = { profiles: { a: { ...profile, rate: 5 } }, __internal__: version('1.5.0') };
    writeFileSync(fileOf(dir), JSON.stringify(before), { mode: 0o600 });
    expect(later.read()).toEqual(before); // a read does not migrate
    await later.update(() => undefined);
    await later.update(() => undefined);
    expect(ran).toEqual(['2.0.0']);
    expect(readJson(dir)).toEqual({
      profiles: { a: { ...profile, ratePerMinute: 5 } },
      __internal__: version('2.0.0'),
    });
  });

  it('compares format versions numerically; one that is not x.y.z is never migrated', () => {
    expect(older('0.9.0', '1.0.0')).toBe(true);
    expect(older('1.9.0', '1.10.0')).toBe(true);
    expect(older('1.0.9', '1.0.10')).toBe(true);
    expect(older('1.10.0', '1.9.0')).toBe(false);
    expect(older('1.0.0', '1.0.0')).toBe(false);
    expect(older('2.0.0', '1.0.0')).toBe(false);
    expect(older('next', '1.0.0')).toBe(false);
  });

  it('leaves a file whose version is not ours to read alone', async () => {
    const dir = tempDir();
    writeFileSync(fileOf(dir), JSON.stringify({ profiles: {}, __internal__: version('next') }), { mode: 0o600 });
    await open(dir).profiles.set('a', profile);
    expect(readJson(dir).__internal__).toEqual(version('next'));
  });

  it('reports a migration that fails as nothing saved (StateWriteError), and the file as it was', async () => {
    const dir = tempDir();
    const text = JSON.stringify({ profiles: { a: profile } });
    writeFileSync(fileOf(dir), text, { mode: 0o600 });
    const failing = new ConfigFileStore(dir, DEFAULT_LOCK_TIMING, {
      version: '1.0.0',
      migrations: {
        '1.0.0': () => {
          throw new Error('disk trouble');
        },
      },
    });
    const error = await failing.update(() => undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateWriteError);
    expect((error as StateWriteError).message).toMatch(
      /^cannot write .*config\.json \(.*disk trouble\): nothing was saved$/,
    );
    expect(JSON.parse(readFileSync(fileOf(dir), 'utf8'))).toEqual(JSON.parse(text));
  });

  it('runs no migration on a file at the current format, and rewrites nothing when nothing changed', async () => {
    const dir = tempDir();
    const text = `${JSON.stringify({ profiles: { a: profile }, __internal__: version(CONFIG_FORMAT) })}\n`;
    writeFileSync(fileOf(dir), text, { mode: 0o600 });
    expect(await open(dir).profiles.setDefault('none')).toBe(false);
    expect(readFileSync(fileOf(dir), 'utf8')).toBe(text);
  });

  it('leaves the version of a file from a newer schedctl as it is (conf would lower it to ours)', async () => {
    const dir = tempDir();
    const newer = { profiles: { a: { ...profile, region: 'eu' } }, team: 'x', __internal__: version('99.0.0') };
    writeFileSync(fileOf(dir), JSON.stringify(newer), { mode: 0o600 });
    const state = open(dir);
    await state.profiles.set('b', profile);
    expect(readJson(dir)).toEqual({ ...newer, profiles: { ...newer.profiles, b: profile }, defaultProfile: 'b' });
  });

  it('says exactly why a file does not read: its own reason, or the OS error', async () => {
    const dir = tempDir();
    writeFileSync(fileOf(dir), '   \n');
    await expect(open(dir).profiles.list()).rejects.toThrow(new StateFileError(fileOf(dir), 'profile', 'it is empty'));
    const other = tempDir();
    mkdirSync(fileOf(other));
    for (const op of [(s: State) => s.profiles.list(), (s: State) => s.profiles.set('a', profile)]) {
      const error = await op(open(other)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateFileError);
      expect((error as StateFileError).message).toContain('(EISDIR: illegal operation on a directory');
    }
  });

  it('passes on what a change itself throws, and writes nothing', async () => {
    const dir = tempDir();
    const store = new ConfigFileStore(dir, DEFAULT_LOCK_TIMING);
    const refusal = new UsageError('no');
    await expect(
      store.update(() => {
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a file whose conf record is not an object, and leaves it untouched', async () => {
    const dir = tempDir();
    const text = '{"profiles":{},"__internal__":"1.0.0"}';
    writeFileSync(fileOf(dir), text, { mode: 0o600 });
    const error = await open(dir)
      .profiles.set('a', profile)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as StateFileError).message).toMatch(/at __internal__: /);
    expect(readFileSync(fileOf(dir), 'utf8')).toBe(text);
  });
});

describe('where conf is held to the state store', () => {
  const snap = process.env.SNAP;
  afterEach(() => {
    if (snap === undefined) delete process.env.SNAP;
    else process.env.SNAP = snap;
  });

  it('writes atomically and 0600 under SNAP too (conf would write in place, keeping the old mode)', async () => {
    process.env.SNAP = '/snap/code/1';
    const dir = tempDir();
    writeFileSync(fileOf(dir), JSON.stringify({ profiles: {} }));
    chmodSync(fileOf(dir), 0o644);
    const state = open(dir);
    await state.profiles.set('p', profile);
    expect(statSync(fileOf(dir)).mode & 0o777).toBe(0o600);
    expect(process.env.SNAP).toBe('/snap/code/1');
    expect(await state.profiles.names()).toEqual(['p']);
    delete process.env.SNAP;
    await state.profiles.set('q', profile);
    expect('SNAP' in process.env).toBe(false);
  });

  it('is the only code that reads or writes config.json: no other source module opens the file', () => {
    const walk = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.ts') ? [join(d, e.name)] : [],
      );
    const naming = walk(join(root, 'src'))
      .filter((f) => /PROFILES_FILE|['"]config\.json['"]|from 'conf'/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f))
      .sort();
    // completion-values.ts only asks whether the file exists: a Tab press without one loads nothing.
    expect(naming).toEqual(['src/run/completion-values.ts', 'src/state/config-file.ts', 'src/state/files.ts']);
    expect(readFileSync(join(root, 'src/run/completion-values.ts'), 'utf8')).not.toMatch(/readFile|writeFile|open/);
  });
});
