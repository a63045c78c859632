/** `sk_live_abcdef123456` -> `sk_…3456`: enough to tell keys apart, never enough to use one. */
export function maskKey(key: string): string {
  const prefix = /^[a-z]{2,4}_/i.exec(key)?.[0] ?? '';
  const tail = key.length >= 12 ? key.slice(-4) : '';
  return `${prefix}…${tail}`;
}

/** Replace every occurrence of each secret in text (for --debug logs and error messages). */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join(maskKey(secret));
  }
  return out;
}

/**
 * Masks anything shaped like an API key (`sk_…`) in text we did not write ourselves:
 * commander's own errors echo the offending argument (`unknown option '--token=sk_live_…'`),
 * and a key typed as an argument must never be printed back.
 */
export function redactKeyLike(text: string): string {
  return text.replace(/\bsk_[A-Za-z0-9_]+/g, (key) => maskKey(key));
}

/**
 * The one way a URL is shown (messages, `--json`, MCP results): never with what could be a user
 * name or password in front of its host, in any spelling. Not only what the URL parser calls
 * userinfo: `http://u:s3cr3t%40host:4010` has no `@` (the `@` is percent-encoded, so the parser
 * reads host `u` and a port it refuses), yet its author put a password there. So the authority is
 * judged as text: everything up to its last `@` or `%40` is userinfo; without one, a `:` not
 * followed by a port (digits) starts a password. Both are shown as `***`. (Here, beside the key
 * masks: the front of the bundle shows commander's errors through them too.)
 */

/** `scheme:` and its slashes (the WHATWG parser takes `http:u@h`, `http:/u@h`, `http:\\u@h` too), then the authority. */
// Leading spaces and control characters: the parser strips them, so they hide nothing.
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const AUTHORITY = /^([\x00-\x20]*[a-z][a-z0-9+.-]*:[/\\]*)([^/?#\\]*)/i;

/** A URL as it may be shown: anything that could be userinfo replaced by `***`. */
export function showUrl(raw: string): string {
  const m = AUTHORITY.exec(raw);
  if (!m) return raw;
  const [whole, scheme, authority] = m as unknown as [string, string, string];
  // eslint-disable-next-line no-control-regex -- as above.
  const shownScheme = scheme.replace(/[\x00-\x20]/g, '');
  return `${shownScheme}${showAuthority(authority, /postgres(ql)?:/i.test(shownScheme))}${raw.slice(whole.length)}`;
}

/**
 * `keepUser`: a database URL's user name alone is shown (`postgres://schedctl@db/ledger`, as
 * team-state messages name it: a role, not a secret); a password, or anything like one, never.
 */
function showAuthority(authority: string, keepUser: boolean): string {
  // The last `@` or `%40`: a password may hold either; the host never does.
  const at = /(.*)(@|%40)/is.exec(authority);
  if (at) {
    const user = at[1] as string;
    const shown = keepUser && !/:|%3a|@|%40/i.test(user) ? user : '***';
    return `${shown}@${authority.slice(at[0].length)}`;
  }
  // A `:` (or `%3A`) followed by anything but a port: `u:secret` with the `@` left out, or lost.
  // An IPv6 literal's colons are its own: judged without it.
  const rest = authority.replace(/^\[[^\]]*\]/, '');
  const colon = /:|%3a/i.exec(rest);
  if (!colon || /^\d*$/.test(rest.slice(colon.index + colon[0].length))) return authority;
  return `${authority.slice(0, authority.length - rest.length + colon.index)}:***`;
}

/**
 * A URL that was refused, as its refusal names it: showUrl's, and without its query or fragment
 * (`?…`), which may hold anything (`?x=u:s3cr3t@h`), and which the refusal is often about.
 */
export function showRefusedUrl(raw: string): string {
  const shown = showUrl(raw);
  const m = AUTHORITY.exec(shown);
  const start = m ? m[0].length : 0;
  const cut = shown.slice(start).search(/[?#]/);
  return cut < 0 ? shown : `${shown.slice(0, start + cut)}${shown[start + cut]}…`;
}

/** Whether the text of a URL has anything that showUrl would not show. */
export const hidesSomething = (raw: string): boolean => showUrl(raw) !== raw;

/** Whether the authority, as text, holds an `@` or a percent-encoded one (`%40`): userinfo, however the parser reads it. */
export function hasAtInAuthority(raw: string): boolean {
  const m = AUTHORITY.exec(raw);
  return m !== null && /@|%40/i.test(m[2] as string);
}

/** Anything in `text` that looks like a URL (a scheme and slashes, or http(s): alone), shown as showUrl shows it. */
const URL_IN_TEXT = /\b(?:[a-z][a-z0-9+.-]*:[/\\]+|https?:)[^\s"'`<>]*/gi;
export function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => showUrl(url));
}
