import { describe, expect, it } from 'vitest';
import { maskKey, redact } from '../../src/config/mask.js';
import { checkBaseUrl, DEFAULT_BASE_URL, resolveTarget } from '../../src/config/target.js';
import { parseRetryAfter } from '../../src/api/failures.js';
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
  it('accepts whole seconds only', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(' 0 ')).toBe(0);
    expect(parseRetryAfter('-5')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('1.5')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
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
