/**
 * The team database as a command sees it: one connection (pg's pipeline mode), opened as soon as
 * the command knows its state URL (early.ts) and made anew after one that failed. In pipeline
 * mode a statement is written when it is asked, without waiting for the answers of those before
 * it: the statements of a step (BEGIN, its writes, COMMIT) and reads asked at the same moment go
 * out together, one round trip, and the driver, not hand-built SQL text, does it. The session's
 * advisory locks (locks.ts) live on the same connection, and die with it.
 *
 * The schema check (schema.ts schemaGuard) rides in front of each statement until one such
 * check has passed: in a step's transaction, so a step behind a failed check changes nothing;
 * a failed check runs the full one (migrating, or refusing a newer schema), then the statement
 * again. pg is loaded here only, so commands without a team state never load it.
 */
import type { Client, ClientConfig, QueryResult } from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import { hasSentUnrepeatable } from '../../api/send-hook.js';
import { StateUnavailableError } from '../errors.js';
import type { SqlValue } from '../sql/types.js';
import { clientConfigWith, QUERY_TIMEOUT_MS } from './client-config.js';
import { loadBundledPg, loadPg, saveCodeCache } from './load-pg.js';
import { refusalHint, tlsFileReason } from './refusals.js';
import { passwordOf, redactStateUrl } from '../../config/state-url.js';

/** A statement and its values, `$n` placeholders (toPg turns the stores' `?` into them). */
export type PgStatement = readonly [text: string, params?: readonly SqlValue[]];

/** The connection opened as soon as a command knows its state URL (early.ts): the Database's first. */
export interface EarlyConnection {
  readonly client: Client;
  readonly config: ClientConfig;
  readonly connected: Promise<void>;
}

/** The connection a session lock was taken on, and whether it is still the one in use, unbroken. */
export interface Session {
  readonly client: Client;
  alive(): boolean;
}

export interface Database {
  readonly where: string;
  readonly config: ClientConfig;
  /** One statement: its rows. */
  query<R extends object = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Statements in one transaction, written together (one round trip): each one's answer. All land, or none. */
  step(statements: readonly PgStatement[]): Promise<QueryResult[]>;
  /**
   * `work` in one transaction, alone on the connection until its COMMIT is written (nothing else
   * of this process goes in between): for reads whose answers decide the writes. BEGIN goes out
   * with its first statement; `commit()` writes the COMMIT behind its last (otherwise written
   * once `work` resolves).
   */
  transaction<T>(work: (client: Client, commit: () => Promise<QueryResult>) => Promise<T>): Promise<T>;
  /** The connection in use (connected), for a session lock held on it. */
  session(): Promise<Session>;
  /**
   * The schema check to ride in front of statements until one passes, and the full check to run
   * when one fails (backend.ts). Statements of the full check itself (`unchecked`) carry none.
   */
  checkSchema(guard: string, full: () => Promise<void>): void;
  /** Runs `work` with this process's statements carrying no schema check (the full check's own). */
  unchecked<T>(work: () => Promise<T>): Promise<T>;
  /** A failure of the database as the error to show: names the URL without its password. */
  /** `notSent`: what this failure stopped from being sent, when something else was sent before. */
  unavailable(error: unknown, hint?: string, notSent?: string): StateUnavailableError;
  /** When the database last answered (performance.now()), 0 before it has. */
  answeredAt(): number;
  end(): Promise<void>;
}

/**
 * The client settings of a state URL (client-config.ts), with pg-connection-string's parser: in
 * dist/, the copy inside the pg bundle (load-pg.ts; the build stubs the import below out of the
 * ES module chunks), running from src/ (tests), the package.
 */
export const clientConfig = (url: string): ClientConfig =>
  clientConfigWith(loadBundledPg()?.parseConnectionString ?? parseConnectionString, url);

const placeholders = new Map<string, string>();
/** `?` → `$1, $2, …` (the ledger's SQL has no `?` inside a string). */
export function toPg(sql: string): string {
  let text = placeholders.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    placeholders.set(sql, text);
  }
  return text;
}

const isTimeout = (error: unknown) =>
  error instanceof Error &&
  /timeout|timed out/i.test(`${error.message} ${String((error as { cause?: unknown }).cause ?? '')}`);

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
  let answered = 0;
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

  interface Connection {
    client: Client;
    connected: Promise<void>;
    broken: boolean;
  }
  let current: Connection | undefined;
  const adopt = (client: Client, connected: Promise<void>): Connection => {
    const c: Connection = { client, connected, broken: false };
    // A connection that failed (or ended) is not used again: the next statement makes a new one.
    const broke = () => (c.broken = true);
    client.on('error', broke);
    client.on('end', broke);
    connected.catch(broke);
    return c;
  };
  // A database that has just let a query or a connection time out (stopped, or a network that
  // drops packets) is not waited for again for as long as one timeout: a command's later steps
  // fail at once instead of each waiting its own. A long-lived process tries again after it.
  let stalled: { error: unknown; until: number } | undefined;
  async function connection(): Promise<Client> {
    if (stalled && Date.now() < stalled.until) throw stalled.error;
    if (!current || current.broken) {
      if (early && !current) current = adopt(early.client, early.connected);
      else {
        if (configError !== undefined) throw configError;
        const pg = await loadPg();
        const client = new pg.Client({ ...config, pipeline: true });
        current = adopt(
          client,
          client.connect().then(() => {}),
        );
      }
    }
    const c = current;
    try {
      await c.connected;
    } catch (error) {
      noteStall(error);
      throw error;
    }
    return c.client;
  }
  const noteStall = (error: unknown) => {
    if (isTimeout(error) && error !== stalled?.error) stalled = { error, until: Date.now() + QUERY_TIMEOUT_MS };
  };

  // A transaction under way alone on the connection (Database.transaction): others wait for it.
  let alone: Promise<void> | undefined;
  const free = async () => {
    while (alone) await alone;
  };

  // The schema check (checkSchema): riding until one passes; a full check under way, waited for.
  let guard: string | undefined;
  let fullCheck: (() => Promise<void>) | undefined;
  let checking: Promise<void> | undefined;
  let uncheckedDepth = 0;
  /** Runs `send(withGuard)` with the guard in front while it is unproven; a failed guard: the full check, then again. */
  async function checked<T>(send: (guard: string | undefined) => Promise<T>): Promise<T> {
    while (checking && uncheckedDepth === 0) await checking;
    const riding = uncheckedDepth === 0 ? guard : undefined;
    try {
      const result = await send(riding);
      if (riding !== undefined) guard = undefined;
      return result;
    } catch (error) {
      if (riding === undefined || !isGuardFailure(error)) throw error;
      // Another version, or no schema yet: the full check (migrating, or refusing), then again.
      checking ??= (async () => {
        try {
          uncheckedDepth++;
          await fullCheck?.();
          guard = undefined;
        } finally {
          uncheckedDepth--;
          checking = undefined;
        }
      })();
      await checking;
      return send(undefined);
    }
  }

  const settle = async <T>(sent: Array<Promise<T>>): Promise<T[]> => {
    const answers = await Promise.allSettled(sent);
    const failed = answers.find((a): a is PromiseRejectedResult => a.status === 'rejected');
    if (failed) {
      noteStall(failed.reason);
      throw failed.reason;
    }
    answered = performance.now();
    return answers.map((a) => (a as PromiseFulfilledResult<T>).value);
  };

  const db: Database = {
    where,
    config,
    query: (sql, params) =>
      checked(async (guarded) => {
        await free();
        const client = await connection();
        const one = () => client.query(sql, params as unknown[] | undefined);
        if (!guarded) return ((await settle([one()]))[0] as QueryResult).rows as never;
        // Behind the check, in its transaction: a statement behind a failed one changes nothing.
        const sent = [client.query('BEGIN'), client.query(guarded), one(), client.query('COMMIT')];
        return ((await settle(sent))[2] as QueryResult).rows as never;
      }),
    step: (statements) =>
      checked(async (guarded) => {
        await free();
        const client = await connection();
        const sent = [
          client.query('BEGIN'),
          ...(guarded ? [client.query(guarded)] : []),
          ...statements.map(([text, params]) => client.query(text, params as unknown[] | undefined)),
          client.query('COMMIT'),
        ];
        const answers = (await settle(sent)) as QueryResult[];
        // COMMIT of a transaction a statement failed in answers ROLLBACK (that statement's error came first).
        if (answers.at(-1)?.command === 'ROLLBACK') throw new Error('the step was rolled back');
        return answers.slice(guarded ? 2 : 1, -1);
      }),
    transaction: (work) =>
      checked(async (guarded) => {
        await free();
        const client = await connection();
        let done!: () => void;
        const mine = new Promise<void>((resolve) => (done = resolve));
        alone = mine;
        // From the COMMIT (or ROLLBACK) on, what others ask is written behind it: they wait no longer.
        const letGo = () => {
          if (alone === mine) alone = undefined;
          done();
        };
        let committed: Promise<QueryResult> | undefined;
        const commit = () => {
          if (!committed) {
            committed = client.query('COMMIT');
            committed.catch(() => {});
            letGo();
          }
          return committed;
        };
        const opening = settle([client.query('BEGIN'), ...(guarded ? [client.query(guarded)] : [])]);
        opening.catch(() => {});
        try {
          // A failed check fails what work sent behind it: its error is the check's.
          const result = await work(client, commit).catch(async (error: unknown) => {
            await opening;
            throw error;
          });
          await opening;
          if ((await settle([commit()]))[0]!.command === 'ROLLBACK') throw new Error('the step was rolled back');
          return result;
        } catch (error) {
          if (!committed) client.query('ROLLBACK').catch(() => {});
          throw error;
        } finally {
          letGo();
        }
      }),
    async session() {
      await free();
      const client = await connection();
      const c = current!;
      return { client, alive: () => current === c && !c.broken };
    },
    checkSchema(text, full) {
      guard = text;
      fullCheck = full;
    },
    async unchecked(work) {
      uncheckedDepth++;
      try {
        return await work();
      } finally {
        uncheckedDepth--;
      }
    },
    unavailable,
    answeredAt: () => answered,
    async end() {
      // The client has done real work: the code cache then holds what a command needs.
      if (answered) saveCodeCache();
      const c = current ?? (early ? adopt(early.client, early.connected) : undefined);
      current = undefined;
      if (!c) return;
      // Its Terminate goes out behind whatever is still written (a lock given back, say), and the
      // process does not wait for the server to close the socket, nor for those answers.
      endNow(c.client);
    },
  };
  return db;
}

/**
 * Ends a connection at once: its Terminate written behind what is already written (pg's own
 * end() waits, in pipeline mode, for every answer first), the socket no longer keeping the
 * process alive. A connection that never opened is closed as it is.
 */
export function endNow(client: Client): void {
  const connection = (client as unknown as { connection: { end(): void; stream: { unref?(): void } } }).connection;
  try {
    connection.end();
    connection.stream.unref?.();
  } catch {
    // Never connected, or already gone: nothing to end.
  }
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
