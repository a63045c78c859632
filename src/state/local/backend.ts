/** The default backend: the config directory's SQLite ledger, and locks across this machine's processes. */
import { join } from 'node:path';
import type { LedgerBackend } from '../backend.js';
import { assertWritable } from '../disk.js';
import { EVENTS_FILE, FIRES_FILE, JOURNAL_FILE, MEETINGS_FILE, OUTCOMES_FILE } from '../files.js';
import { JsonFile, type FileKind } from '../json-file.js';
import { holdLead, holdLock, lockHome, meetingLockFile } from '../lead-lock.js';
import type { LockTiming } from '../lock.js';
import { countDocuments, importDocuments, type LedgerDocuments } from '../sql/documents.js';
import { LEDGER_DB, releaseLedger, sqliteLedger } from '../sqlite/engine.js';
import { documentsBeside, isStandIn } from '../sqlite/documents-beside.js';
import type { Sql } from '../sql/types.js';

export function localBackend(
  dir: string,
  timing: LockTiming,
  leadTiming: LockTiming,
  warn?: (line: string) => void,
): LedgerBackend {
  const ledger = sqliteLedger(dir, {
    busyMs: timing.waitMs,
    // Documents, not the stand-ins this version leaves in their place (documents-beside.ts).
    hasDocuments: () => documentsBeside(dir).length > 0,
    importDocuments: (sql, keep = false) => importLocalDocuments(sql, readLocalDocuments(dir, timing), keep),
    warn,
  });
  return {
    kind: 'local',
    where: dir,
    sql: async () => ledger,
    assertWritable: async () => assertWritable(dir),
    // Beside the ledger's real file: one claim per lead per ledger, whichever directory reaches it.
    hold: (subject, work, onWait, waitMs = leadTiming.waitMs) =>
      subject.kind === 'lead'
        ? holdLead(lockHome(join(dir, LEDGER_DB), dir), { ...leadTiming, waitMs }, subject, work, onWait)
        : holdLock(
            meetingLockFile(lockHome(join(dir, LEDGER_DB), dir), subject.scope, subject.id),
            { ...leadTiming, waitMs },
            { label: `meeting ${subject.id}`, onWait },
            work,
          ),
    // In the ledger's own table (moving in the files a schedctl from before kept in runs/).
    runLogs: async () => (await import('../sqlite/run-log.js')).sqliteRunLogs({ dir, sql: ledger, warn }),
    close: async () => releaseLedger(ledger),
  };
}

/**
 * The ledger documents of a schedctl from before the tables, validated (a damaged one is refused,
 * naming it); a stand-in reads as an empty document.
 */
export function readLocalDocuments(dir: string, timing: LockTiming): LedgerDocuments {
  const read = <T>(kind: FileKind<T>): T =>
    isStandIn(join(dir, kind.name)) ? kind.empty() : new JsonFile(dir, kind, timing).readNow();
  return {
    journal: read(JOURNAL_FILE),
    meetings: read(MEETINGS_FILE),
    outcomes: read(OUTCOMES_FILE),
    fires: read(FIRES_FILE),
    events: read(EVENTS_FILE),
  };
}

async function importLocalDocuments(sql: Sql, docs: LedgerDocuments, keep: boolean) {
  return { read: countDocuments(docs), written: await importDocuments(sql, docs, keep) };
}
