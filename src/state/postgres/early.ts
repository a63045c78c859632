/**
 * The team database's first connection, opened the moment a command knows its state URL: the
 * bundled client is compiled at once (load-pg.ts, no ES module loader on the way) and the
 * connection's round trips and the server's start of a session overlap what the command still
 * loads (the HTTP layer, the ledger's modules). The pool (connect.ts) takes it as its first
 * connection. Opening it never fails a command: any failure is left to the first real use,
 * which then says it; a command that never uses it ends it when it closes.
 */
import type { Client, ClientConfig } from 'pg';
import { clientConfigWith } from './client-config.js';
import { loadBundledPg } from './load-pg.js';
import { schemaVersion } from './schema.js';

export interface EarlyConnection {
  readonly client: Client;
  /** Its settings (client-config.ts): the pool's too, so the URL is read once. */
  readonly config: ClientConfig;
  /** Settles when the connection is up or has failed (never rejects unhandled). */
  readonly connected: Promise<void>;
  /** The schema version it asked for as soon as it was up (schema.ts); rejects when it failed. */
  readonly schemaVersion: Promise<number | undefined>;
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

/**
 * Undefined when running from src/ (no bundle) or when the URL cannot be read (said later).
 * `spare`: open a second connection too (EarlyConnection.spare).
 */
export function connectEarly(url: string, o: { spare?: boolean } = {}): EarlyConnection | undefined {
  try {
    const pg = loadBundledPg();
    if (!pg) return undefined;
    const config = clientConfigWith(pg.parseConnectionString, url);
    const client = new pg.Client(config);
    // Until the pool adds its own listeners: a failure is the pool's to report, not a crash.
    client.on('error', () => {});
    // Not unref'd: on Node 24 a command then ended with exit 0 and no output while its budget
    // draw was under way. A command that never uses it ends it at its close (connect.ts end()).
    const connected = client.connect().then(() => {});
    connected.catch(() => {});
    // Asked at once, answered while the command loads: ensureSchema then has nothing to wait for.
    const version = connected.then(() => schemaVersion(client));
    version.catch(() => {});
    const use = () => (client as unknown as { ref(): void }).ref();
    return {
      client,
      config,
      connected,
      schemaVersion: version,
      taken: false,
      use,
      spare: o.spare ? openSpare(new pg.Client(config)) : undefined,
    };
  } catch {
    return undefined;
  }
}

function openSpare(client: Client): SpareConnection {
  let gone = false;
  client.on('error', () => (gone = true));
  client.on('end', () => (gone = true));
  const connected = client.connect().then(() => {});
  connected.catch(() => {});
  return { client, connected, gone: () => gone };
}
