/**
 * The team database's first connection, opened the moment a command knows its state URL: the
 * bundled client is compiled at once (load-pg.ts, no ES module loader on the way) and the
 * connection's round trips and the server's start of a session overlap what the command still
 * loads (the HTTP layer, the ledger's modules). The pool (connect.ts) takes it as its first
 * connection. Opening it never fails a command: any failure is left to the first real use,
 * which then says it; a command that never uses it ends it when it closes.
 */
import type { Client } from 'pg';
import type { EarlyConnection, SpareConnection } from './connect.js';
import { clientConfigWith } from './client-config.js';
import { loadBundledPg } from './load-pg.js';

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
    const use = () => (client as unknown as { ref(): void }).ref();
    return {
      client,
      config,
      connected,
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
