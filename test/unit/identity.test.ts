import { describe, expect, it } from 'vitest';
import {
  eventAliasKey,
  keyFingerprint,
  leadId,
  normaliseBaseUrl,
  resolveEventId,
  sameEvent,
  sameLead,
  decodeUnreserved,
  formerWorkspaceIds,
  workspaceId,
  workspaceName,
  keyIdOf,
  namedIdOf,
  splitLegacyScope,
  unattributedScope,
  urlOfWorkspace,
} from '../../src/state/identity.js';

const EVENT = '7a3c9f10-1b2d-4e5f-8a9b-0c1d2e3f4a5b';
const LINK = '00000000-0000-4000-8000-00000000a1a1';

describe('identity: a workspace is what a key reaches, not how the URL was typed', () => {
  it.each([
    ['https://API.Example.com', 'https://api.example.com'],
    ['https://api.example.com/', 'https://api.example.com'],
    ['https://api.example.com:443', 'https://api.example.com'],
    ['https://api.example.com:8443/', 'https://api.example.com:8443'],
    ['HTTPS://api.example.com//', 'https://api.example.com'],
    ['https://api.example.com/v2/', 'https://api.example.com/v2'],
    ['https://api.example.com/V2', 'https://api.example.com/V2'],
    ['http://127.0.0.1:4010', 'http://loopback:4010'],
    ['http://localhost:4010/', 'http://loopback:4010'],
    ['http://LOCALHOST:4010', 'http://loopback:4010'],
    ['http://127.1.2.3:4010', 'http://loopback:4010'],
    ['http://127.10.200.30:4010', 'http://loopback:4010'],
    ['http://127.1:4010', 'http://loopback:4010'],
    ['http://[::ffff:127.0.0.1]:4010', 'http://loopback:4010'],
    ['http://[::ffff:7f12:3456]:4010', 'http://loopback:4010'],
    ['https://localhost:443/', 'https://loopback'],
    ['https://localhost:80/', 'https://loopback:80'],
    ['http://[::1]:4010', 'http://loopback:4010'],
    ['http://[0:0:0:0:0:0:0:1]:4010', 'http://loopback:4010'],
    ['http://localhost:80', 'http://loopback'],
    ['http://localhost', 'http://loopback'],
    ['http://127.0.0.1:443', 'http://loopback:443'],
    ['  https://api.example.com  ', 'https://api.example.com'],
  ])('%s is %s', (raw, normal) => {
    expect(normaliseBaseUrl(raw)).toBe(normal);
  });

  it('keeps other hosts apart: a look-alike of loopback is not loopback', () => {
    expect(normaliseBaseUrl('http://localhost.example.com:4010')).toBe('http://localhost.example.com:4010');
    expect(normaliseBaseUrl('http://128.0.0.1:4010')).toBe('http://128.0.0.1:4010');
    expect(normaliseBaseUrl('http://10.127.0.1')).toBe('http://10.127.0.1');
    expect(normaliseBaseUrl('http://[::2]:4010')).toBe('http://[::2]:4010');
    expect(normaliseBaseUrl('http://[::ffff:8000:1]:4010')).toBe('http://[::ffff:8000:1]:4010');
    expect(normaliseBaseUrl('http://127.example.com:4010')).toBe('http://127.example.com:4010');
    expect(normaliseBaseUrl('http://127.a.b.example:4010')).toBe('http://127.a.b.example:4010');
    expect(normaliseBaseUrl('http://127.0.0.example:4010')).toBe('http://127.0.0.example:4010');
    expect(normaliseBaseUrl('http://127.0.0.x1:4010')).toBe('http://127.0.0.x1:4010');
    expect(normaliseBaseUrl('http://127.0.0.1x:4010')).toBe('http://127.0.0.1x:4010');
    expect(normaliseBaseUrl('http://[::ffff:7f00:1]x')).toBe('http://[::ffff:7f00:1]x');
    expect(normaliseBaseUrl('http://a127.0.0.1x')).toBe('http://a127.0.0.1x');
  });

  it('leaves a string that is not a URL as it is (trimmed): it can only equal itself', () => {
    expect(normaliseBaseUrl(' not a url ')).toBe('not a url');
  });

  it('fingerprints a key without revealing it: 16 hex digits, stable, the same for stray spaces', () => {
    const f = keyFingerprint('sk_test_secret');
    expect(f).toMatch(/^[0-9a-f]{16}$/);
    expect(f).toBe(keyFingerprint(' sk_test_secret\n'));
    expect(f).not.toBe(keyFingerprint('sk_test_other'));
    expect(f).not.toContain('secret');
  });

  it('names a workspace by the normalised URL and the key, or by an explicit name', () => {
    const a = workspaceId({ baseUrl: 'http://127.0.0.1:4010/', apiKey: 'sk_1' });
    expect(a).toBe(`http://loopback:4010#key:${keyFingerprint('sk_1')}`);
    expect(workspaceId({ baseUrl: 'http://localhost:4010', apiKey: 'sk_1' })).toBe(a);
    expect(workspaceId({ baseUrl: 'http://localhost:4010', apiKey: 'sk_2' })).not.toBe(a);
    expect(workspaceId({ baseUrl: 'http://localhost:4010', apiKey: 'sk_2', workspace: ' acme ' })).toBe(
      'http://loopback:4010#ws:acme',
    );
    expect(workspaceId({ baseUrl: 'http://localhost:4010', apiKey: 'sk_1', workspace: 'acme' })).toBe(
      'http://loopback:4010#ws:acme',
    );
    expect(workspaceId({ baseUrl: 'http://localhost:4010', apiKey: 'sk_1', workspace: '  ' })).toBe(a);
  });
});

describe('identity: percent-encoding in the path is one spelling (RFC 3986 6.2.2)', () => {
  it.each([
    ['https://api.example.com/%61pi', 'https://api.example.com/api'],
    ['https://api.example.com/%61%50%49', 'https://api.example.com/aPI'],
    ['https://api.example.com/a%2Db%2eC%5f%7E%7e', 'https://api.example.com/a-b.C_~~'],
    ['https://api.example.com/%30%39%41%5A%61%7a', 'https://api.example.com/09AZaz'],
    ['https://api.example.com/a%2fb', 'https://api.example.com/a%2Fb'],
    ['https://api.example.com/a%2Fb', 'https://api.example.com/a%2Fb'],
    ['https://api.example.com/a%20b', 'https://api.example.com/a%20b'],
    ['https://api.example.com/%c3%a9', 'https://api.example.com/%C3%A9'],
    ['https://api.example.com/%2F', 'https://api.example.com/%2F'],
    ['https://api.example.com/x/%2e%2e/api', 'https://api.example.com/api'],
    ['https://api.example.com/x/../%61pi/./', 'https://api.example.com/api'],
    ['https://api.example.com/api%2f', 'https://api.example.com/api%2F'],
    ['https://api.example.com/%zz', 'https://api.example.com/%zz'],
    ['https://api.example.com/%4', 'https://api.example.com/%4'],
  ])('%s is %s', (raw, normal) => {
    expect(normaliseBaseUrl(raw)).toBe(normal);
  });

  it('makes /api and /%61pi one workspace', () => {
    expect(workspaceId({ baseUrl: 'https://h.example/%61pi', apiKey: 'k' })).toBe(
      workspaceId({ baseUrl: 'https://h.example/api/', apiKey: 'k' }),
    );
  });

  it('decodes only the unreserved characters, one escape at a time', () => {
    expect(decodeUnreserved('%2541')).toBe('%2541');
    expect(decodeUnreserved('%41%42')).toBe('AB');
    expect(decodeUnreserved('%21%40%2A')).toBe('%21%40%2A');
    expect(decodeUnreserved('%2a')).toBe('%2A');
    expect(decodeUnreserved('%2d%2E%5F%7e')).toBe('-._~');
    expect(decodeUnreserved('plain')).toBe('plain');
  });
});

describe('identity: a workspace name is trimmed and case-folded', () => {
  it('makes acme, Acme, ACME and " acme " one workspace', () => {
    const id = workspaceId({ baseUrl: 'https://h.example', apiKey: 'k1', workspace: 'acme' });
    expect(id).toBe('https://h.example#ws:acme');
    for (const name of ['Acme', 'ACME', ' acme ', '\tAcMe\n'])
      expect(workspaceId({ baseUrl: 'https://h.example', apiKey: 'k2', workspace: name })).toBe(id);
    expect(workspaceId({ baseUrl: 'https://h.example', apiKey: 'k2', workspace: 'acme2' })).not.toBe(id);
  });

  it('folds case and the Unicode form of a name, and keeps its inner characters', () => {
    expect(workspaceName('  Sales.EU_1 ')).toBe('sales.eu_1');
    expect(workspaceName('Cafe\u0301')).toBe(workspaceName('caf\u00e9'));
    expect(workspaceName('Cafe\u0301')).toBe('caf\u00e9');
    expect(workspaceName('a b')).toBe('a b');
    expect(workspaceName('   ')).toBe('');
  });

  it('names the ids an older schedctl gave a workspace, so their records are adopted', () => {
    expect(formerWorkspaceIds({ baseUrl: 'https://h.example', apiKey: 'k', workspace: ' Acme ' })).toEqual([
      'https://h.example#ws:Acme',
    ]);
    expect(formerWorkspaceIds({ baseUrl: 'https://h.example', apiKey: 'k', workspace: 'acme' })).toEqual([]);
    expect(formerWorkspaceIds({ baseUrl: 'https://h.example/%61pi/', apiKey: 'k' })).toEqual([
      `https://h.example/%61pi#key:${keyFingerprint('k')}`,
    ]);
    expect(formerWorkspaceIds({ baseUrl: 'http://localhost:4010/a%2fb', apiKey: 'k', workspace: 'w' })).toEqual([
      'http://loopback:4010/a%2fb#ws:w',
    ]);
    expect(formerWorkspaceIds({ baseUrl: 'https://h.example:8443/api', apiKey: 'k' })).toEqual([]);
    expect(formerWorkspaceIds({ baseUrl: ' not a url ', apiKey: 'k', workspace: 'X' })).toEqual(['not a url#ws:X']);
  });
});

describe('identity: a lead is its normalised email', () => {
  it('trims and lower-cases; a +tag is another address', () => {
    expect(leadId('  Ada@Acme.COM ')).toBe('ada@acme.com');
    expect(sameLead('Ada@Acme.com', 'ada@acme.com ')).toBe(true);
    expect(sameLead('ada+x@acme.com', 'ada@acme.com')).toBe(false);
  });
});

describe('identity: an event is its eventId', () => {
  const aliases = { 'intro-call': EVENT, [LINK]: EVENT };

  it('resolves a uuid to itself (lower-cased), a known slug or link through the aliases, anything else to nothing', () => {
    expect(resolveEventId(EVENT.toUpperCase(), {})).toBe(EVENT);
    expect(resolveEventId(` ${EVENT} `, {})).toBe(EVENT);
    expect(resolveEventId(`${EVENT}0`, {})).toBeUndefined();
    expect(resolveEventId(`0${EVENT}`, {})).toBeUndefined();
    expect(resolveEventId(' Intro-Call ', aliases)).toBe(EVENT);
    expect(resolveEventId(LINK, aliases)).toBe(EVENT);
    expect(resolveEventId('intro-call', {})).toBeUndefined();
    expect(resolveEventId('not-a-uuid-7a3c9f10-1b2d-4e5f-8a9b-0c1d2e3f4a5b', {})).toBeUndefined();
    expect(resolveEventId('constructor', {})).toBeUndefined();
  });

  it('compares an argument with a meeting by id, alias or the very string it was booked with', () => {
    const meeting = { eventId: EVENT, typed: 'intro-call' };
    expect(sameEvent(EVENT, meeting, {})).toBe(true);
    expect(sameEvent('INTRO-CALL', meeting, {})).toBe(true);
    expect(sameEvent(LINK, meeting, aliases)).toBe(true);
    expect(sameEvent(LINK, meeting, {})).toBe(false);
    expect(sameEvent('demo', meeting, aliases)).toBe(false);
    expect(sameEvent('intro-call', { eventId: EVENT.toUpperCase() }, aliases)).toBe(true);
    expect(sameEvent('intro-call', { eventId: EVENT }, {})).toBe(false);
    expect(eventAliasKey(' A-b ')).toBe('a-b');
  });
});

describe('workspace ids, their URL, and the records no profile could take', () => {
  it('spells the ids a key and a name start, and reads the URL back from any id', () => {
    expect(keyIdOf('https://x', 'f1')).toBe('https://x#key:f1');
    expect(namedIdOf('https://x', 'acme')).toBe('https://x#ws:acme');
    expect(urlOfWorkspace('https://x/api#ws:acme')).toBe('https://x/api');
    expect(urlOfWorkspace('https://x/api#key:f1')).toBe('https://x/api');
    expect(urlOfWorkspace('https://x/api')).toBe('https://x/api');
  });

  it('files unattributed records under the URL normalised', () => {
    expect(unattributedScope('http://127.0.0.1:4010/')).toBe('http://loopback:4010#unattributed');
    expect(unattributedScope('https://API.example.com:443/%61pi')).toBe('https://api.example.com/api#unattributed');
  });

  // The scope records were written under before workspaces: `<profile>@<base URL as the profile
  // held it>`, `env` for a key from the environment (adopted into the workspace on first use).
  it('splits a legacy scope at its first @ (a profile name has none); anything else is not one', () => {
    expect(splitLegacyScope('prod@https://u@x')).toEqual({
      profileName: 'prod',
      baseUrl: 'https://u@x',
    });
    expect(splitLegacyScope('env@http://x')).toEqual({ profileName: 'env', baseUrl: 'http://x' });
    expect(splitLegacyScope('@http://x')).toBeUndefined();
    expect(splitLegacyScope('no-at-all')).toBeUndefined();
  });
});
