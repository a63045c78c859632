/**
 * The team state backend: the ledger's tables, the lead and meeting locks and the rate budget in
 * a PostgreSQL database a team shares, on one connection per command (connect.ts). The schema
 * check rides in front of the first statements; what a spool kept (ledger-spool.ts) moves in
 * first, with the full check.
 */
import { existsSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LedgerBackend } from '../backend.js';
import { DEFAULT_LOCK_TIMING } from '../lock.js';
import type { Sql } from '../sql/types.js';
import { tlsNote } from './client-config.js';
import { openDatabase, type Database } from './connect.js';
import type { EarlyConnection } from './load-pg.js';
import { LedgerSpool, type SpooledStatement } from './ledger-spool.js';
import { holdAdvisory, holderOf, takeLock } from './locks.js';
import { SchemaTooNewError, ensureSchema, schemaGuard, tooNewHint } from './schema.js';
import { pgSql } from './sql.js';

/** How recent an answer of the database stands for "it is there" (assertWritable). */
const FRESH_ANSWER_MS = 1000;

// Imported from here, statically: the build keeps the backend in the state store's chunk, which
// every command loads; a chunk of its own cost 5-7 ms (test/perf/bundle-layout.test.ts).
export { type Database } from './connect.js';
export { HOLDERS_SQL } from './locks.js';
export { pgBudgetInUse, pgBudgetStore } from './rate-budget.js';

/** A table's records as messages name them (what `state status` counts them as). */
const KIND_OF: Record<string, string> = {
  schedctl_attempts: 'journal',
  schedctl_meetings: 'meetings',
  schedctl_outcomes: 'outcomes',
  schedctl_fires: 'fires',
  schedctl_event_aliases: 'event',
  schedctl_run_records: 'run',
};
const kindOf = (s: SpooledStatement) => KIND_OF[/schedctl_\w+/.exec(s.sql)?.[0] ?? ''] ?? 'ledger';

export interface PostgresBackendOptions {
  url: string;
  /** The config directory: where the spool is kept. */
  dir: string;
  leadWaitMs: number;
  warn?: ((line: string) => void) | undefined;
  /** The connection opened as soon as the URL was known (load-pg.ts connectEarly). */
  early?: EarlyConnection | undefined;
}

export interface PostgresBackend extends LedgerBackend {
  readonly db: Database;
  readonly spool: LedgerSpool;
  /** The schema current (or its check riding with the first statements), what the spool kept moved in. */
  ready(): Promise<void>;
}

export function postgresBackend(o: PostgresBackendOptions): PostgresBackend {
  const db = openDatabase(o.url, o.early);
  const note = tlsNote(o.url);
  if (note) o.warn?.(note);
  const spoolDir = join(o.dir, 'team-spool');
  const spool = new LedgerSpool(spoolDir, DEFAULT_LOCK_TIMING);
  // Where a schedctl before 0.3 kept run records apart: moved into the spool (moveSpoolIn).
  const runSpoolDir = join(spoolDir, 'runs');
  const warned = new Set<string>();
  let readied: Promise<void> | undefined;
  let sql: Sql | undefined;

  /** The full check: the schema made or migrated (or a newer one refused), then what a spool kept moved in. */
  const fullCheck = () =>
    db.unchecked(async () => {
      try {
        await ensureSchema(db);
      } catch (error) {
        if (error instanceof SchemaTooNewError) throw db.unavailable(error, await tooNewHint(db, error));
        throw db.unavailable(error);
      }
      await moveSpoolIn();
    });

  async function moveSpoolIn(): Promise<void> {
    if (existsSync(runSpoolDir)) {
      const { runLogFiles } = await import('../../bulk/run-log.js');
      const { runRecordInsert } = await import('./run-log.js');
      for (const { key, path, records } of runLogFiles(runSpoolDir)) {
        await spool.keep(records.map((r) => runRecordInsert(key, r)));
        rmSync(path, { force: true });
      }
      // Gone once empty: a directory left would send every later command through the full check.
      try {
        rmdirSync(runSpoolDir);
      } catch {
        // Something other than a run log is in it: left as it is.
      }
    }
    const kept = spool.pending();
    if (kept.length === 0) return;
    await spool.applyTo(db);
    const byKind = new Map<string, number>();
    for (const s of kept) byKind.set(kindOf(s), (byKind.get(kindOf(s)) ?? 0) + 1);
    for (const [kind, n] of byKind)
      o.warn?.(
        `note: moved ${n} ${kind} record(s) kept on this machine while the team state was unreachable into ${db.where}`,
      );
  }

  const onKept = (error: unknown, statements: SpooledStatement[]) => {
    for (const kind of new Set(statements.map(kindOf))) {
      if (warned.has(kind)) continue;
      warned.add(kind);
      o.warn?.(
        `warning: the team state at ${db.where} failed after the request was sent (${db.unavailable(error).message.replace(/^the team state at \S+ cannot be used \((.*)\)(; nothing was sent)?$/, '$1')}): its ${kind} record is kept on this machine in ${spoolDir} and moves to the team state on the next schedctl run with it (or schedctl state push)`,
      );
    }
  };

  const backend: PostgresBackend = {
    kind: 'postgres',
    where: db.where,
    db,
    spool,
    ready: () =>
      (readied ??= (async () => {
        // What a spool kept moves in first, with the full check; otherwise the check rides (no round trip).
        if (spool.pending().length > 0 || existsSync(runSpoolDir)) await fullCheck();
        else db.checkSchema(schemaGuard(), fullCheck);
      })().catch((error: unknown) => {
        readied = undefined; // a later use may find the database back
        throw error;
      })),
    sql: async () => (sql ??= pgSql({ db, ready: () => backend.ready(), spool, onKept })),
    async assertWritable() {
      await backend.ready();
      // An answer a moment ago: the database is there (a long-lived process, MCP, asks again).
      if (db.answeredAt() > 0 && performance.now() - db.answeredAt() < FRESH_ANSWER_MS) return;
      try {
        await db.query('SELECT 1');
      } catch (error) {
        throw db.unavailable(error);
      }
    },
    hold: async (subject, work, onWait, waitMs = o.leadWaitMs) => {
      await backend.ready();
      return holdAdvisory(db, subject, waitMs, work, onWait);
    },
    runLogs: async () =>
      (await import('./run-log.js')).pgRunLogs({
        locks: { holderOf, takeLock },
        db,
        sql: () => backend.sql(),
        ready: () => backend.ready(),
      }),
    close: () => db.end(),
  };
  return backend;
}
