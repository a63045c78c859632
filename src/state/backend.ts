/**
 * Where the ledger lives: the local files of the config directory (the default) or a team's
 * PostgreSQL database. Like Terraform's remote.Client + ClientLocker, a backend only keeps
 * documents and locks; it never decides a booking rule (src/domain/ledger.ts does, through the
 * stores). One contract suite (test/unit/state-backend-contract.test.ts) runs against both.
 */
import type { RunLogStore } from '../bulk/run-log.js';
import type { FileKind, StateDocument } from './json-file.js';
import type { HeldLock, LockWait } from './lead-lock.js';

/** What a lock guards: one lead's bookings, or one meeting's moves, in a workspace. */
export type LockSubject =
  { kind: 'lead'; scope: string; email: string } | { kind: 'meeting'; scope: string; id: string };

export interface LedgerBackend {
  readonly kind: 'local' | 'postgres';
  /** For messages: the config directory, or the database URL without its password. */
  readonly where: string;
  document<T>(kind: FileKind<T>): StateDocument<T>;
  /** Before sending something whose outcome must be written down: fails when nothing can be. */
  assertWritable(): Promise<void>;
  /** Runs `work` as the only schedctl run (of every machine sharing this backend) holding `subject`. */
  hold<T>(subject: LockSubject, work: (held: HeldLock) => Promise<T>, onWait?: (wait: LockWait) => void): Promise<T>;
  /** Where bulk runs keep their logs (loaded on first use: only `--from` runs need it). */
  runLogs(): Promise<RunLogStore>;
  /** Releases connections (a command's end); the backend is not used after. */
  close(): Promise<void>;
}

/** The label of a lock subject in messages. */
export const subjectLabel = (s: LockSubject): string => (s.kind === 'lead' ? s.email : `meeting ${s.id}`);
