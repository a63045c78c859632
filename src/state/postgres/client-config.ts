/**
 * A state URL's `pg` settings: libpq's fall-backs and password sources, schedctl's timeouts. The
 * parser is passed in (the early connection uses the bundle's): nothing here loads a package.
 */
import type { ClientConfig } from 'pg';

/** How long a connection may take before the database counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 5000;
/** A query that takes longer fails (a black-holed network must not hang a command forever). */
export const QUERY_TIMEOUT_MS = 15_000;

/** The TLS modes pg treats as verify-full (with a raw SECURITY WARNING on stderr): tlsNote says it in schedctl's words. */
const VERIFYING_ALIASES = new Set(['prefer', 'require', 'verify-ca']);

/** The URL's sslmode when it is one of pg's aliases of verify-full (and libpq's own meaning was not asked for). */
function aliasedMode(url: string): string | undefined {
  try {
    const q = new URL(url).searchParams;
    const mode = q.get('sslmode') ?? '';
    return VERIFYING_ALIASES.has(mode) && q.get('uselibpqcompat') !== 'true' ? mode : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the URL's TLS mode verifies, in schedctl's words instead of pg's SECURITY WARNING: libpq
 * users read `require` as "check nothing", pg verifies fully. Undefined when the mode says so.
 */
export function tlsNote(url: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const mode = aliasedMode(url);
  const fromEnv =
    !mode && !/[?&]sslmode=/.test(url) && VERIFYING_ALIASES.has(env.PGSSLMODE ?? '') ? env.PGSSLMODE : undefined;
  const said = mode ? `sslmode=${mode} in the state URL` : fromEnv ? `PGSSLMODE=${fromEnv}` : undefined;
  if (!said) return undefined;
  return `note: ${said}: schedctl encrypts the connection and verifies the server's certificate (signed by a CA this machine trusts, or by the file in sslrootcert) and its host name, as sslmode=verify-full does, with no fall-back to plain text; write sslmode=verify-full to say so (with sslrootcert=<CA file> for a private CA; docs/team-state.md#tls)`;
}

/** The key exchange groups TLS offers, in order (clientConfigWith says why P-256 first). */
export const TLS_CURVES = 'P-256:X25519:P-384';

export function clientConfigWith(parse: (url: string) => unknown, url: string): ClientConfig {
  // pg treats these modes as verify-full, with a raw warning: parsed as that (tlsNote says it).
  const mode = aliasedMode(url);
  if (mode) url = url.replace(`sslmode=${mode}`, 'sslmode=verify-full');
  // `postgres://` alone: everything from libpq's variables (pg reads PGHOST, PGUSER, … itself).
  const parsed = /^postgres(ql)?:\/\/$/.test(url) ? {} : (parse(url) as Record<string, unknown>);
  // What the URL leaves empty falls back to the environment, as in libpq.
  const fromUrl = Object.fromEntries(
    Object.entries(parsed).filter(([, v]) => v !== '' && v !== undefined && v !== null),
  );
  const ssl = fromUrl.ssl;
  return {
    ...(fromUrl as ClientConfig),
    // P-256 first: PostgreSQL up to 17 takes only it by default, and X25519 first costs a TLS 1.3
    // HelloRetryRequest, a round trip more per connection (npm run bench:team).
    ...(ssl === true || (typeof ssl === 'object' && ssl !== null)
      ? { ssl: { ...(typeof ssl === 'object' ? ssl : {}), ecdhCurve: TLS_CURVES } }
      : {}),
    // libpq's order: the URL's, PGPASSWORD, then ~/.pgpass (or PGPASSFILE), read here: pg's own
    // reading is deprecated, on stderr. pg passes the connection's parameters (its types say none).
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
