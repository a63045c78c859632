import { describe, expect, it } from 'vitest';
import { maskKey, redact } from '../../src/config/mask.js';
import { checkBaseUrl, DEFAULT_BASE_URL, resolveTarget, withoutUserinfo } from '../../src/config/target.js';
import { capRetryAfter, MAX_RETRY_AFTER_SECONDS, parseRetryAfter } from '../../src/api/failures.js';
import { colorLevel } from '../../src/ui/ui.js';

const profiles = {
  prod: { baseUrl: 'https://api.example.com', apiKey: 'sk_live_prod_1234567890abcd' },
  stage: { baseUrl: 'https://stage.example.com', apiKey: 'sk_test_stage_0987654321wxyz' },
};

describe('resolveTarget precedence', () => {
  it('uses the default profile when nothing else is said', () => {
    const t = resolveTarget({ env: {}, defaultProfile: 'prod', profiles });
    expect(t).toMatchObject({
      profileName: 'prod',
      baseUrl: 'https://api.example.com',
      keySource: 'profile',
      notes: [],
    });
  });
  it('prefers --profile over SCHEDCTL_PROFILE over the default', () => {
    expect(resolveTarget({ env: { SCHEDCTL_PROFILE: 'stage' }, defaultProfile: 'prod', profiles }).profileName).toBe(
      'stage',
    );
    expect(
      resolveTarget({ flagProfile: 'prod', env: { SCHEDCTL_PROFILE: 'stage' }, defaultProfile: 'stage', profiles })
        .profileName,
    ).toBe('prod');
  });
  it('prefers SCHEDCTL_API_KEY over the profile key and notes the disagreement', () => {
    const t = resolveTarget({ env: { SCHEDCTL_API_KEY: 'sk_env_key_555566667777' }, defaultProfile: 'prod', profiles });
    expect(t.apiKey).toBe('sk_env_key_555566667777');
    expect(t.notes[0]).toContain('SCHEDCTL_API_KEY');
    expect(t.notes[0]).not.toContain('555566667777');
  });
  it('prefers --base-url over SCHEDCTL_BASE_URL over the profile, else the local sandbox', () => {
    const env = { SCHEDCTL_BASE_URL: 'https://env.example.com' };
    expect(resolveTarget({ env, defaultProfile: 'prod', profiles }).baseUrl).toBe('https://env.example.com');
    expect(
      resolveTarget({ flagBaseUrl: 'https://flag.example.com/', env, defaultProfile: 'prod', profiles }).baseUrl,
    ).toBe('https://flag.example.com');
    expect(
      resolveTarget({ env: { SCHEDCTL_API_KEY: 'sk_x_123456789012' }, defaultProfile: undefined, profiles: {} })
        .baseUrl,
    ).toBe(DEFAULT_BASE_URL);
  });
  it('fails with exit 3 and a way out when there is no key anywhere', () => {
    expect(() => resolveTarget({ env: {}, defaultProfile: undefined, profiles: {} })).toThrow(/no API key configured/);
  });
  it('names the source of an unknown profile', () => {
    expect(() => resolveTarget({ env: { SCHEDCTL_PROFILE: 'nope' }, defaultProfile: 'prod', profiles })).toThrow(
      /from SCHEDCTL_PROFILE/,
    );
  });
});

describe('resolveTarget: a flag wins over the environment (issue 25)', () => {
  const env = { SCHEDCTL_API_KEY: 'sk_env_key_555566667777', SCHEDCTL_BASE_URL: 'https://env.example.com' };
  it('--profile takes its own key and URL, setting the environment aside with a note', () => {
    const t = resolveTarget({ flagProfile: 'stage', env, defaultProfile: 'prod', profiles });
    expect(t).toMatchObject({
      profileName: 'stage',
      apiKey: profiles.stage.apiKey,
      keySource: 'profile',
      baseUrl: 'https://stage.example.com',
      baseUrlSource: 'profile',
    });
    expect(t.notes).toEqual(['--profile stage wins over SCHEDCTL_API_KEY and SCHEDCTL_BASE_URL in the environment']);
  });
  it('--base-url still wins over --profile', () => {
    const t = resolveTarget({
      flagProfile: 'stage',
      flagBaseUrl: 'https://flag.example.com',
      env,
      defaultProfile: 'prod',
      profiles,
    });
    expect(t).toMatchObject({ apiKey: profiles.stage.apiKey, baseUrl: 'https://flag.example.com' });
  });
  it('SCHEDCTL_PROFILE is the environment too: the key and URL from the environment win over it', () => {
    const t = resolveTarget({ env: { ...env, SCHEDCTL_PROFILE: 'stage' }, defaultProfile: 'prod', profiles });
    expect(t).toMatchObject({ profileName: 'stage', apiKey: env.SCHEDCTL_API_KEY, baseUrl: env.SCHEDCTL_BASE_URL });
  });
});

describe('base URLs with user:password@', () => {
  const withPassword = 'https://alice:s3cret-pw@api.example.com';
  it.each([
    ['--base-url', { flagBaseUrl: withPassword, env: {} }],
    ['SCHEDCTL_BASE_URL', { env: { SCHEDCTL_BASE_URL: withPassword } }],
    ['profile "prod"', { env: {}, profilesOverride: { prod: { ...profiles.prod, baseUrl: withPassword } } }],
  ] as const)('are refused from %s, exit 2, the URL never shown', (source, input) => {
    let error: unknown;
    try {
      resolveTarget({
        ...input,
        env: { SCHEDCTL_API_KEY: 'sk_x_123456789012', ...input.env },
        defaultProfile: 'prod',
        profiles: 'profilesOverride' in input ? input.profilesOverride : profiles,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ exitCode: 2 });
    expect((error as Error).message).toContain(`the base URL from ${source} carries a user name or password`);
    expect(JSON.stringify(error) + (error as Error).message + ((error as { hint?: string }).hint ?? '')).not.toMatch(
      /alice|s3cret/,
    );
  });
  it('are refused even when the rest does not parse, and shown masked where a stored one is listed', () => {
    expect(() => checkBaseUrl('https://a:b c@ho st', '--base-url')).toThrow(/carries a user name or password/);
    expect(withoutUserinfo(withPassword)).toBe('https://***@api.example.com');
    expect(withoutUserinfo('https://api.example.com/a@b')).toBe('https://api.example.com/a@b');
  });
});

describe('checkBaseUrl', () => {
  it('allows https anywhere and http only on loopback', () => {
    expect(checkBaseUrl('https://api.example.com/', 'x')).toBe('https://api.example.com');
    expect(checkBaseUrl('http://127.0.0.1:4010', 'x')).toBe('http://127.0.0.1:4010');
    expect(checkBaseUrl('http://localhost:8080/base/', 'x')).toBe('http://localhost:8080/base');
    expect(checkBaseUrl('http://[::1]:9', 'x')).toBe('http://[::1]:9');
    expect(() => checkBaseUrl('http://api.example.com', 'x')).toThrow(/plain http/);
    expect(() => checkBaseUrl('ftp://x', 'x')).toThrow(/scheme/);
    expect(() => checkBaseUrl('not a url', '--base-url')).toThrow(/from --base-url/);
  });
});

describe('secrets', () => {
  it('masks keys to a prefix and the last four characters', () => {
    expect(maskKey('sk_live_abcdef123456')).toBe('sk_…3456');
    expect(maskKey('short')).toBe('…');
    expect(redact('Bearer sk_live_abcdef123456 here', ['sk_live_abcdef123456'])).toBe('Bearer sk_…3456 here');
  });
});

describe('Retry-After parsing', () => {
  it('accepts whole seconds; negative, fractional and malformed values are ignored', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(' 0 ')).toBe(0);
    expect(parseRetryAfter('-5')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('1.5')).toBeUndefined();
    expect(parseRetryAfter('1e9')).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
  it('reads an HTTP-date, counted from the response Date when there is one; a past date is 0', () => {
    const now = Date.parse('2031-03-03T08:00:00Z');
    expect(parseRetryAfter('Mon, 03 Mar 2031 08:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Mon, 03 Mar 2031 08:00:30 GMT', 0, 'Mon, 03 Mar 2031 08:00:20 GMT')).toBe(10);
    expect(parseRetryAfter('Mon, 03 Mar 2031 07:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', now)).toBeGreaterThan(1e9);
    expect(parseRetryAfter('Mon, 99 Foo 2031 garbage', now)).toBeUndefined();
    expect(parseRetryAfter('2031-03-03T08:00:30Z', now)).toBeUndefined();
  });
  it('is capped at the API window for what is recorded and shown', () => {
    expect(capRetryAfter(5)).toBe(5);
    expect(capRetryAfter(999_999)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(MAX_RETRY_AFTER_SECONDS).toBe(60);
  });
});

describe('colorLevel', () => {
  it('colors only a TTY, honoring --no-color, NO_COLOR and FORCE_COLOR', () => {
    expect(colorLevel(true, { level: 2 }, {}, { color: true })).toBe(2);
    expect(colorLevel(false, { level: 2 }, {}, { color: true })).toBe(0);
    expect(colorLevel(true, { level: 2 }, { NO_COLOR: '1' }, { color: true })).toBe(0);
    expect(colorLevel(true, { level: 2 }, {}, { color: false })).toBe(0);
    expect(colorLevel(false, false, { FORCE_COLOR: '1' }, { color: true })).toBe(1);
    expect(colorLevel(true, { level: 3 }, { FORCE_COLOR: '0' }, { color: true })).toBe(0);
  });
});
