/**
 * config/target.ts rule by rule: which profile, key and base URL a command uses, and every
 * refusal with its exact wording (the messages are the interface people read), so that a
 * changed branch or string fails here (a mutation run scored the file at 47% before these).
 */
import { describe, expect, it } from 'vitest';
import {
  baseUrlSourceLabel,
  checkApiKey,
  checkBaseUrl,
  DEFAULT_BASE_URL,
  environmentTarget,
  hasUserinfo,
  rateOf,
  refuseUserinfo,
  resolveProfileName,
  resolveTarget,
  scopeOf,
  withoutUserinfo,
} from '../../src/config/target.js';
import { workspaceId } from '../../src/state/identity.js';

const KEY_P = 'sk_live_prod_1234567890abcd';
const KEY_E = 'sk_env_key_555566667777';
const profiles = {
  prod: { baseUrl: 'https://api.example.com', apiKey: KEY_P },
  stage: { baseUrl: 'https://stage.example.com', apiKey: 'sk_test_stage_0987654321wxyz', workspace: 'Acme', rate: 12 },
};

function thrown(fn: () => unknown): Error & { exitCode?: number; hint?: string; code?: string } {
  try {
    fn();
  } catch (error) {
    return error as Error & { exitCode?: number; hint?: string; code?: string };
  }
  throw new Error('expected a throw');
}

describe('resolveProfileName', () => {
  it('names the source and the known profiles of an unknown one (exit 2)', () => {
    const e = thrown(() => resolveProfileName({ flagProfile: 'nope', env: {}, defaultProfile: 'prod', profiles }));
    expect(e.message).toBe('unknown profile "nope" (from --profile)');
    expect(e.exitCode).toBe(2);
    expect(e.hint).toBe('known profiles: prod, stage; to add "nope": schedctl profile add nope --key-stdin');
    const env = thrown(() =>
      resolveProfileName({ env: { SCHEDCTL_PROFILE: 'nope' }, defaultProfile: undefined, profiles: {} }),
    );
    expect(env.message).toBe('unknown profile "nope" (from SCHEDCTL_PROFILE)');
    expect(env.hint).toBe('add it with: schedctl profile add nope --key-stdin');
  });
  it('reads an empty SCHEDCTL_PROFILE as unset, and a default that is gone as none', () => {
    expect(resolveProfileName({ env: { SCHEDCTL_PROFILE: '' }, defaultProfile: 'prod', profiles })).toBe('prod');
    expect(resolveProfileName({ env: {}, defaultProfile: 'gone', profiles })).toBeUndefined();
    expect(resolveProfileName({ env: {}, defaultProfile: undefined, profiles })).toBeUndefined();
    expect(resolveProfileName({ env: { SCHEDCTL_PROFILE: 'stage' }, defaultProfile: 'prod', profiles })).toBe('stage');
  });
});

describe('environmentTarget', () => {
  it('takes the environment unless --profile is given, trimming the key and ignoring empty values', () => {
    const notes: string[] = [];
    expect(environmentTarget({ env: { SCHEDCTL_API_KEY: `  ${KEY_E}\n` } }, undefined, notes)).toEqual({
      envKey: KEY_E,
      envBaseUrl: undefined,
    });
    expect(
      environmentTarget({ env: { SCHEDCTL_API_KEY: '   ', SCHEDCTL_BASE_URL: '' } }, undefined, notes),
    ).toStrictEqual({
      envKey: undefined,
      envBaseUrl: undefined,
    });
    expect(notes).toEqual([]);
  });
  it('sets each variable aside by name under --profile, and says nothing when none is set', () => {
    const notes: string[] = [];
    const none = { envKey: undefined, envBaseUrl: undefined };
    expect(environmentTarget({ flagProfile: 'p', env: { SCHEDCTL_API_KEY: KEY_E } }, 'p', notes)).toEqual(none);
    expect(
      environmentTarget({ flagProfile: 'p', env: { SCHEDCTL_BASE_URL: 'https://x.example' } }, 'p', notes),
    ).toEqual(none);
    expect(environmentTarget({ flagProfile: 'p', env: {} }, 'p', notes)).toStrictEqual(none);
    expect(notes).toEqual([
      '--profile p wins over SCHEDCTL_API_KEY in the environment',
      '--profile p wins over SCHEDCTL_BASE_URL in the environment',
    ]);
  });
});

describe('resolveTarget', () => {
  it('names where the key and URL came from', () => {
    expect(resolveTarget({ env: {}, defaultProfile: 'prod', profiles })).toEqual({
      profileName: 'prod',
      baseUrl: 'https://api.example.com',
      apiKey: KEY_P,
      keySource: 'profile',
      baseUrlSource: 'profile',
      notes: [],
      rate: undefined,
    });
    const env = resolveTarget({ env: { SCHEDCTL_API_KEY: KEY_E }, defaultProfile: undefined, profiles: {} });
    expect(env).toMatchObject({ profileName: undefined, keySource: 'SCHEDCTL_API_KEY', baseUrlSource: 'default' });
    expect(env.baseUrl).toBe(DEFAULT_BASE_URL);
    expect(DEFAULT_BASE_URL).toBe('http://127.0.0.1:4010');
    expect(
      resolveTarget({
        env: { SCHEDCTL_API_KEY: KEY_E, SCHEDCTL_BASE_URL: 'https://e.example/' },
        defaultProfile: 'x',
        profiles: {},
      }),
    ).toMatchObject({ baseUrl: 'https://e.example', baseUrlSource: 'SCHEDCTL_BASE_URL' });
    expect(
      resolveTarget({ flagBaseUrl: 'https://f.example', env: {}, defaultProfile: 'prod', profiles }),
    ).toMatchObject({ baseUrl: 'https://f.example', baseUrlSource: '--base-url' });
  });
  it('notes a key from the environment over the profile, masked, and only when they differ', () => {
    const t = resolveTarget({ env: { SCHEDCTL_API_KEY: KEY_E }, defaultProfile: 'prod', profiles });
    expect(t.notes).toEqual(['using the API key from SCHEDCTL_API_KEY (sk_…7777), not profile "prod"\'s (sk_…abcd)']);
    expect(resolveTarget({ env: { SCHEDCTL_API_KEY: KEY_P }, defaultProfile: 'prod', profiles }).notes).toEqual([]);
  });
  it('notes a base URL from elsewhere than the profile, only when it differs', () => {
    const t = resolveTarget({ flagBaseUrl: 'https://f.example/', env: {}, defaultProfile: 'prod', profiles });
    expect(t.notes).toEqual([
      'using the base URL from --base-url (https://f.example), not profile "prod"\'s (https://api.example.com)',
    ]);
    expect(
      resolveTarget({ flagBaseUrl: 'https://api.example.com/', env: {}, defaultProfile: 'prod', profiles }).notes,
    ).toEqual([]);
    // A stored URL spelled with a trailing slash is still the profile's own: no note.
    const slash = { prod: { ...profiles.prod, baseUrl: 'https://api.example.com/' } };
    expect(resolveTarget({ env: {}, defaultProfile: 'prod', profiles: slash }).notes).toEqual([]);
  });
  it('keeps the profile workspace name with its key only, and the rate', () => {
    const t = resolveTarget({ env: {}, defaultProfile: 'stage', profiles });
    expect(t.workspace).toBe('Acme');
    expect(t.rate).toBe(12);
    const env = resolveTarget({ env: { SCHEDCTL_API_KEY: KEY_E }, defaultProfile: 'stage', profiles });
    expect('workspace' in env).toBe(false);
    expect('workspace' in resolveTarget({ env: {}, defaultProfile: 'prod', profiles })).toBe(false);
  });
  it("keeps the fingerprint of the key a profile's key replaced with that key only", () => {
    const rotated = { prod: { ...profiles.prod, previousKey: '0123456789abcdef' } };
    expect(resolveTarget({ env: {}, defaultProfile: 'prod', profiles: rotated }).previousKey).toBe('0123456789abcdef');
    const env = resolveTarget({ env: { SCHEDCTL_API_KEY: KEY_E }, defaultProfile: 'prod', profiles: rotated });
    expect('previousKey' in env).toBe(false);
    expect('previousKey' in resolveTarget({ env: {}, defaultProfile: 'prod', profiles })).toBe(false);
  });
  it('refuses a key it could not send, naming where it came from', () => {
    const bad = { prod: { ...profiles.prod, apiKey: `${KEY_P}\r\n` } };
    expect(thrown(() => resolveTarget({ env: {}, defaultProfile: 'prod', profiles: bad })).message).toContain(
      'profile "prod"',
    );
    expect(
      thrown(() => resolveTarget({ env: { SCHEDCTL_API_KEY: 'sk_é_x' }, defaultProfile: undefined, profiles: {} }))
        .message,
    ).toContain('SCHEDCTL_API_KEY environment variable');
  });
  it('says how to add a key when there is none (exit 3)', () => {
    const e = thrown(() => resolveTarget({ env: {}, defaultProfile: undefined, profiles: {} }));
    expect(e).toMatchObject({ code: 'NO_API_KEY', exitCode: 3 });
    expect(e.hint).toContain('schedctl sandbox');
  });
});

describe('rateOf', () => {
  it('takes SCHEDCTL_RATE, else the profile', () => {
    expect(rateOf({}, { rate: 5 })).toBe(5);
    expect(rateOf({ SCHEDCTL_RATE: '' }, { rate: 5 })).toBe(5);
    expect(rateOf({}, undefined)).toBeUndefined();
    expect(rateOf({ SCHEDCTL_RATE: '0' }, { rate: 5 })).toBe(0);
    expect(rateOf({ SCHEDCTL_RATE: ' 7 ' }, undefined)).toBe(7);
    expect(rateOf({ SCHEDCTL_RATE: '100000' }, undefined)).toBe(100_000);
  });
  it.each(['100001', '1.5', '-1', 'ten', '1e3'])('refuses SCHEDCTL_RATE=%s (exit 2)', (raw) => {
    const e = thrown(() => rateOf({ SCHEDCTL_RATE: raw }, undefined));
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(
      `invalid SCHEDCTL_RATE "${raw}": expected requests per minute, a whole number (0 turns the shared rate budget off)`,
    );
  });
});

describe('checkApiKey', () => {
  it.each([
    ['a\nb', 'a line break (U+000A) at position 2'],
    ['ab\r', 'a line break (U+000D) at position 3'],
    ['a\u2028', 'a line break (U+2028) at position 2'],
    ['a\u2029', 'a line break (U+2029) at position 2'],
    ['\tab', 'a tab at position 1'],
    ['a\u0001', 'a control character (U+0001) at position 2'],
    ['a\u001f', 'a control character (U+001F) at position 2'],
    ['a\u007f', 'a control character (U+007F) at position 2'],
    ['a\u009f', 'a control character (U+009F) at position 2'],
    ['a\u00a0', 'a non-ASCII character (U+00A0) at position 2'],
    ['sk_…abcd', 'a non-ASCII character (U+2026) at position 4'],
  ])('names %j: %s', (key, what) => {
    const e = thrown(() => checkApiKey(key, 'SCHEDCTL_API_KEY'));
    expect(e.message).toBe(
      `the API key from the SCHEDCTL_API_KEY environment variable contains ${what}; refusing to send it`,
    );
    expect(e).toMatchObject({ code: 'CONFIG', exitCode: 3 });
    expect(e.hint).toBe('set SCHEDCTL_API_KEY to the key alone, e.g. SCHEDCTL_API_KEY="$(tr -d \'\\r\\n\' < key.txt)"');
  });
  it('passes printable ASCII, and tells a profile how to store the key again', () => {
    expect(() => checkApiKey(' ~sk_live_ok!', 'SCHEDCTL_API_KEY')).not.toThrow();
    const e = thrown(() => checkApiKey('k\n', { profile: 'prod' }));
    expect(e.message).toBe(
      'the API key from profile "prod" contains a line break (U+000A) at position 2; refusing to send it',
    );
    expect(e.hint).toBe('store the key again: schedctl profile add prod --key-stdin < key.txt');
  });
});

/** The six spellings of issue 36: all read by the WHATWG parser as user name and/or password. */
const WITH_USERINFO = [
  'http:u:secret@host',
  'http:/u:secret@host',
  'http:\\\\u:secret@host',
  'http://u:secret@host',
  'http://u@host',
  'http://:secret@host',
];

describe('base URLs carrying userinfo, in every spelling', () => {
  it.each(WITH_USERINFO)('%s is refused from every source (exit 2), never shown', (url) => {
    expect(hasUserinfo(url)).toBe(true);
    expect(hasUserinfo(url.replace('http', 'HTTPS'))).toBe(true);
    for (const source of ['--base-url', 'SCHEDCTL_BASE_URL', 'profile "p"', 'the default base URL']) {
      const e = thrown(() => checkBaseUrl(url, source));
      expect(e.exitCode).toBe(2);
      expect(e.message).toBe(
        `the base URL from ${source} carries a user name or password (user:password@); refusing it (not shown: it holds a secret)`,
      );
      expect(`${e.message} ${e.hint}`).not.toContain('secret@');
    }
    expect(withoutUserinfo(url)).not.toMatch(/secret|u:|u@/);
    expect(withoutUserinfo(url)).toContain('***@host');
  });
  it('sees userinfo the parser finds behind characters it strips', () => {
    expect(hasUserinfo('\u0001http://u:p@host/x')).toBe(true);
    expect(withoutUserinfo('\u0001http://u:p@host/x')).toBe('http://***@host/x');
    expect(hasUserinfo('  http://u:p@host')).toBe(true);
    expect(withoutUserinfo('  http://u:p@h.example')).toBe('http://***@h.example');
    // A user name alone, a password alone: either is userinfo.
    expect(hasUserinfo('\u0001http://u@host')).toBe(true);
    expect(hasUserinfo('\u0001http://:p@host')).toBe(true);
    expect(hasUserinfo('\u0001http://host')).toBe(false);
  });
  it('leaves an @ in a path, query or fragment alone', () => {
    for (const url of ['https://api.example.com/a@b', 'https://h.example?x=a@b', 'https://h.example#a@b', 'http:']) {
      expect(hasUserinfo(url)).toBe(false);
      expect(withoutUserinfo(url)).toBe(url);
    }
    expect(checkBaseUrl('https://api.example.com/a@b', 'x')).toBe('https://api.example.com/a@b');
  });
  it('masks the spelling as typed', () => {
    expect(withoutUserinfo('http:u:secret@host')).toBe('http:***@host');
    expect(withoutUserinfo('http:/u:secret@host/p')).toBe('http:/***@host/p');
    expect(withoutUserinfo('https://a:b@h.example')).toBe('https://***@h.example');
  });
  it('tells each source how to give the URL without it', () => {
    const hint = (source: string) => thrown(() => refuseUserinfo('https://a:b@h.example', source)).hint;
    expect(hint('SCHEDCTL_BASE_URL')).toBe('set SCHEDCTL_BASE_URL to the URL without user:password@');
    expect(hint('profile "prod"')).toBe(
      'store the profile again with a plain URL: schedctl profile add prod --base-url https://HOST --key-stdin --force < key.txt',
    );
    expect(hint('--base-url')).toBe(
      'give the URL without user:password@ (the API key goes in a profile or SCHEDCTL_API_KEY)',
    );
    expect(() => refuseUserinfo('https://h.example', '--base-url')).not.toThrow();
    // Only a source that is exactly a profile's name gets the profile's fix.
    expect(hint('the profile "prod"')).toBe(hint('--base-url'));
    expect(hint('profile "prod" (stored)')).toBe(hint('--base-url'));
  });
});

describe('checkBaseUrl', () => {
  it('gives one spelling: lower-case scheme and host, no trailing slashes', () => {
    expect(checkBaseUrl('HTTPS://API.Example.com/Base//', 'x')).toBe('https://api.example.com/Base');
    expect(checkBaseUrl('http://LOCALHOST:4010/', 'x')).toBe('http://localhost:4010');
    expect(checkBaseUrl('http://127.1.2.3', 'x')).toBe('http://127.1.2.3');
  });
  it('says what is wrong, naming the source', () => {
    expect(thrown(() => checkBaseUrl('not a url', 'SCHEDCTL_BASE_URL')).message).toBe(
      'invalid base URL "not a url" (from SCHEDCTL_BASE_URL): expected an absolute URL such as https://api.example.com',
    );
    expect(thrown(() => checkBaseUrl('ftp://h.example', '--base-url')).message).toBe(
      'invalid base URL "ftp://h.example" (from --base-url): the scheme must be https:// (or http:// for a local sandbox)',
    );
    const http = thrown(() => checkBaseUrl('http://api.example.com:8080/v', 'profile "p"'));
    expect(http.message).toBe(
      'refusing to send the API key over plain http:// to api.example.com:8080 (from profile "p"): it would travel unencrypted',
    );
    expect(http.hint).toBe('use https://, or http:// only for a sandbox on 127.0.0.1/localhost');
    expect(http).toMatchObject({ code: 'INSECURE_BASE_URL', exitCode: 2 });
    // Shown without the query or fragment itself (it may hold a secret): issue 54.
    for (const [url, shown] of [
      ['https://h.example/?x=1', 'https://h.example/?…'],
      ['https://h.example/#f', 'https://h.example/#…'],
    ])
      expect(thrown(() => checkBaseUrl(url!, '--base-url')).message).toBe(
        `invalid base URL "${shown}" (from --base-url): it must not carry a query or fragment`,
      );
  });
  it.each([
    'http://127.0.0.1.example.com',
    'http://0.0.0.0',
    'http://128.0.0.1',
    'http://localhost.example',
    'http://a127.0.0.1.example',
  ])('refuses plain http to %s (not loopback)', (url) => {
    expect(() => checkBaseUrl(url, 'x')).toThrow(/plain http/);
  });
});

describe('sources and scopes', () => {
  it('names each source of a base URL', () => {
    expect(baseUrlSourceLabel('default', undefined)).toBe('the default base URL');
    expect(baseUrlSourceLabel('profile', 'prod')).toBe('profile "prod"');
    expect(baseUrlSourceLabel('profile', undefined)).toBe('profile ""');
    expect(baseUrlSourceLabel('--base-url', 'prod')).toBe('--base-url');
    expect(baseUrlSourceLabel('SCHEDCTL_BASE_URL', undefined)).toBe('SCHEDCTL_BASE_URL');
  });
  it('scopes records by workspace', () => {
    const t = { baseUrl: 'http://localhost:4010', apiKey: 'k', workspace: 'Acme' };
    expect(scopeOf(t)).toBe(workspaceId(t));
    expect(scopeOf(t)).toBe('http://loopback:4010#ws:acme');
  });
});
