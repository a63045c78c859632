/**
 * No URL with userinfo is ever quoted (issue 44, 5): the whole table of spellings, percent-encoded
 * `@` and `:` included, through every function that shows a URL: showUrl and the last net under
 * every message (redactUrls: error documents, commander's errors, MCP results), the profile views'
 * withoutUserinfo, checkBaseUrl's and refuseUserinfo's refusals, the state URL's redactStateUrl.
 */
import { describe, expect, it } from 'vitest';
import { hasAtInAuthority, maskKey, redact, redactKeyLike, redactUrls, showUrl } from '../../src/config/mask.js';
import { checkBaseUrl, hasUserinfo, refuseUserinfo, withoutUserinfo } from '../../src/config/target.js';
import { redactStateUrl } from '../../src/config/state-url.js';

const PW = 's3cr3tPW';
/** Every spelling a password has been seen in, or could be. */
export const SPELLINGS = [
  `http://u:${PW}@127.0.0.1:4010`,
  `http://u:${PW}%40127.0.0.1:4010`,
  `http://u:${PW}%40127.0.0.1`,
  `http://u%3A${PW}%40127.0.0.1:4010`,
  `http://u%3a${PW}@127.0.0.1:4010`,
  `http://u%3A${PW}@127.0.0.1:4010`,
  `http://:${PW}@127.0.0.1:4010`,
  `http://${PW}@127.0.0.1:4010`,
  `http://${PW}%40127.0.0.1:4010`,
  `http:u:${PW}@127.0.0.1:4010`,
  `http:/u:${PW}@127.0.0.1:4010`,
  `http:\\\\u:${PW}@127.0.0.1:4010`,
  `http:\\\\u:${PW}%40127.0.0.1:4010`,
  `HTTP://u:${PW}@127.0.0.1`,
  `https://u:${PW}%40x@127.0.0.1`,
  `https://u:${PW}@x%40127.0.0.1`,
  `http://u:${PW}@@127.0.0.1`,
  `http://u:${PW}`,
  `http://u:${PW}/path`,
  `  http://u:${PW}@127.0.0.1  `,
  `http://u:${PW}%2540127.0.0.1:4010`,
  `http://u:${PW}%40[::1]:4010`,
  `http://u:${PW}@[::1]:4010`,
  `http://u:${PW}@127.0.0.1:4010/v1?x=1#f`,
  `\u0001http://u:${PW}@127.0.0.1/x`,
  `postgres://u:${PW}@db.example/ledger`,
  `postgres://u:${PW}%40db.example/ledger`,
  `postgresql://u%3A${PW}@db.example:5432/ledger`,
];

describe('no URL with userinfo is ever quoted, in any spelling', () => {
  it.each(SPELLINGS)('%s: no function that shows a URL shows the password', (url) => {
    const shown = [
      showUrl(url),
      withoutUserinfo(url),
      redactUrls(`error: at ${url} (from "${url}")`),
      redactUrls(`'${url}'`),
      redactStateUrl(url),
    ];
    for (const text of shown) expect(text, text).not.toContain(PW);
    for (const source of ['--base-url', 'SCHEDCTL_BASE_URL', 'profile "p"', 'the default base URL']) {
      let error: { message: string; hint?: string; exitCode?: number } | undefined;
      try {
        checkBaseUrl(url, source);
      } catch (e) {
        error = e as typeof error;
      }
      // Refused (exit 2), saying where it came from, never the password.
      expect(error?.exitCode, url).toBe(2);
      expect(`${error?.message} ${error?.hint}`).not.toContain(PW);
      expect(error?.message).toContain(source);
    }
  });

  it('a percent-encoded @ where userinfo would be is userinfo: refused as such', () => {
    expect(hasUserinfo(`http://u:${PW}%40127.0.0.1:4010`)).toBe(true);
    expect(hasAtInAuthority(`http://u:${PW}%40127.0.0.1:4010`)).toBe(true);
    expect(hasAtInAuthority('https://api.example.com/a%40b')).toBe(false);
    expect(hasAtInAuthority('not a url')).toBe(false);
    expect(() => refuseUserinfo(`http://u:${PW}%40127.0.0.1:4010`, '--base-url')).toThrow(
      'the base URL from --base-url carries a user name or password',
    );
  });

  it('shows what is no secret as it is: hosts, ports, paths, an @ or %40 past the authority, a database user alone', () => {
    for (const url of [
      'https://api.example.com',
      'http://127.0.0.1:4010/v1/triggers?x=a@b#c@d',
      'https://api.example.com/a%40b',
      'http://[::1]:4010',
      'http://host:',
      'mailto',
      'postgres://schedctl@db.example/ledger',
      'postgres://',
    ])
      expect(showUrl(url)).toBe(url);
    expect(showUrl('http://u:p@h')).toBe('http://***@h');
    expect(showUrl('http://u:secret')).toBe('http://u:***');
    expect(showUrl('http://u%3Asecret')).toBe('http://u:***');
    expect(showUrl('http://[::1]:secret')).toBe('http://[::1]:***');
    expect(showUrl('http:u:p@h')).toBe('http:***@h');
    expect(showUrl('https://a@b%40h/p')).toBe('https://***@h/p');
    expect(showUrl('postgres://u:p@h/d')).toBe('postgres://***@h/d');
    expect(showUrl('postgres://u%40x@h/d')).toBe('postgres://***@h/d');
    expect(showUrl('POSTGRESQL://role@h/d')).toBe('POSTGRESQL://role@h/d');
    expect(showUrl('https://user@h')).toBe('https://***@h');
    expect(redactUrls('see http://u:p@h and https://ok.example/x, not a:b@c')).toBe(
      'see http://***@h and https://ok.example/x, not a:b@c',
    );
    expect(redactUrls('no url at 10:30, x@acme.example')).toBe('no url at 10:30, x@acme.example');
  });
});

describe('the masks beside it (config/mask.ts)', () => {
  it('maskKey keeps a leading prefix and the last four of a key of 12 or more', () => {
    expect(maskKey('sk_123456789')).toBe('sk_…6789');
    expect(maskKey('sk_12345678')).toBe('sk_…');
    expect(maskKey('12sk_abcdefghij')).toBe('…ghij');
    expect(maskKey('abcde_fghijklmn')).toBe('…klmn');
    expect(maskKey('SK_LIVE_abcdefgh')).toBe('SK_…efgh');
  });
  it('redact masks every secret of four characters or more, everywhere it is', () => {
    expect(redact('abc and abcd, abcd', ['abc', 'abcd'])).toBe('abc and …, …');
    expect(redact('x sk_live_0123456789ab y', ['sk_live_0123456789ab'])).toBe('x sk_…89ab y');
  });
  it('redactKeyLike masks anything shaped like a key, not a word that merely contains sk_', () => {
    expect(redactKeyLike("unknown option '--token=sk_live_0123456789ab'")).toBe("unknown option '--token=sk_…89ab'");
    expect(redactKeyLike('ask_me and sk_ alone')).toBe('ask_me and sk_ alone');
    expect(redactKeyLike('no key')).toBe('no key');
  });
  it('showUrl: leading spaces and controls go; a postgresql role stays; an IPv6 literal is the host', () => {
    expect(showUrl('  \u0001http://u:p@h')).toBe('http://***@h');
    expect(showUrl('postgresql://role@h/d')).toBe('postgresql://role@h/d');
    expect(showUrl('postgresql://role:pw@h/d')).toBe('postgresql://***@h/d');
    expect(showUrl('http://[::1]')).toBe('http://[::1]');
    expect(showUrl('http://[::1]:4010/x')).toBe('http://[::1]:4010/x');
    expect(showUrl('http://[::1]x:secret')).toBe('http://[::1]x:***');
    expect(showUrl('http://h%3Asecret/p')).toBe('http://h:***/p');
    expect(hasAtInAuthority('http://h/%40')).toBe(false);
    expect(hasAtInAuthority('http://a%40h')).toBe(true);
  });
});
