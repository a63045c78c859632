/**
 * Which profile, key and base URL a command uses. Pure, so the precedence is unit-tested:
 *   profile  = --profile > SCHEDCTL_PROFILE > the default profile
 *   key      = SCHEDCTL_API_KEY > the profile's key
 *   base URL = --base-url > SCHEDCTL_BASE_URL > the profile's > the local sandbox
 */
import { ConfigError, UsageError } from '../errors.js';
import { maskKey } from './mask.js';
import type { Profile } from '../state/index.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';

export interface Target {
  profileName: string | undefined;
  baseUrl: string;
  apiKey: string;
  keySource: 'SCHEDCTL_API_KEY' | 'profile';
  baseUrlSource: '--base-url' | 'SCHEDCTL_BASE_URL' | 'profile' | 'default';
  /** Lines for stderr when two sources disagree, saying which one won. */
  notes: string[];
  /**
   * Requests per minute the shared rate budget allows this key (SCHEDCTL_RATE > the profile's
   * `rate` > the API's 30); 0 turns the budget off (a sandbox started with --rate-limit 0).
   */
  rate: number | undefined;
}

export interface TargetInput {
  flagProfile?: string | undefined;
  flagBaseUrl?: string | undefined;
  env: NodeJS.ProcessEnv;
  defaultProfile: string | undefined;
  profiles: Record<string, Profile>;
}

export function resolveProfileName(
  input: Pick<TargetInput, 'flagProfile' | 'env' | 'defaultProfile' | 'profiles'>,
): string | undefined {
  const explicit = input.flagProfile ?? (input.env.SCHEDCTL_PROFILE || undefined);
  if (explicit !== undefined) {
    if (!input.profiles[explicit]) {
      const source = input.flagProfile !== undefined ? '--profile' : 'SCHEDCTL_PROFILE';
      const known = Object.keys(input.profiles);
      throw new UsageError(`unknown profile "${explicit}" (from ${source})`, {
        hint: known.length
          ? `known profiles: ${known.join(', ')}; to add "${explicit}": schedctl profile add ${explicit} --key-stdin`
          : `add it with: schedctl profile add ${explicit} --key-stdin`,
      });
    }
    return explicit;
  }
  return input.defaultProfile && input.profiles[input.defaultProfile] ? input.defaultProfile : undefined;
}

export function resolveTarget(input: TargetInput): Target {
  const profileName = resolveProfileName(input);
  const profile = profileName ? input.profiles[profileName] : undefined;
  const notes: string[] = [];

  const envKey = input.env.SCHEDCTL_API_KEY?.trim();
  let apiKey: string;
  let keySource: Target['keySource'];
  if (envKey) {
    apiKey = envKey;
    keySource = 'SCHEDCTL_API_KEY';
    if (profile && profile.apiKey !== envKey) {
      notes.push(
        `using the API key from SCHEDCTL_API_KEY (${maskKey(envKey)}), not profile "${profileName}"'s (${maskKey(profile.apiKey)})`,
      );
    }
  } else if (profile) {
    apiKey = profile.apiKey;
    keySource = 'profile';
  } else {
    throw new ConfigError('NO_API_KEY', 'no API key configured', {
      hint: 'add one with `schedctl profile add default --key-stdin < key.txt` (or interactively), or set SCHEDCTL_API_KEY; to try schedctl without an account run `schedctl sandbox`',
    });
  }

  checkApiKey(apiKey, keySource === 'profile' ? { profile: profileName ?? '' } : 'SCHEDCTL_API_KEY');

  let baseUrl: string;
  let baseUrlSource: Target['baseUrlSource'];
  if (input.flagBaseUrl) {
    baseUrl = input.flagBaseUrl;
    baseUrlSource = '--base-url';
  } else if (input.env.SCHEDCTL_BASE_URL) {
    baseUrl = input.env.SCHEDCTL_BASE_URL;
    baseUrlSource = 'SCHEDCTL_BASE_URL';
  } else if (profile) {
    baseUrl = profile.baseUrl;
    baseUrlSource = 'profile';
  } else {
    baseUrl = DEFAULT_BASE_URL;
    baseUrlSource = 'default';
  }
  if (profile && baseUrlSource !== 'profile' && baseUrl !== profile.baseUrl) {
    notes.push(
      `using the base URL from ${baseUrlSource} (${baseUrl}), not profile "${profileName}"'s (${profile.baseUrl})`,
    );
  }
  baseUrl = checkBaseUrl(baseUrl, baseUrlSource === 'default' ? 'the default base URL' : baseUrlSource);
  return { profileName, baseUrl, apiKey, keySource, baseUrlSource, notes, rate: rateOf(input.env, profile) };
}

/** SCHEDCTL_RATE, else the profile's `rate`; a bad SCHEDCTL_RATE is bad input, before any request. */
export function rateOf(env: NodeJS.ProcessEnv, profile: Pick<Profile, 'rate'> | undefined): number | undefined {
  const raw = env.SCHEDCTL_RATE;
  if (raw === undefined || raw === '') return profile?.rate;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > 100_000) {
    throw new UsageError(
      `invalid SCHEDCTL_RATE "${raw}": expected requests per minute, a whole number (0 turns the shared rate budget off)`,
    );
  }
  return Number(raw);
}

/**
 * A key goes into the Authorization header as it is: a line break or another control character
 * in it (a key file with CRLF, a paste with an escape sequence) and any non-ASCII character (an
 * ellipsis copied from a masked key) cannot be sent, or would end the header early. Refused
 * before any request, naming where the key came from and which character, never the key.
 */
export function checkApiKey(key: string, from: 'SCHEDCTL_API_KEY' | { profile: string }): void {
  const bad = /[^\x20-\x7e]/.exec(key);
  if (!bad) return;
  const ch = bad[0];
  const code = ch.codePointAt(0) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const what =
    ch === '\n' || ch === '\r' || ch === '\u2028' || ch === '\u2029'
      ? `a line break (${hex})`
      : ch === '\t'
        ? 'a tab'
        : code < 0x20 || (code >= 0x7f && code <= 0x9f)
          ? `a control character (${hex})`
          : `a non-ASCII character (${hex})`;
  const source =
    from === 'SCHEDCTL_API_KEY' ? 'the SCHEDCTL_API_KEY environment variable' : `profile "${from.profile}"`;
  const fix =
    from === 'SCHEDCTL_API_KEY'
      ? 'set SCHEDCTL_API_KEY to the key alone, e.g. SCHEDCTL_API_KEY="$(tr -d \'\\r\\n\' < key.txt)"'
      : `store the key again: schedctl profile add ${from.profile} --key-stdin < key.txt`;
  throw new ConfigError(
    'CONFIG',
    `the API key from ${source} contains ${what} at position ${bad.index + 1}; refusing to send it`,
    { hint: fix },
  );
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/i;

/** Parse a base URL; refuse plain http to anything but loopback, since the key would travel in clear text. */
export function checkBaseUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(
      `invalid base URL "${raw}" (from ${source}): expected an absolute URL such as https://api.example.com`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(
      `invalid base URL "${raw}" (from ${source}): the scheme must be https:// (or http:// for a local sandbox)`,
    );
  }
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) {
    throw new UsageError(
      `refusing to send the API key over plain http:// to ${url.host} (from ${source}): it would travel unencrypted`,
      { hint: 'use https://, or http:// only for a sandbox on 127.0.0.1/localhost' },
    );
  }
  if (url.search || url.hash) {
    throw new UsageError(`invalid base URL "${raw}" (from ${source}): it must not carry a query or fragment`);
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * Which workspace local records (lost-response journal, remembered outcomes) belong to:
 * the profile (or `env` when the key came from the environment) and its base URL.
 */
export function scopeOf(target: Pick<Target, 'profileName' | 'baseUrl'>): string {
  return `${target.profileName ?? 'env'}@${target.baseUrl}`;
}

export function isLoopbackUrl(raw: string): boolean {
  try {
    return LOOPBACK.test(new URL(raw).hostname);
  } catch {
    return false;
  }
}
