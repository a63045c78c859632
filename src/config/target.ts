/**
 * Which profile, key and base URL a command uses. Pure, so the precedence is unit-tested.
 * As with the AWS CLI, what the user typed wins over the environment, and the environment's
 * key and URL win over a profile only the environment or the default named:
 *   profile  = --profile > SCHEDCTL_PROFILE > the default profile
 *   key      = --profile's key > SCHEDCTL_API_KEY > SCHEDCTL_PROFILE's or the default profile's key
 *   base URL = --base-url > --profile's URL > SCHEDCTL_BASE_URL > the profile's > the local sandbox
 */
import { ConfigError, EXIT, UsageError } from '../errors.js';
import { hasAtInAuthority, hidesSomething, maskKey, showRefusedUrl, showUrl } from './mask.js';
import { workspaceId } from '../state/identity.js';
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
  /** The profile's explicit workspace name (`profile add --workspace`), when its key is used. */
  workspace?: string | undefined;
  /** The fingerprint of the key the profile's key replaced, when its key is used: the key joins its workspace. */
  previousKey?: string | undefined;
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

/**
 * The environment's key and URL, unless a --profile flag names the profile: then that profile
 * is what the user asked for, and the shell's variables (exported for something else, perhaps
 * long ago) are set aside with a note. SCHEDCTL_PROFILE is the environment too: it does not.
 */
export function environmentTarget(
  input: Pick<TargetInput, 'flagProfile' | 'env'>,
  profileName: string | undefined,
  notes: string[],
): { envKey: string | undefined; envBaseUrl: string | undefined } {
  const envKey = input.env.SCHEDCTL_API_KEY?.trim() || undefined;
  const envBaseUrl = input.env.SCHEDCTL_BASE_URL || undefined;
  if (input.flagProfile === undefined) return { envKey, envBaseUrl };
  const ignored = [envKey && 'SCHEDCTL_API_KEY', envBaseUrl && 'SCHEDCTL_BASE_URL'].filter(Boolean);
  if (ignored.length) notes.push(`--profile ${profileName} wins over ${ignored.join(' and ')} in the environment`);
  return { envKey: undefined, envBaseUrl: undefined };
}

export function resolveTarget(input: TargetInput): Target {
  const profileName = resolveProfileName(input);
  const profile = profileName ? input.profiles[profileName] : undefined;
  const notes: string[] = [];
  const { envKey, envBaseUrl } = environmentTarget(input, profileName, notes);

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
    const known = Object.keys(input.profiles);
    throw new ConfigError('NO_API_KEY', 'no API key configured', {
      hint: known.length
        ? `no profile is the default (profiles: ${known.join(', ')}): pass --profile ${known[0]}, or make one the default: schedctl profile use ${known[0]}`
        : 'add one with `schedctl profile add default --key-stdin < key.txt` (or interactively), or set SCHEDCTL_API_KEY; to try schedctl without an account run `schedctl sandbox`',
    });
  }

  checkApiKey(apiKey, keySource === 'profile' ? { profile: profileName ?? '' } : 'SCHEDCTL_API_KEY');

  let baseUrl: string;
  let baseUrlSource: Target['baseUrlSource'];
  if (input.flagBaseUrl) {
    baseUrl = input.flagBaseUrl;
    baseUrlSource = '--base-url';
  } else if (envBaseUrl) {
    baseUrl = envBaseUrl;
    baseUrlSource = 'SCHEDCTL_BASE_URL';
  } else if (profile) {
    baseUrl = profile.baseUrl;
    baseUrlSource = 'profile';
  } else {
    baseUrl = DEFAULT_BASE_URL;
    baseUrlSource = 'default';
  }
  baseUrl = checkBaseUrl(baseUrl, baseUrlSourceLabel(baseUrlSource, profileName));
  if (profile && baseUrlSource !== 'profile' && baseUrl !== profile.baseUrl) {
    notes.push(
      `using the base URL from ${baseUrlSource} (${baseUrl}), not profile "${profileName}"'s (${withoutUserinfo(profile.baseUrl)})`,
    );
  }
  // The profile's workspace name and predecessor key go with its key, never with another.
  const workspace = keySource === 'profile' ? profile?.workspace : undefined;
  const previousKey = keySource === 'profile' ? profile?.previousKey : undefined;
  return {
    profileName,
    baseUrl,
    apiKey,
    keySource,
    baseUrlSource,
    notes,
    rate: rateOf(input.env, profile),
    ...(workspace ? { workspace } : {}),
    ...(previousKey ? { previousKey } : {}),
  };
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

/** How an error names where a base URL came from (the flag, the variable, or the stored profile). */
export function baseUrlSourceLabel(source: Target['baseUrlSource'], profileName: string | undefined): string {
  if (source === 'default') return 'the default base URL';
  if (source === 'profile') return `profile "${profileName ?? ''}"`;
  return source;
}

/**
 * Userinfo in front of the host, however it is spelled: the WHATWG URL parser (which fetch
 * uses) reads `http:u:secret@host`, `http:/u:secret@host` and `http:\\u:secret@host` as
 * `http://u:secret@host` too. Checked on the text (it may not even parse) and on the parse.
 */
const USERINFO = /^([a-z][a-z0-9+.-]*:[/\\]*)[^/?#\\]*@/i;

/** Whether a base URL carries a user name or password in any spelling the URL parser accepts. */
export function hasUserinfo(raw: string): boolean {
  if (USERINFO.test(raw.trim())) return true;
  // A percent-encoded `@` where userinfo would be (`http://u:pw%40host`): the parser sees no
  // userinfo (nor a URL), but the text holds what its author meant as a password.
  if (hasAtInAuthority(raw.trim())) return true;
  try {
    const url = new URL(raw);
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
}

/**
 * A base URL with `user:password@` is refused wherever it comes from: the key is the only
 * credential schedctl sends, and the password would be printed wherever the URL is (profile
 * ls, progress lines, errors). The message names the source, never the URL.
 */
export function refuseUserinfo(raw: string, source: string): void {
  if (!hasUserinfo(raw)) return;
  const profile = /^profile "(.*)"$/.exec(source)?.[1];
  const fix =
    source === 'SCHEDCTL_BASE_URL'
      ? 'set SCHEDCTL_BASE_URL to the URL without user:password@'
      : profile !== undefined
        ? `store the profile again with a plain URL: schedctl profile add ${profile} --base-url https://HOST --key-stdin --force < key.txt`
        : 'give the URL without user:password@ (the API key goes in a profile or SCHEDCTL_API_KEY)';
  throw new UsageError(
    `the base URL from ${source} carries a user name or password (user:password@); refusing it (not shown: it holds a secret)`,
    { hint: fix },
  );
}

/**
 * A URL as it may be shown: any `user:password@` it carries (a profile stored before they were
 * refused), in any spelling, replaced by `***@`.
 */
export function withoutUserinfo(raw: string): string {
  const text = raw.trim();
  if (USERINFO.test(text) || hidesSomething(text)) return showUrl(text);
  if (!hasUserinfo(text)) return raw;
  // The parser found userinfo the text does not show plainly (a tab inside it, a control
  // character in front): show the parse, without it.
  const url = new URL(text);
  url.username = '';
  url.password = '';
  return url.toString().replace('//', '//***@');
}

/** Parse a base URL; refuse plain http to anything but loopback, since the key would travel in clear text. */
export function checkBaseUrl(raw: string, source: string): string {
  refuseUserinfo(raw, source);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(
      `invalid base URL "${showRefusedUrl(raw)}" (from ${source}): expected an absolute URL such as https://api.example.com`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(
      `invalid base URL "${showRefusedUrl(raw)}" (from ${source}): the scheme must be https:// (or http:// for a local sandbox)`,
    );
  }
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) {
    throw new ConfigError(
      'INSECURE_BASE_URL',
      `refusing to send the API key over plain http:// to ${url.host} (from ${source}): it would travel unencrypted`,
      { hint: 'use https://, or http:// only for a sandbox on 127.0.0.1/localhost', exitCode: EXIT.usage },
    );
  }
  if (url.search || url.hash) {
    throw new UsageError(
      `invalid base URL "${showRefusedUrl(raw)}" (from ${source}): it must not carry a query or fragment`,
    );
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * Which workspace the ledger's records belong to (state/identity.ts): what the key reaches at
 * the API (normalised base URL + key fingerprint), or the profile's explicit workspace name;
 * never the profile's name, nor the URL as typed.
 */
export function scopeOf(target: Pick<Target, 'baseUrl' | 'apiKey' | 'workspace'>): string {
  return workspaceId(target);
}
