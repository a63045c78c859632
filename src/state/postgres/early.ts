/**
 * The team database's connection, opened the moment a command knows its state URL: the bundled
 * client is compiled at once (load-pg.ts, no ES module loader on the way) and the connection's
 * round trips and the server's start of a session overlap what the command still loads (the
 * HTTP layer, the ledger's modules). The Database (connect.ts) takes it as its connection.
 * Opening it never fails a command: any failure is left to the first real use, which then says
 * it; a command that never uses it ends it when it closes.
 */
import type { EarlyConnection } from './connect.js';
import { clientConfigWith } from './client-config.js';
import { loadBundledPg } from './load-pg.js';

/** Undefined when running from src/ (no bundle) or when the URL cannot be read (said later). */
export function connectEarly(url: string): EarlyConnection | undefined {
  try {
    const pg = loadBundledPg();
    if (!pg) return undefined;
    const config = clientConfigWith(pg.parseConnectionString, url);
    const client = new pg.Client({ ...config, pipeline: true });
    // Until the Database adds its own listeners: a failure is its to report, not a crash.
    client.on('error', () => {});
    const connected = client.connect().then(() => {});
    connected.catch(() => {});
    return { client, config, connected };
  } catch {
    return undefined;
  }
}
