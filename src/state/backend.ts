/**
 * Where the ledger lives: a SQLite database in the config directory (the default) or a team's
 * PostgreSQL database, the same tables in both (sql/tables.ts). Like Terraform's remote.Client +
 * ClientLocker, a backend only keeps records and locks; it never decides a booking rule
 * (src/domain/lead-rule.ts does, through the stores). One contract suite
 * (test/unit/state-backend-contract.test.ts) runs against both.
 */
import type { RunLogStore } from '../bulk/run-log.js';
import type { HeldLock, LockWait } from './lead-lock.js';
import type { Sql } from './sql/types.js';

/** What a lock guards: one lead's bookings, or one meeting's moves, in a workspace. */
export type LockSubject =
  { kind: 'lead'; scope: string; email: string } | { kind: 'meeting'; scope: string; id: string };

export interface LedgerBackend {
  readonly kind: 'local' | 'postgres';
  /** For messages: the config directory, or the database URL without its password. */
  readonly where: string;
  /** The ledger's tables (the database opened, and its schema made current, on first use). */
  sql(): Promise<Sql>;
  /** Before sending something whose outcome must be written down: fails when nothing can be. */
  assertWritable(): Promise<void>;
  /**
   * Runs `work` as the only schedctl run (of every machine sharing this backend) holding
   * `subject`; `waitMs`, when given, instead of the backend's wait for a subject held elsewhere.
   */
  hold<T>(
    subject: LockSubject,
    work: (held: HeldLock) => Promise<T>,
    onWait?: (wait: LockWait) => void,
    waitMs?: number,
  ): Promise<T>;
  /** Where bulk runs keep their logs (loaded on first use: only `--from` runs need it). */
  runLogs(): Promise<RunLogStore>;
  /** Releases connections (a command's end); the backend is not used after. */
  close(): Promise<void>;
}

/** The label of a lock subject in messages. */
export const subjectLabel = (s: LockSubject): string => (s.kind === 'lead' ? s.email : `meeting ${s.id}`);
