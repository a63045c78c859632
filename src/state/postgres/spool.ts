/**
 * Records as the unit of merging a ledger document into another: journal entries and fires by
 * id, outcomes, meetings and event aliases by key. Used twice: `state push` adds this machine's
 * local ledger to the team database (records it already has are left as they are, so a second
 * push changes nothing), and the spool: what the team database failed to save after a request
 * had left (the outcome of a booking, a fire, a move) is kept in `<config dir>/team-spool/` and
 * moved into the database by the next run, replacing the records it names.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { EVENTS_FILE, FIRES_FILE, JOURNAL_FILE, MEETINGS_FILE, OUTCOMES_FILE } from '../files.js';
import { JsonFile, type FileKind } from '../json-file.js';
import type { LockTiming } from '../lock.js';

/** The ledger documents, in the order they are pushed. */
export const LEDGER_KINDS = [
  JOURNAL_FILE,
  MEETINGS_FILE,
  OUTCOMES_FILE,
  FIRES_FILE,
  EVENTS_FILE,
] as FileKind<unknown>[];

type Doc = Record<string, unknown>;
const LISTS: Record<string, string> = { 'journal.json': 'entries', 'fires.json': 'fires' };
const MAPS: Record<string, string> = {
  'outcomes.json': 'outcomes',
  'meetings.json': 'meetings',
  'events.json': 'aliases',
};

export function recordsOf(kind: FileKind<unknown>, doc: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const d = doc as Doc;
  const list = LISTS[kind.name];
  if (list) for (const r of (d[list] as { id: string }[] | undefined) ?? []) out.set(r.id, r);
  const map = MAPS[kind.name];
  if (map) for (const [k, r] of Object.entries((d[map] as Doc | undefined) ?? {})) out.set(k, r);
  return out;
}

/** The records of `after` that are new or changed since `before`. */
export function changedRecords(kind: FileKind<unknown>, before: unknown, after: unknown): Map<string, unknown> {
  const was = recordsOf(kind, before);
  const out = new Map<string, unknown>();
  for (const [k, r] of recordsOf(kind, after)) if (JSON.stringify(was.get(k)) !== JSON.stringify(r)) out.set(k, r);
  return out;
}

/**
 * A kept journal entry still "unknown" while the database's says booked or already booked:
 * another machine learnt the outcome after this one kept its copy, and an outcome once known
 * stays known (the kept copy would block the lead as if nobody knew).
 */
function undoesOutcome(held: unknown, kept: unknown): boolean {
  const outcome = (e: unknown) => (e as { outcome?: unknown }).outcome;
  return outcome(kept) === 'unknown' && outcome(held) !== undefined && outcome(held) !== 'unknown';
}

/**
 * Puts `records` into `doc` (in place); resolves to how many changed it. `replace`: a record
 * with the same key is overwritten (the spool: newer than the database's, but for a journal
 * entry whose outcome the database knows and the kept copy does not); otherwise it is kept.
 */
export function mergeRecords(
  kind: FileKind<unknown>,
  doc: unknown,
  records: Map<string, unknown>,
  mode: 'replace' | 'add-missing',
): number {
  const d = doc as Doc;
  let changed = 0;
  const list = LISTS[kind.name];
  if (list) {
    const items = ((d[list] as { id: string }[] | undefined) ??= []);
    const at = new Map(items.map((r, i) => [r.id, i]));
    for (const [k, r] of records) {
      const i = at.get(k);
      if (i === undefined) {
        items.push(r as { id: string });
        changed++;
      } else if (
        mode === 'replace' &&
        JSON.stringify(items[i]) !== JSON.stringify(r) &&
        !(kind.name === 'journal.json' && undoesOutcome(items[i], r))
      ) {
        items[i] = r as { id: string };
        changed++;
      }
    }
  }
  const map = MAPS[kind.name];
  if (map) {
    const items = ((d[map] as Doc | undefined) ??= {});
    for (const [k, r] of records) {
      const has = Object.prototype.hasOwnProperty.call(items, k);
      if (!has || (mode === 'replace' && JSON.stringify(items[k]) !== JSON.stringify(r))) {
        Object.defineProperty(items, k, { value: r, enumerable: true, writable: true, configurable: true });
        changed++;
      }
    }
  }
  return changed;
}

/** This machine's keep of what the team database could not save (one file per ledger document). */
export class Spool {
  readonly dir: string;
  constructor(
    configDir: string,
    private readonly timing: LockTiming,
  ) {
    this.dir = join(configDir, 'team-spool');
  }

  file<T>(kind: FileKind<T>): JsonFile<T> {
    return new JsonFile(this.dir, kind, this.timing);
  }

  async keep(kind: FileKind<unknown>, records: Map<string, unknown>): Promise<void> {
    if (records.size === 0) return;
    await this.file(kind).update((doc) => mergeRecords(kind, doc, records, 'replace'));
  }

  /** What is kept, per document (empty when nothing is). */
  async held(): Promise<{ kind: FileKind<unknown>; records: Map<string, unknown> }[]> {
    // Nearly always nothing is kept: one stat instead of reading five files (every run's start).
    if (!existsSync(this.dir)) return [];
    const out = [];
    for (const kind of LEDGER_KINDS) {
      const records = recordsOf(kind, await this.file(kind).read());
      if (records.size) out.push({ kind, records });
    }
    return out;
  }

  /** Forgets a document's kept records once the database has them. */
  drop(kind: FileKind<unknown>): void {
    rmSync(this.file(kind).path, { force: true });
  }
}
