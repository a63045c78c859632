/**
 * What things are, not how they were typed (shared/ledger-rules.md, "Identities"). Every
 * comparison of the lead ledger goes through here:
 * - a workspace is what an API key reaches at an API: the normalised base URL plus the key's
 *   fingerprint (never the key), or an explicit workspace name that joins several keys of one
 *   organisation; never the profile's name;
 * - a lead is its email, trimmed and lower-cased (a `+tag` is another address);
 * - an event is its eventId; a slug or a scheduling link resolves to it through the aliases the
 *   slots results and the booked meetings taught the ledger.
 * Pure: unit-tested and mutation-tested on its own.
 */
import { createHash } from 'node:crypto';

/**
 * Loopback names and addresses are one host: `localhost`, 127.0.0.0/8, `::1`, and 127.x mapped
 * into IPv6. The host is as URL writes it (lower case, IPv4 in four decimal parts, IPv6
 * compressed: `[::1]`, `[::ffff:7f00:1]`), so exact comparisons suffice.
 */
function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '[::1]') return true;
  const parts = host.split('.');
  if (parts[0] === '127' && parts.every((p) => /^\d+$/.test(p))) return true;
  return host.startsWith('[::ffff:7f');
}

/**
 * The base URL as one spelling: lower-case scheme and host (URL does that), default port
 * dropped, loopback written `loopback`, `.`/`..` segments resolved (URL does that),
 * percent-encoded unreserved characters decoded and other escapes in upper case (RFC 3986
 * 6.2.2: `/%61pi` is `/api`, `%2f` is `%2F`), no trailing slash, path kept (it is
 * case-sensitive). A string that is not a URL is returned trimmed: it can only equal itself.
 */
export function normaliseBaseUrl(raw: string): string {
  return normalise(raw, decodeUnreserved);
}

/** normaliseBaseUrl with the path's escapes treated by `escapes` (kept as typed: an older schedctl's ids). */
function normalise(raw: string, escapes: (path: string) => string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw.trim();
  }
  const host = isLoopbackHost(url.hostname) ? 'loopback' : url.hostname;
  // URL drops a scheme's default port itself (https://x:443 has port '').
  const port = url.port === '' ? '' : `:${url.port}`;
  const path = escapes(url.pathname).replace(/\/+$/, '');
  return `${url.protocol}//${host}${port}${path}`;
}

/** RFC 3986's unreserved characters: an escape of one of them is the character itself (2.3). */
const UNRESERVED = /^[A-Za-z0-9._~-]$/;

/** `%61` is `a`, `%7e` is `~`; an escape of anything else stays, its hex digits in upper case. */
export function decodeUnreserved(path: string): string {
  return path.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const ch = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

/** Identifies a key without revealing it: 16 hex digits of its sha256. */
export function keyFingerprint(apiKey: string): string {
  return createHash('sha256').update(apiKey.trim()).digest('hex').slice(0, 16);
}

export interface WorkspaceInput {
  baseUrl: string;
  apiKey: string;
  /** An explicit workspace name (`profile add --workspace`): profiles with other keys join it. */
  workspace?: string | undefined;
}

/**
 * A workspace name as one spelling: trimmed, in Unicode's composed form, case-folded
 * (`Acme`, ` acme ` and `ACME` are one workspace: a name joins keys, it never forks one).
 */
export const workspaceName = (name: string): string => name.trim().normalize('NFC').toLowerCase();

/** The id of the workspace a key starts (the URL normalised): `<url>#key:<fingerprint>`. */
export const keyIdOf = (url: string, fingerprint: string): string => `${url}#key:${fingerprint}`;
/** The id of the workspace a name starts (the URL normalised, the name folded): `<url>#ws:<name>`. */
export const namedIdOf = (url: string, name: string): string => `${url}#ws:${name}`;

/**
 * The id a workspace starts with: `<url>#key:<fingerprint>`, or `<url>#ws:<name>` when named
 * (the name folded). Once a key is recorded (state/workspaces.ts) the record decides: a rotated
 * key or a name may have joined it to another.
 */
export function workspaceId(input: WorkspaceInput): string {
  const url = normaliseBaseUrl(input.baseUrl);
  const name = workspaceName(input.workspace ?? '');
  return name ? namedIdOf(url, name) : keyIdOf(url, keyFingerprint(input.apiKey));
}

/** The URL part of a workspace id (everything before `#`). */
export const urlOfWorkspace = (workspace: string): string => workspace.replace(/#.*$/s, '');

/**
 * Where records from before workspaces go when no profile of the config directory has their
 * name and URL: visible to every workspace at that URL, blocking a booking of their lead until
 * resolved (state/ledger.ts).
 */
export const unattributedScope = (url: string): string => `${normaliseBaseUrl(url)}#unattributed`;

/** A legacy scope split back into the profile name and the URL as the profile held it. */
export function splitLegacyScope(scope: string): { profileName: string; baseUrl: string } | undefined {
  const at = scope.indexOf('@');
  return at > 0 ? { profileName: scope.slice(0, at), baseUrl: scope.slice(at + 1) } : undefined;
}

/**
 * The ids an older schedctl gave this workspace, where they differ from today's: the path's
 * escapes kept as typed, and the name only trimmed (case counted). Their records are adopted
 * into today's id, so folding a name or an escape loses nothing on record.
 */
export function formerWorkspaceIds(input: WorkspaceInput): string[] {
  const current = workspaceId(input);
  const url = normalise(input.baseUrl, (path) => path);
  const name = input.workspace?.trim();
  const former = name ? `${url}#ws:${name}` : `${url}#key:${keyFingerprint(input.apiKey)}`;
  return former === current ? [] : [former];
}

/** A lead's identity. */
export const leadId = (email: string): string => email.trim().toLowerCase();
export const sameLead = (a: string, b: string): boolean => leadId(a) === leadId(b);

/**
 * The eventId an event argument stands for: itself when it is the id, else what the aliases
 * know (slugs, scheduling link ids and link slugs, as slots results and meetings taught them).
 * A uuid that an alias maps (a scheduling link id) resolves through the alias.
 */
export function resolveEventId(arg: string, aliases: Readonly<Record<string, string>>): string | undefined {
  const key = eventAliasKey(arg);
  if (Object.hasOwn(aliases, key)) return aliases[key];
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(arg.trim())
    ? arg.trim().toLowerCase()
    : undefined;
}

/** Slugs compare without case; uuids are lower-cased. */
export const eventAliasKey = (arg: string): string => arg.trim().toLowerCase();

/**
 * Whether `arg` names the event `eventId`: the id itself, an alias of it, or the very string a
 * meeting was booked with (`typed`).
 */
export function sameEvent(
  arg: string,
  meeting: { eventId: string; typed?: string | undefined },
  aliases: Readonly<Record<string, string>>,
): boolean {
  if (meeting.typed !== undefined && eventAliasKey(meeting.typed) === eventAliasKey(arg)) return true;
  return resolveEventId(arg, aliases) === meeting.eventId.toLowerCase();
}
