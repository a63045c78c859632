import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_FORMAT } from '../../src/state/config-file.js';
import { openState, type State } from '../../src/state/index.js';

const p = (n: number) => ({ baseUrl: `https://api${n}.example.com`, apiKey: `sk_${n}` });
let state: State;
beforeEach(() => {
  state = openState(mkdtempSync(join(tmpdir(), 'state-profiles-')), {
    now: () => new Date('2031-03-01T12:00:00.000Z'),
  });
});

describe('profiles', () => {
  it('makes the first profile the default, and another only when asked', async () => {
    await state.profiles.set('b', p(1));
    await state.profiles.set('a', { ...p(2), rate: 20 });
    expect(await state.profiles.defaultName()).toBe('b');
    expect(await state.profiles.list()).toEqual([
      { name: 'a', profile: { ...p(2), rate: 20 }, isDefault: false },
      { name: 'b', profile: p(1), isDefault: true },
    ]);
    await state.profiles.set('c', p(3), true);
    expect(await state.profiles.snapshot()).toMatchObject({ defaultProfile: 'c' });
  });

  it('removes the default without picking another, and sets a default only for an existing profile', async () => {
    await state.profiles.set('a', p(1));
    await state.profiles.set('b', p(2));
    expect(await state.profiles.remove('a')).toBe(true);
    expect(await state.profiles.remove('a')).toBe(false);
    expect(await state.profiles.defaultName()).toBeUndefined();
    expect(await state.profiles.setDefault('nope')).toBe(false);
    expect(await state.profiles.setDefault('b')).toBe(true);
    expect(await state.profiles.defaultName()).toBe('b');
    // The next profile added does not take the default from an existing one.
    await state.profiles.set('c', p(3));
    expect(await state.profiles.defaultName()).toBe('b');
  });

  it('treats names like "constructor" as plain names, and refuses "__proto__" (a JSON reader would drop it)', async () => {
    expect(await state.profiles.get('constructor')).toBeUndefined();
    await state.profiles.set('constructor', p(1));
    expect(await state.profiles.get('constructor')).toEqual(p(1));
    await expect(state.profiles.set('__proto__', p(2))).rejects.toMatchObject({ code: 'USAGE' });
    expect(JSON.parse(readFileSync(state.profiles.path, 'utf8'))).toEqual({
      __internal__: { migrations: { version: CONFIG_FORMAT } }, // conf's record of the file's format
      defaultProfile: 'constructor',
      profiles: { constructor: p(1) },
    });
  });
});
