/**
 * The team database as a command sees it: one connection in pg's pipeline mode (a statement is
 * written when asked, not after the answers before it), so a step's BEGIN, statements and COMMIT
 * are one round trip. Opened early (load-pg.ts connectEarly), made anew after one that failed; the
 * session's advisory locks (locks.ts) live and die with it. The schema guard (schema.ts) rides in
 * front of statements until one passes; a failed one runs the full check, then the statement again.
 */
import type { Client, ClientConfig, QueryResult } from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import { hasSentUnrepeatable } from '../../api/send-hook.js';
import { passwordOf, redactStateUrl } from '../../config/state-url.js';
import { StateUnavailableError } from '../errors.js';
import type { SqlValue } from '../sql/types.js';
import { clientConfigWith, QUERY_TIMEOUT_MS } from './client-config.js';
import { loadBundledPg, loadPg, saveCodeCache, type EarlyConnection } from './load-pg.js';
import { refusalHint, tlsFileReason } from './refusals.js';

/** A statement and its values, `$n` placeholders (toPg turns the stores' `?` into them). */
export type PgStatement = readonly [text: string, params?: readonly SqlValue[]];

export interface Database {
  readonly where: string;
  /** One statement: its rows. */
  query<R extends object = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Statements in one transaction, written together (one round trip): each one's answer. All land, or none. */
  step(statements: readonly PgStatement[]): Promise<QueryResult[]>;
  /** `work` in one transaction, alone on the connection until `commit()` (else its end) writes the COMMIT. */
  transaction<T>(work: (client: Client, commit: () => Promise<QueryResult>) => Promise<T>): Promise<T>;
  /** Whether the connection in use now is still the one in use, unbroken: a session lock's life. */
  session(): Promise<{ alive(): boolean }>;
  /** The guard riding in front of statements until one passes; the full check when one fails. */
  checkSchema(guard: string, full: () => Promise<void>): void;
  /** Runs `work` with its statements carrying no guard (the full check's own). */
  unchecked<T>(work: () => Promise<T>): Promise<T>;
  /** A failure as the error to show, naming the URL without its password; `notSent`: what it stopped from being sent. */
  unavailable(error: unknown, hint?: string, notSent?: string): StateUnavailableError;
  /** When the database last answered (performance.now()), 0 before it has. */
  answeredAt(): number;
  end(): Promise<void>;
}

/** The client settings of a state URL: in dist/, with the parser inside the pg bundle (the build stubs the import out). */
export const clientConfig = (url: string): ClientConfig =>
  clientConfigWith(loadBundledPg()?.parseConnectionString ?? parseConnectionString, url);

const placeholders = new Map<string, string>();
/** `?` → `$1, $2, …` (the ledger's SQL has no `?` inside a string). */
export function toPg(sql: string): string {
  let text = placeholders.get(sql);
  let n = 0;
  if (text === undefined) placeholders.set(sql, (text = sql.replace(/\?/g, () => `$${++n}`)));
  return text;
}

const isTimeout = (error: unknown) =>
  error instanceof Error &&
  /timeout|timed out/i.test(`${error.message} ${String((error as { cause?: unknown }).cause ?? '')}`);

export function openDatabase(url: string, early?: EarlyConnection): Database {
  const where = redactStateUrl(url);
  const secret = passwordOf(url) ?? process.env.PGPASSWORD;
  // An unreadable TLS file the URL names fails the first use, as the database failing would.
  let config: ClientConfig | undefined;
  let configError: unknown;
  try {
    config = early?.config ?? clientConfig(url);
  } catch (error) {
    configError = error;
  }
  // The role as the hints name it: the URL's, else libpq's PGUSER, else the system user's name.
  const role = config?.user ?? process.env.PGUSER ?? process.env.USER ?? 'the role';
  let answered = 0;
  const unavailable = (error: unknown, hint?: string, notSent?: string) =>
    error instanceof StateUnavailableError
      ? error
      : new StateUnavailableError(
          where,
          describePgError(error, secret),
          hint ?? refusalHint(error, role),
          hasSentUnrepeatable() ? (notSent ? { notSent } : true) : false,
        );

  let current: { client: Client; connected: Promise<unknown>; broken: boolean } | undefined;
  // After a timeout, later steps fail at once for one timeout instead of each waiting its own.
  let stalled: { error: unknown; until: number } | undefined;
  const noteStall = (error: unknown) => {
    if (isTimeout(error) && error !== stalled?.error) stalled = { error, until: Date.now() + QUERY_TIMEOUT_MS };
  };
  // A transaction under way alone on the connection: others wait until its COMMIT is written.
  let alone: Promise<void> | undefined;

  async function connection(): Promise<Client> {
    if (stalled && Date.now() < stalled.until) throw stalled.error;
    if (!current || current.broken) {
      let made: Omit<EarlyConnection, 'config'> | undefined = early && !current ? early : undefined;
      if (!made) {
        if (!config) throw configError;
        const client = new (await loadPg()).Client({ ...config, pipeline: true });
        made = { client, connected: client.connect() };
      }
      const c = { client: made.client, connected: made.connected, broken: false };
      // A connection that failed or ended is not used again: the next statement makes a new one.
      const broke = () => (c.broken = true);
      c.client.on('error', broke).on('end', broke);
      c.connected.catch(broke);
      current = c;
    }
    await current.connected.catch((error: unknown) => {
      noteStall(error);
      throw error;
    });
    return current.client;
  }

  /** `write(client)` once no transaction is alone, in the same tick as that check (none can open in between). */
  async function whenFree<T>(write: (client: Client) => T): Promise<T> {
    for (;;) {
      const client = await connection();
      if (!alone) return write(client);
      await alone;
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

  async function transaction<T>(
    guard: string | undefined,
    work: (client: Client, commit: () => Promise<QueryResult>) => Promise<T>,
  ): Promise<T> {
    let letGo!: () => void;
    const mine: Promise<void> = new Promise((resolve) => {
      letGo = () => {
        if (alone === mine) alone = undefined;
        resolve();
      };
    });
    const client = await whenFree((c) => {
      alone = mine;
      return c;
    });
    let committed: Promise<QueryResult> | undefined;
    // From the COMMIT on, what others ask is written behind it: they wait no longer.
    const commit = () => {
      if (!committed) (committed = client.query('COMMIT')).catch(() => {});
      letGo();
      return committed;
    };
    const opening = settle([client.query('BEGIN'), ...(guard ? [client.query(guard)] : [])]);
    opening.catch(() => {});
    try {
      // A failed guard fails what work sent behind it: its error is the guard's.
      const result = await work(client, commit).catch(async (error: unknown) => {
        await opening;
        throw error;
      });
      await opening;
      // A transaction a statement failed in answers its COMMIT with ROLLBACK.
      if ((await settle([commit()]))[0]!.command === 'ROLLBACK') throw new Error('the step was rolled back');
      return result;
    } catch (error) {
      if (!committed) client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      letGo();
    }
  }

  // A full check under way is waited for, except by its own statements.
  let guard: string | undefined;
  let fullCheck: (() => Promise<void>) | undefined;
  let checking: Promise<void> | undefined;
  let uncheckedDepth = 0;
  async function checked<T>(send: (guard: string | undefined) => Promise<T>): Promise<T> {
    while (checking && uncheckedDepth === 0) await checking;
    const riding = uncheckedDepth === 0 ? guard : undefined;
    try {
      const result = await send(riding);
      if (riding !== undefined) guard = undefined;
      return result;
    } catch (error) {
      if (riding === undefined || !isGuardFailure(error)) throw error;
      checking ??= db
        .unchecked(async () => {
          await fullCheck?.();
          guard = undefined;
        })
        .finally(() => (checking = undefined));
      await checking;
      return send(undefined);
    }
  }

  const step = (guarded: string | undefined, statements: readonly PgStatement[]) =>
    transaction(guarded, (client, commit) => {
      const sent = statements.map(([text, params]) => client.query(text, params as unknown[] | undefined));
      void commit();
      return settle(sent);
    });

  const db: Database = {
    where,
    query: (sql, params) =>
      checked(async (guarded) => {
        if (guarded) return (await step(guarded, [[sql, params as SqlValue[]]]))[0]!.rows;
        const sent = await whenFree((client) => [client.query(sql, params as unknown[] | undefined)]);
        return (await settle(sent))[0]!.rows;
      }),
    step: (statements) => checked((guarded) => step(guarded, statements)),
    transaction: (work) => checked((guarded) => transaction(guarded, work)),
    async session() {
      await connection();
      const c = current;
      return { alive: () => current === c && !c!.broken };
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
      const client = current?.client ?? early?.client;
      current = undefined;
      if (client) endNow(client);
    },
  };
  return db;
}

/** Terminate written behind what is written (a lock given back), the socket unref'd: pg's end() waits for answers. */
function endNow(client: Client): void {
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
  if (/^(08|57P)/.test(code) || /^E[A-Z]+$/.test(code)) return true; // ECONNREFUSED, ECONNRESET, EPIPE, …
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|connection timeout|timeout expired|Query read timeout|not queryable|Client has encountered a connection error/i.test(
    message,
  );
}
