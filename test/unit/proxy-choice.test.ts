/**
 * Which requests go through a proxy (src/api/transport.ts): never loopback, whatever the proxy
 * variables say (as Go's net/http); and a key is never written in clear to a proxy or to a
 * host that is not loopback.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLoopbackHost, proxyFor, refuseCleartextKey } from '../../src/api/transport.js';

const VARS = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
];
let saved: Record<string, string | undefined>;
beforeEach(() => {
  saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
  for (const v of VARS) delete process.env[v];
});
afterEach(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
});

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', '127.0.0.1', '127.1.2.3', '[::1]', '::1', '[::ffff:7f00:1]'])(
    '%s is loopback',
    (host) => expect(isLoopbackHost(host)).toBe(true),
  );
  it.each([
    'api.example.com',
    '10.0.0.1',
    '128.0.0.1',
    '[::2]',
    'localhost.example.com',
    'app.localhost',
    '[::ffff:a00:1]',
  ])('%s is not', (host) => expect(isLoopbackHost(host)).toBe(false));
});

describe('proxyFor', () => {
  it('never proxies loopback, whatever HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY say', () => {
    Object.assign(process.env, {
      HTTP_PROXY: 'http://proxy:3128',
      HTTPS_PROXY: 'http://proxy:3128',
      ALL_PROXY: 'http://proxy:3128',
      NO_PROXY: 'example.com',
    });
    for (const url of ['http://127.0.0.1:4010', 'http://localhost:4010', 'https://localhost', 'http://[::1]:9'])
      expect(proxyFor(url), url).toBeUndefined();
    expect(proxyFor('https://api.example.net')?.host).toBe('proxy:3128');
  });
});

describe('refuseCleartextKey', () => {
  const auth = { authorization: 'Bearer sk_test_x' };
  const proxy = new URL('http://proxy:3128');
  it('lets a key go to loopback directly, and over https anywhere, proxied or not', () => {
    expect(() => refuseCleartextKey(new URL('http://127.0.0.1:4010/v1'), undefined, auth)).not.toThrow();
    expect(() => refuseCleartextKey(new URL('https://api.example.com/v1'), proxy, auth)).not.toThrow();
  });
  it('refuses plain http to another host, or through a proxy: exit 2, naming the host, never the key', () => {
    for (const [url, via] of [
      ['http://api.example.com/v1', undefined],
      ['http://127.0.0.1:4010/v1', proxy],
    ] as const) {
      let error: unknown;
      try {
        refuseCleartextKey(new URL(url), via, auth);
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: 'INSECURE_BASE_URL', exitCode: 2 });
      expect((error as Error).message).toContain(`plain http:// to ${new URL(url).host}`);
      expect((error as Error).message).not.toContain('sk_test_x');
    }
  });
  it('has nothing to refuse without a key', () => {
    expect(() => refuseCleartextKey(new URL('http://api.example.com/'), proxy, {})).not.toThrow();
  });
});
