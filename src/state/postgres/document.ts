/**
 * A ledger document kept in the team database: one row of `schedctl_documents`, read and
 * read-modify-written in a transaction holding its row lock (SELECT … FOR UPDATE), so every
 * machine's writes to it are serialised like the local files' under their lock.
 *
 * When a write fails after this process sent a request that must not be repeated (its outcome
 * would otherwise be lost), the change is applied to the last content this process saw and the
 * records it changed are kept on this machine (spool.ts), to be moved into the database by the
 * next run. Before such a request, a failure refuses: the ledger is never split silently.
 */
import { hasSentUnrepeatable } from '../../api/send-hook.js';
import { parseStateText, type FileKind, type StateDocument } from '../json-file.js';
import { isConnectionFailure, type Database } from './connect.js';
import { changedRecords, type Spool } from './spool.js';

export interface DocumentDeps {
  db: Database;
  /** The schema is there and current, the spool moved in (once per process). */
  ready: () => Promise<void>;
  spool: Spool;
  /** Told once per document when a change is kept on this machine instead. */
  onKept: (kind: FileKind<unknown>, error: unknown) => void;
}

export class PgDocument<T> implements StateDocument<T> {
  readonly path: string;
  /** The last content this process read or wrote: the base of a change kept on this machine. */
  private seen: string | undefined;

  constructor(
    private readonly kind: FileKind<T>,
    private readonly deps: DocumentDeps,
  ) {
    this.path = `${deps.db.where} (${kind.name.replace(/\.json$/, '')})`;
  }

  async read(): Promise<T> {
    const { db, ready } = this.deps;
    try {
      await ready();
      const rows = await db.query<{ body: unknown }>('SELECT body FROM schedctl_documents WHERE kind = $1', [
        this.kind.name,
      ]);
      const data = this.parse(rows[0]?.body);
      this.seen = JSON.stringify(data);
      return data;
    } catch (error) {
      throw this.asFailure(error);
    }
  }

  async update<R>(change: (data: T) => R): Promise<R> {
    const { db, ready } = this.deps;
    try {
      await ready();
      return await db.transaction(async (client) => {
        // One round trip: the row made if missing, locked (ON CONFLICT DO UPDATE), and read.
        const r = await client.query<{ body: unknown }>(
          `INSERT INTO schedctl_documents (kind, body) VALUES ($1, $2)
           ON CONFLICT (kind) DO UPDATE SET kind = EXCLUDED.kind RETURNING body`,
          [this.kind.name, JSON.stringify(this.kind.empty())],
        );
        const data = this.parse(r.rows[0]?.body);
        const before = JSON.stringify(data);
        const result = change(data);
        const after = JSON.stringify(data);
        if (after !== before)
          await client.query('UPDATE schedctl_documents SET body = $2, updated_at = now() WHERE kind = $1', [
            this.kind.name,
            after,
          ]);
        this.seen = after;
        return result;
      });
    } catch (error) {
      if (!hasSentUnrepeatable() || !isKeepable(error)) throw this.asFailure(error);
      return this.keepHere(change, error);
    }
  }

  private async keepHere<R>(change: (data: T) => R, error: unknown): Promise<R> {
    // Never read here: the change applies to an empty document (a new record is still kept).
    const seen = this.seen ?? JSON.stringify(this.kind.empty());
    const base = JSON.parse(seen) as T;
    const copy = JSON.parse(seen) as T;
    const result = change(copy);
    const records = changedRecords(this.kind as FileKind<unknown>, base, copy);
    await this.deps.spool.keep(this.kind as FileKind<unknown>, records);
    this.seen = JSON.stringify(copy);
    // Only what was kept is said to be: a change that only removes records (an outcome used up by
    // its booking) leaves no record to keep, and the spool cannot carry a removal.
    if (records.size > 0) this.deps.onKept(this.kind as FileKind<unknown>, error);
    return result;
  }

  private parse(body: unknown): T {
    if (body === undefined) return this.kind.empty();
    return parseStateText(JSON.stringify(body), this.kind, this.path);
  }

  private asFailure(error: unknown): Error {
    if (error instanceof Error && 'exitCode' in error) return error; // already one of ours
    return this.deps.db.unavailable(error);
  }
}

/** A failure of the database or the way to it (not a bug of ours, nor a refusal of a rule). */
function isKeepable(error: unknown): boolean {
  return isConnectionFailure(error) || (error as { code?: unknown }).code === 'STATE_UNAVAILABLE';
}
