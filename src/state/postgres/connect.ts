/**
 * Connections to the team database. The `pg` client (pure JavaScript) is loaded here only, so
 * commands without a team state never load it. A command opens a small pool for the ledger's
 * transactions (idle connections do not keep the process alive) and one connection per lock
 * it holds (a session advisory lock lives and dies with its connection: locks.ts).
 */
import type { ClientConfig, Pool, PoolClient } from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import { hasSentUnrepeatable } from '../../api/send-hook.js';
import { StateUnavailableError } from '../errors.js';
import { loadPg as loadPgBundle, saveCodeCache } from './load-pg.js';
import { passwordOf, redactStateUrl } from './url.js';

type Pg = typeof import('pg');
let loaded: Promise<Pg> | undefined;
export const loadPg = (): Promise<Pg> => (loaded ??= loadPgBundle());

/** How long a connection may take before the database counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 5000;
/** A query that takes longer fails (a black-holed network must not hang a command forever). */
export const QUERY_TIMEOUT_MS = 15_000;

export interface Database {
  readonly where: string;
  readonly config: ClientConfig;
  pool(): Promise<Pool>;
  /** Runs `work` in one transaction on a pooled connection (rolled back when it throws). */
  /**
   * With `begun`, `work` sends BEGIN and COMMIT itself (each with its first and last statement,
   * in one round trip); a failure still rolls back here.
   */
  transaction<T>(work: (client: PoolClient) => Promise<T>, o?: { begun?: boolean }): Promise<T>;
  query<R extends object = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** A failure of the database as the error to show: names the URL without its password. */
  /** `notSent`: what this failure stopped from being sent, when something else was sent before. */
  unavailable(error: unknown, hint?: string, notSent?: string): StateUnavailableError;
  end(): Promise<void>;
}

export function clientConfig(url: string): ClientConfig {
  // `postgres://` alone: everything from libpq's variables (pg reads PGHOST, PGUSER, … itself).
  const parsed = /^postgres(ql)?:\/\/$/.test(url) ? {} : (parseConnectionString(url) as Record<string, unknown>);
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

export function openDatabase(url: string): Database {
  const where = redactStateUrl(url);
  const secret = passwordOf(url) ?? process.env.PGPASSWORD;
  const config = clientConfig(url);
  let pool: Promise<Pool> | undefined;
  let answered = false;
  const broken = new WeakSet<object>();

  // One already made (e.g. by ready(): a schema too new, with its own hint) is passed on as it is, not wrapped twice.
  const unavailable = (error: unknown, hint?: string, notSent?: string) =>
    error instanceof StateUnavailableError
      ? error
      : new StateUnavailableError(
          where,
          describePgError(error, secret),
          hint,
          hasSentUnrepeatable() ? (notSent ? { notSent } : true) : false,
        );

  const db: Database = {
    where,
    config,
    pool: () =>
      (pool ??= loadPg().then((pg) => {
        const p = new pg.Pool({ ...config, max: 4, allowExitOnIdle: true, idleTimeoutMillis: 1000 });
        // An idle connection dropped by the server must not crash the process: the next use reconnects.
        p.on('error', () => {});
        // A connection that failed mid-transaction is thrown away on release, never reused.
        p.on('connect', (client) => client.on('error', () => broken.add(client)));
        return p;
      })),
    async transaction(work, o) {
      const client = await (await db.pool()).connect();
      try {
        if (!o?.begun) await client.query('BEGIN');
        const result = await work(client);
        if (!o?.begun) await client.query('COMMIT');
        answered = true;
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => broken.add(client));
        throw error;
      } finally {
        client.release(broken.has(client) || undefined);
      }
    },
    async query(sql, params) {
      const result = await (await db.pool()).query(sql, params);
      answered = true;
      return result.rows;
    },
    unavailable,
    async end() {
      // The client has done real work: the code cache then holds what a command needs.
      if (answered) saveCodeCache();
      if (pool) await (await pool).end().catch(() => {});
    },
  };
  return db;
}

/** One line on what the database said, never the password (a driver could quote a connection string). */
export function describePgError(error: unknown, secret?: string): string {
  const e = error as { code?: unknown; message?: unknown } | null;
  let text = typeof e?.message === 'string' && e.message ? e.message : String(error);
  if (e?.code === 'ECONNREFUSED') text = 'connection refused';
  else if (/client password must be a string/i.test(text))
    text = 'the server asks for a password and none was given (the URL, PGPASSWORD or ~/.pgpass)';
  else if (e?.code === 'ENOTFOUND') text = 'unknown host';
  else if (/timeout expired|timed out|Query read timeout/i.test(text)) text = 'no answer in time';
  if (secret) text = text.split(secret).join('***');
  return text.replace(/\s+/g, ' ').trim();
}

/** Did the database (or the way to it) fail, rather than refuse what was asked? */
export function isConnectionFailure(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (/^(08|57P)/.test(code)) return true;
  if (/^E[A-Z]+$/.test(code)) return true; // ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE, …
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|connection timeout|timeout expired|Query read timeout|not queryable|Client has encountered a connection error/i.test(
    message,
  );
}
