/**
 * The team state backend: the ledger's documents, the lead and meeting locks (and, through
 * api/rate-budget-pg.ts, the rate budget) in a PostgreSQL database every machine of a team
 * shares. The schema is made or checked once per process, on first use, and what an earlier
 * run had to keep on its machine (spool.ts) is moved in then.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LedgerBackend } from '../backend.js';
import { DEFAULT_LOCK_TIMING } from '../lock.js';
import { openDatabase, type Database } from './connect.js';
import type { EarlyConnection } from './early.js';
import { PgDocument } from './document.js';
import { holdAdvisory } from './locks.js';
import { SchemaTooNewError, ensureSchema } from './schema.js';
import { mergeRecords, Spool } from './spool.js';

// The team backend's parts that the state commands (admin.ts), the bulk run logs (run-log.ts),
// the shared rate budget (services.ts) and the state store (../index.ts) use are imported from
// here, not from their own modules, and statically: the build then puts every module of the
// backend in the state store's chunk, which every command loads anyway (about 11 KB, a fraction
// of a millisecond to compile without the client). A dynamic import of its own cost a command
// with a team state 5-7 ms of Node 20's ES module loader (resolve, read, compile, link), and,
// started while the HTTP layer loads, it was answered only after it
// (test/perf/bundle-layout.test.ts holds the layout; pg itself still loads only when used).
export { isConnectionFailure, type Database } from './connect.js';
export { PgDocument } from './document.js';
export { HOLDERS_SQL, holderOf, recordHolder, sessionClient } from './locks.js';
export { pgBudgetInUse, pgBudgetStore } from './rate-budget.js';
export { LEDGER_KINDS, mergeRecords, recordsOf } from './spool.js';

export interface PostgresBackendOptions {
  url: string;
  /** The config directory: where the spool is kept. */
  dir: string;
  now: () => Date;
  leadWaitMs: number;
  warn?: ((line: string) => void) | undefined;
  /** The connection opened as soon as the URL was known (early.ts): the pool's first. */
  early?: EarlyConnection | undefined;
}

export interface PostgresBackend extends LedgerBackend {
  readonly db: Database;
  readonly spool: Spool;
  /** Where run records the database failed to take are kept: `<config dir>/team-spool/runs`. */
  readonly runSpoolDir: string;
  /** The schema is there and current, what the spool kept moved in (once per process). */
  ready(): Promise<void>;
}

export function postgresBackend(o: PostgresBackendOptions): PostgresBackend {
  const db = openDatabase(o.url, o.early);
  const spool = new Spool(o.dir, DEFAULT_LOCK_TIMING);
  const runSpoolDir = join(spool.dir, 'runs');
  const warned = new Set<string>();
  let readied: Promise<void> | undefined;

  async function prepare(): Promise<void> {
    try {
      await ensureSchema(db);
    } catch (error) {
      if (error instanceof SchemaTooNewError)
        throw db.unavailable(
          error,
          'upgrade schedctl (npm install -g schedctl@latest): this one never writes into a newer schema',
        );
      throw db.unavailable(error);
    }
    await moveSpoolIn();
  }

  async function moveSpoolIn(): Promise<void> {
    const held = await spool.held();
    for (const { kind, records } of held) {
      const doc = new PgDocument(kind, { db, ready: async () => {}, spool, onKept: () => {} });
      await doc.update((d) => mergeRecords(kind, d, records, 'replace'));
      spool.drop(kind);
      o.warn?.(
        `note: moved ${records.size} ${kind.what} record(s) kept on this machine while the team state was unreachable into ${db.where}`,
      );
    }
    // Loaded only when a bulk run kept records here (or runs now): most commands never need it.
    const runs = existsSync(runSpoolDir) ? await (await import('./run-log.js')).moveRunSpoolIn(db, runSpoolDir) : 0;
    if (runs)
      o.warn?.(
        `note: moved ${runs} run record(s) kept on this machine while the team state was unreachable into ${db.where}`,
      );
  }

  const backend: PostgresBackend = {
    kind: 'postgres',
    where: db.where,
    db,
    spool,
    runSpoolDir,
    ready: () =>
      (readied ??= prepare().catch((error: unknown) => {
        readied = undefined; // a later use may find the database back
        throw error;
      })),
    document: (kind) =>
      new PgDocument(kind, {
        db,
        ready: () => backend.ready(),
        spool,
        onKept: (k, error) => {
          if (warned.has(k.name)) return;
          warned.add(k.name);
          o.warn?.(
            `warning: the team state at ${db.where} failed after the request was sent (${db.unavailable(error).message.replace(/^the team state at \S+ cannot be used \((.*)\)(; nothing was sent)?$/, '$1')}): its ${k.what} record is kept on this machine in ${spool.dir} and moves to the team state on the next schedctl run with it (or schedctl state push)`,
          );
        },
      }),
    async assertWritable() {
      await backend.ready();
      try {
        await db.query('SELECT 1');
      } catch (error) {
        throw db.unavailable(error);
      }
    },
    hold: async (subject, work, onWait) => {
      await backend.ready();
      return holdAdvisory(db, subject, o.leadWaitMs, work, onWait);
    },
    runLogs: async () =>
      (await import('./run-log.js')).pgRunLogs({
        db,
        ready: () => backend.ready(),
        spoolDir: runSpoolDir,
        warn: o.warn,
      }),
    close: () => db.end(),
  };
  return backend;
}
