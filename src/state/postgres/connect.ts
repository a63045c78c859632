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
import { clientConfigWith } from './client-config.js';
import type { EarlyConnection } from './early.js';
import { loadPg as loadPgBundle, saveCodeCache } from './load-pg.js';
import { passwordOf, redactStateUrl } from './url.js';

type Pg = typeof import('pg');
let loaded: Promise<Pg> | undefined;
export const loadPg = (): Promise<Pg> => (loaded ??= loadPgBundle());

export { CONNECT_TIMEOUT_MS, QUERY_TIMEOUT_MS } from './client-config.js';

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
  /** The schema version the early connection asked for (early.ts), when there is one. */
  readonly earlyVersion?: Promise<number | undefined> | undefined;
}

/** The client settings of a state URL (client-config.ts), with pg-connection-string's parser. */
export const clientConfig = (url: string): ClientConfig => clientConfigWith(parseConnectionString, url);

/**
 * pg's Client class for the pool, whose first instance is the early connection (early.ts),
 * already connecting: the pool's connect() of it waits for that one instead of opening another.
 */
function adoptingFirst(Base: typeof import('pg').Client, early: EarlyConnection): typeof import('pg').Client {
  return class extends Base {
    constructor(config?: ClientConfig) {
      if (!early.taken) {
        early.taken = true;
        early.use();
        const client = early.client as unknown as { connect: (cb?: (error?: Error) => void) => Promise<void> };
        client.connect = (cb) => {
          if (cb) early.connected.then(() => cb(), cb);
          return early.connected;
        };
        // The early connection, not a new one (a constructor may return another object).
        return client as unknown as InstanceType<typeof Base>;
      }
      super(config);
    }
  } as typeof import('pg').Client;
}

export function openDatabase(url: string, early?: EarlyConnection): Database {
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
    get earlyVersion() {
      early?.use();
      return early?.schemaVersion;
    },
    config,
    pool: () =>
      (pool ??= loadPg().then((pg) => {
        const p = new pg.Pool({
          ...config,
          max: 4,
          allowExitOnIdle: true,
          idleTimeoutMillis: 1000,
          ...(early ? { Client: adoptingFirst(pg.Client, early) } : {}),
        });
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
      if (early && !early.taken) await early.client.end().catch(() => {});
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
