/**
 * The `pg` client settings of a state URL: libpq's rules for what the URL leaves out, the
 * password from where libpq would take it, and schedctl's timeouts. The parser is passed in, so
 * the early connection (early.ts) can use the one inside the pg bundle and nothing here loads
 * a package.
 */
import type { ClientConfig } from 'pg';

/** How long a connection may take before the database counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 5000;
/** A query that takes longer fails (a black-holed network must not hang a command forever). */
export const QUERY_TIMEOUT_MS = 15_000;

export function clientConfigWith(parse: (url: string) => unknown, url: string): ClientConfig {
  // `postgres://` alone: everything from libpq's variables (pg reads PGHOST, PGUSER, … itself).
  const parsed = /^postgres(ql)?:\/\/$/.test(url) ? {} : (parse(url) as Record<string, unknown>);
  // What the URL leaves empty falls back to the environment, as in libpq.
  const fromUrl = Object.fromEntries(
    Object.entries(parsed).filter(([, v]) => v !== '' && v !== undefined && v !== null),
  );
  return {
    ...(fromUrl as ClientConfig),
    // libpq's order: the URL's password, PGPASSWORD, then the password file (~/.pgpass or
    // PGPASSFILE), read here: pg's own reading of it is deprecated and says so on stderr.
    // pg calls it with the connection's parameters (its types say no argument).
    ...(fromUrl.password === undefined
      ? { password: passwordFromEnvironment as unknown as () => Promise<string> }
      : {}),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    keepAlive: true,
    application_name: 'schedctl',
  };
}

async function passwordFromEnvironment(params: {
  host?: string;
  port?: number;
  database?: string;
  user?: string;
}): Promise<string | undefined> {
  if (process.env.PGPASSWORD !== undefined) return process.env.PGPASSWORD;
  const { default: pgpass } = await import('pgpass');
  return new Promise((resolve) => pgpass(params, resolve));
}
