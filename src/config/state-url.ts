/**
 * The team state's URL: `postgres://[user@]host[:port]/database[?sslmode=…]`. What it leaves out
 * comes from libpq's variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, …)
 * and ~/.pgpass, as for psql; `postgres://` alone takes everything from them. A password is
 * never printed: messages name the URL without it. Pure: no I/O, cheap to import.
 */
import { showUrl } from './mask.js';
import { UsageError } from '../errors.js';

const SCHEMES = new Set(['postgres:', 'postgresql:']);

/** The URL as messages show it: no password (in the userinfo or a `password=` parameter). */
export function redactStateUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.searchParams.delete('password');
    // And a user name that holds one (`u%3Apw@`), in config/mask.ts's one way of showing a URL.
    return showUrl(u.toString());
  } catch {
    return '(an unreadable state URL)';
  }
}

/** Validates a state URL from `source` (a flag or variable name); the URL in errors is redacted. */
export function checkStateUrl(url: string, source: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`invalid ${source}: expected postgres://[user@]host[:port]/database`);
  }
  if (!SCHEMES.has(u.protocol))
    throw new UsageError(
      `invalid ${source} "${redactStateUrl(url)}": only postgres:// (PostgreSQL) state is supported; unset it for this machine's files`,
    );
  return url;
}

/** Has the URL a password in it? A profile never stores one (the config file is not a secret store for it). */
export function hasPassword(url: string): boolean {
  try {
    const u = new URL(url);
    return u.password !== '' || u.searchParams.has('password');
  } catch {
    return false;
  }
}

/** The database's password in the URL, if any: kept out of every message that might quote it. */
export function passwordOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    const p = u.password ? decodeURIComponent(u.password) : (u.searchParams.get('password') ?? '');
    return p || undefined;
  } catch {
    return undefined;
  }
}
