/**
 * Connections to the team database. The `pg` client (pure JavaScript) is loaded here only, so
 * commands without a team state never load it. A command opens a small pool for the ledger's
 * transactions (idle connections do not keep the process alive) and one connection per lock
 * it holds (a session advisory lock lives and dies with its connection: locks.ts).
 */
import type { Client, ClientConfig, Pool, PoolClient } from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import { hasSentUnrepeatable } from '../../api/send-hook.js';
import { StateUnavailableError } from '../errors.js';
import { clientConfigWith } from './client-config.js';
import { loadBundledPg, loadPg as loadPgBundle, saveCodeCache } from './load-pg.js';
import { refusalHint, tlsFileReason } from './refusals.js';
import { passwordOf, redactStateUrl } from './url.js';

type Pg = typeof import('pg');
let loaded: Promise<Pg> | undefined;
export const loadPg = (): Promise<Pg> => (loaded ??= loadPgBundle());

export { QUERY_TIMEOUT_MS } from './client-config.js';

/** A step on a pooled connection (lazyTransaction): `begun` once it sent BEGIN. */
export interface LazyStep {
  begun: boolean;
}

/** The first connection, opened as soon as a command knows its state URL (early.ts). */
export interface EarlyConnection {
  readonly client: Client;
  /** Its settings (client-config.ts): the pool's too, so the URL is read once. */
  readonly config: ClientConfig;
  /** Settles when the connection is up or has failed (never rejects unhandled). */
  readonly connected: Promise<void>;
  /** Set once the pool has taken it. */
  taken: boolean;
  /**
   * A second connection opened at the same moment, when the command is one that will hold a
   * session lock (a lead's or a meeting's: locks.ts takes it): the server starts both sessions
   * at once, while the command loads, instead of the lock's after. Undefined when not asked for,
   * or once taken.
   */
  spare: SpareConnection | undefined;
  /**
   * Keeps the process alive for it: called by whatever waits for it (the pool, the schema
   * check), so that a pool that unref'd it while idle cannot leave such a wait behind.
   */
  use(): void;
}

export interface SpareConnection {
  readonly client: Client;
  /** Settles when the connection is up or has failed (never rejects unhandled). */
  readonly connected: Promise<void>;
  /** Whether it failed or ended before it was taken (its taker's listeners came too late for that). */
  readonly gone: () => boolean;
}

export interface Database {
  readonly where: string;
  readonly config: ClientConfig;
  pool(): Promise<Pool>;
  /** Runs `work` in one transaction on a pooled connection (rolled back when it throws). */
  transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T>;
  /**
   * Runs `work` on a pooled connection in a transaction that `work` begins with its first write
   * (sql.ts sends BEGIN with it, and sets `lazy.begun`): a step that only reads costs no BEGIN
   * and no COMMIT round trip, and one that writes no BEGIN of its own. Under PostgreSQL's
   * default READ COMMITTED a read takes its own snapshot in a transaction or out of one, so the
   * reads before the BEGIN see what they would inside it; the writes are still all or nothing.
   */
  lazyTransaction<T>(work: (client: PoolClient, lazy: LazyStep) => Promise<T>): Promise<T>;
  /**
   * One simple query of several statements (no parameters: values quoted by the client's
   * escaping), on a connection of its own: the rows of each statement's answer. It may hold
   * BEGIN … COMMIT; should a statement fail, the transaction is rolled back.
   */
  simple(text: string): Promise<unknown[][]>;
  query<R extends object = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** A failure of the database as the error to show: names the URL without its password. */
  /** `notSent`: what this failure stopped from being sent, when something else was sent before. */
  unavailable(error: unknown, hint?: string, notSent?: string): StateUnavailableError;
  end(): Promise<void>;
  /** The spare early connection (early.ts) for a session lock, once: undefined when there is none (left). */
  takeSpare(): SpareConnection | undefined;
}

/**
 * The client settings of a state URL (client-config.ts), with pg-connection-string's parser: in
 * dist/, the copy inside the pg bundle (load-pg.ts; the build stubs the import below out of the
 * ES module chunks), running from src/ (tests), the package.
 */
export const clientConfig = (url: string): ClientConfig =>
  clientConfigWith(loadBundledPg()?.parseConnectionString ?? parseConnectionString, url);

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
  // A TLS file the URL names is read here (pg-connection-string): when it cannot be, the first
  // use of the database says so, like any other failure of it (a read needing no ledger still runs).
  let configError: unknown;
  let config: ClientConfig;
  try {
    config = early?.config ?? clientConfig(url);
  } catch (error) {
    configError = error;
    config = {};
  }
  // The role as the hints name it: the URL's, else libpq's PGUSER, else the system user's name.
  const role = config.user ?? process.env.PGUSER ?? process.env.USER ?? 'the role';
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
          hint ?? refusalHint(error, role),
          hasSentUnrepeatable() ? (notSent ? { notSent } : true) : false,
        );

  const db: Database = {
    where,
    config,
    pool: () =>
      (pool ??= loadPg().then((pg) => {
        if (configError !== undefined) {
          pool = undefined; // said again by the next use, never a pool without its settings
          throw configError;
        }
        const p = new pg.Pool({
          ...config,
          // One connection: a command's steps are one after another, and the few that overlap
          // (a lead's record read beside a rate budget draw) take a round trip
          // more in turn, where each further connection would cost the server a backend's start
          // and its caches warmed again. A step never asks the pool while it holds a connection.
          max: 1,
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
    // Begun at once: BEGIN sent before `work`.
    transaction: async (work) =>
      db.lazyTransaction(async (client, lazy) => {
        lazy.begun = true;
        await client.query('BEGIN');
        return work(client);
      }),
    async lazyTransaction(work) {
      const client = await (await db.pool()).connect();
      const lazy: LazyStep = { begun: false };
      try {
        const result = await work(client, lazy);
        if (lazy.begun) await client.query('COMMIT');
        answered = true;
        return result;
      } catch (error) {
        if (lazy.begun) await client.query('ROLLBACK').catch(() => broken.add(client));
        throw error;
      } finally {
        client.release(broken.has(client) || undefined);
      }
    },
    async simple(text) {
      const client = await (await db.pool()).connect();
      try {
        const answer = (await client.query(text)) as unknown as { rows: unknown[] } | Array<{ rows: unknown[] }>;
        answered = true;
        return (Array.isArray(answer) ? answer : [answer]).map((a) => a.rows);
      } catch (error) {
        // A failed statement leaves an explicit transaction open (aborted): ended here (a warning only when none is).
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
    takeSpare() {
      const spare = early?.spare;
      if (early) early.spare = undefined;
      return spare;
    },
    async end() {
      // The client has done real work: the code cache then holds what a command needs.
      if (answered) saveCodeCache();
      if (early && !early.taken) {
        // Its Terminate goes out now (Node flushes a write before it exits) and the process does
        // not wait for the server to close the socket: about 10 ms for a command that sent no
        // query of its own, like a read without a rate budget. Unref'd only here, at the close:
        // see early.ts for why never before.
        const ending = early.client.end().catch(() => {});
        (early.client as unknown as { unref(): void }).unref();
        await ending;
      }
      const spare = db.takeSpare();
      if (spare) {
        // Not used after all (the command failed before its lock): ended as the early one is.
        void spare.client.end().catch(() => {});
        (spare.client as unknown as { unref(): void }).unref();
      }
      if (pool) await (await pool).end().catch(() => {});
    },
  };
  return db;
}

/** One line on what the database said, never the password (a driver could quote a connection string). */
export function describePgError(error: unknown, secret?: string): string {
  const e = error as { code?: unknown; message?: unknown } | null;
  let text = typeof e?.message === 'string' && e.message ? e.message : String(error);
  const tls = tlsFileReason(error);
  if (tls) text = tls;
  else if (e?.code === 'ECONNREFUSED') text = 'connection refused';
  else if (/client password must be a string/i.test(text))
    text = 'the server asks for a password and none was given (the URL, PGPASSWORD or ~/.pgpass)';
  else if (e?.code === 'ENOTFOUND') text = 'unknown host';
  else if (/timeout expired|timed out|Query read timeout/i.test(text)) text = 'no answer in time';
  if (secret) text = text.split(secret).join('***');
  return text.replace(/\s+/g, ' ').trim();
}

/** Errors of a failed schema guard (schema.ts schemaGuard): another version (a division by zero) or no schema yet. */
export const isGuardFailure = (error: unknown): boolean =>
  ['22012', '42P01'].includes(String((error as { code?: unknown } | null)?.code));

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
