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
import { importDocuments } from '../sql/documents.js';
import type { Sql } from '../sql/types.js';
import { tlsNote } from './client-config.js';
import { isConnectionFailure, openDatabase, type Database, type EarlyConnection } from './connect.js';
import { LedgerSpool, type SpooledStatement } from './ledger-spool.js';
import { holdAdvisory, holderSoon, sessionClient, takeAndRecord } from './locks.js';
import { SchemaTooNewError, ensureSchema, schemaGuard } from './schema.js';
import { LegacySpool } from './spool.js';
import { onClient, pgSql } from './sql.js';
import { recordWriter, tooNewHint, versionBefore } from './writer.js';

/** How recent an answer of the database stands for "it is there" (assertWritable). */
const FRESH_ANSWER_MS = 1000;

// The team backend's parts that the state commands (admin.ts), the bulk run logs (run-log.ts),
// the shared rate budget (services.ts) and the state store (../index.ts) use are imported from
// here, not from their own modules, and statically: the build then puts every module of the
// backend in the state store's chunk, which every command loads anyway (about 11 KB, a fraction
// of a millisecond to compile without the client). A dynamic import of its own cost a command
// with a team state 5-7 ms of Node 20's ES module loader (resolve, read, compile, link), and,
// started while the HTTP layer loads, it was answered only after it
// (test/perf/bundle-layout.test.ts holds the layout; pg itself still loads only when used).
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
};
const kindOf = (s: SpooledStatement) => KIND_OF[/schedctl_\w+/.exec(s.sql)?.[0] ?? ''] ?? 'ledger';

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
  readonly spool: LedgerSpool;
  readonly legacySpool: LegacySpool;
  /** Where run records the database failed to take are kept: `<config dir>/team-spool/runs`. */
  readonly runSpoolDir: string;
  /** The schema is there and current, what the spool kept moved in (once per process). */
  ready(): Promise<void>;
  /**
   * The schema check to send in front of the command's first statement, instead of a round trip
   * of its own (schemaGuard): undefined once asked or answered, or when what a spool kept must
   * move in first. Whoever takes it says how it went (guardAnswered) before anything else runs.
   */
  takeGuard(): string | undefined;
  /** `true`: the guard passed, the schema is current. `false`: it failed (or its answer was lost): the full check runs. */
  guardAnswered(passed: boolean): void;
}

export function postgresBackend(o: PostgresBackendOptions): PostgresBackend {
  const db = openDatabase(o.url, o.early);
  const note = tlsNote(o.url);
  if (note) o.warn?.(note);
  const spoolDir = join(o.dir, 'team-spool');
  const spool = new LedgerSpool(spoolDir, DEFAULT_LOCK_TIMING);
  const legacySpool = new LegacySpool(spoolDir, DEFAULT_LOCK_TIMING);
  const runSpoolDir = join(spoolDir, 'runs');
  const warned = new Set<string>();
  let readied: Promise<void> | undefined;
  /** The guard, sent and not answered yet: ready() waits for its answer. */
  let guardInFlight: { answered: Promise<boolean>; settle: (passed: boolean) => void } | undefined;
  let guardTaken = false;
  /** When the schema check was answered (each process asks it once), on the monotonic clock. */
  let readiedAt = 0;
  let sql: Sql | undefined;

  async function prepare(): Promise<void> {
    try {
      const before = await versionBefore(db);
      const now = await ensureSchema(db, before);
      readiedAt = performance.now();
      // This schedctl made or migrated the schema: it says which version it is (writer.ts).
      if (before !== now) await recordWriter(db);
    } catch (error) {
      if (error instanceof SchemaTooNewError) throw db.unavailable(error, await tooNewHint(db, error));
      throw db.unavailable(error);
    }
    await moveSpoolIn();
  }

  async function moveSpoolIn(): Promise<void> {
    const transaction = <R>(work: (tx: Sql) => Promise<R>) =>
      db.transaction((client) => onClient(db.where, client, work));
    const legacy = legacySpool.held();
    if (legacy) {
      // Kept by a schedctl from before the tables: newer than the database's records, but for an
      // attempt whose outcome the database knows and the kept copy does not (it stays known).
      const unknown = (legacy.journal?.entries ?? []).filter((e) => e.outcome === 'unknown');
      const known = (legacy.journal?.entries ?? []).filter((e) => e.outcome !== 'unknown');
      const n = await transaction(async (tx) => {
        const written = await importDocuments(tx, { ...legacy, journal: { entries: known } }, false);
        const kept = await importDocuments(tx, { journal: { entries: unknown } }, true);
        return Object.values(written).reduce((a, b) => a + b, 0) + kept.journal;
      });
      legacySpool.drop();
      if (n)
        o.warn?.(
          `note: moved ${n} ledger record(s) kept on this machine while the team state was unreachable into ${db.where}`,
        );
    }
    const kept = spool.pending();
    if (kept.length) {
      await spool.applyTo(transaction);
      const byKind = new Map<string, number>();
      for (const s of kept) byKind.set(kindOf(s), (byKind.get(kindOf(s)) ?? 0) + 1);
      for (const [kind, n] of byKind)
        o.warn?.(
          `note: moved ${n} ${kind} record(s) kept on this machine while the team state was unreachable into ${db.where}`,
        );
    }
    // Loaded only when a bulk run kept records here (or runs now): most commands never need it.
    const runs = existsSync(runSpoolDir) ? await (await import('./run-log.js')).moveRunSpoolIn(db, runSpoolDir) : 0;
    if (runs)
      o.warn?.(
        `note: moved ${runs} run record(s) kept on this machine while the team state was unreachable into ${db.where}`,
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
    legacySpool,
    runSpoolDir,
    ready: () =>
      (readied ??= (
        guardInFlight ? guardInFlight.answered.then((passed) => (passed ? undefined : prepare())) : prepare()
      ).catch((error: unknown) => {
        readied = undefined; // a later use may find the database back
        throw error;
      })),
    takeGuard() {
      if (guardTaken || readied) return undefined;
      guardTaken = true;
      // What a spool kept moves in before anything else: the full check does that.
      if (legacySpool.held() || spool.pending().length > 0 || existsSync(runSpoolDir)) return undefined;
      let settle!: (passed: boolean) => void;
      const answered = new Promise<boolean>((resolve) => (settle = resolve));
      guardInFlight = { answered, settle };
      return schemaGuard();
    },
    guardAnswered(passed) {
      if (passed) readiedAt = performance.now();
      guardInFlight?.settle(passed);
      guardInFlight = undefined;
      if (passed) readied ??= Promise.resolve();
    },
    sql: async () =>
      (sql ??= pgSql({
        db,
        ready: () => backend.ready(),
        takeGuard: () => backend.takeGuard(),
        guardAnswered: (passed) => backend.guardAnswered(passed),
        spool,
        onKept,
      })),
    async assertWritable() {
      await backend.ready();
      // The schema check was answered a moment ago (a command's start): the database is there,
      // and asking again would only cost a round trip. A long-lived process (MCP) asks again.
      if (readiedAt > 0 && performance.now() - readiedAt < FRESH_ANSWER_MS) return;
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
        locks: { holderSoon, sessionClient, takeAndRecord },
        isConnectionFailure,
        db,
        ready: () => backend.ready(),
        spoolDir: runSpoolDir,
        warn: o.warn,
      }),
    close: () => db.end(),
  };
  return backend;
}
