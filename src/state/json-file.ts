/**
 * One JSON state file: validated reads (missing file = defaults; anything unreadable is an
 * error, never a silent reset) and locked, atomic read-modify-writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as z from '../api/zod.js';
import { ensureDir, writeAtomic } from './disk.js';
import { StateFileError, describeOsError, errnoCode } from './errors.js';
import { withLock, type LockTiming } from './lock.js';

export interface FileKind<T> {
  /** File name in the config dir, e.g. `journal.json`. */
  name: string;
  /** What it holds, for messages: "a readable schedctl <what> file". */
  what: string;
  /** Built on first read: building zod schemas is part of a command's cold start. */
  schema: () => z.ZodMiniType<T>;
  empty: () => T;
  /**
   * Optional: a cheap check that accepts only content the schema accepts unchanged (the usual,
   * well-formed file), so that reading it builds no zod schema; anything else goes to the schema.
   */
  isPlain?: (json: unknown) => json is T;
}

/**
 * One document of the ledger (the journal, the meetings record, ...), wherever it is kept: a
 * file in the config directory (JsonFile) or a row of the team database (postgres/document.ts).
 * The stores see only this; a backend never decides a booking rule.
 */
export interface StateDocument<T> {
  /** Where it is kept, for messages (a file path, or the database URL without its password). */
  readonly path: string;
  /** The current content (a fresh copy: callers may change it freely). Never writes. */
  read(): Promise<T>;
  /**
   * One atomic read-modify-write, exclusive against every other writer: `change` edits the fresh
   * content in place (synchronously) and returns the result; written only when it changed.
   */
  update<R>(change: (data: T) => R): Promise<R>;
}

export class JsonFile<T> implements StateDocument<T> {
  readonly path: string;
  constructor(
    readonly dir: string,
    private readonly kind: FileKind<T>,
    private readonly timing: LockTiming,
  ) {
    this.path = join(dir, kind.name);
  }

  async read(): Promise<T> {
    return this.readNow();
  }

  /** The current content, synchronously (inside the lock). Never writes. */
  readNow(): T {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      // ENOTDIR: a part of the directory path is a file, so this file cannot exist either.
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return this.kind.empty();
      throw this.unreadable(describeOsError(error));
    }
    return parseStateText(text, this.kind, this.path);
  }

  /**
   * One locked read-modify-write: `change` edits the fresh content in place and returns the
   * result. The file is rewritten only when the content changed. A file that does not read
   * (StateFileError) is left exactly as it was.
   */
  async update<R>(change: (data: T) => R): Promise<R> {
    ensureDir(this.dir);
    return withLock(this.path, this.timing, () => {
      const data = this.readNow();
      const before = JSON.stringify(data);
      const result = change(data);
      if (JSON.stringify(data) !== before) writeAtomic(this.path, `${JSON.stringify(data, null, 2)}\n`);
      return result;
    });
  }

  private unreadable(reason: string): StateFileError {
    return new StateFileError(this.path, this.kind.what, reason);
  }
}

/**
 * The content of a state file from its text: validated, or StateFileError saying why not
 * (the text itself is never quoted: it may hold an API key). Shared with config-file.ts.
 */
export function parseStateText<T>(text: string, kind: FileKind<T>, path: string): T {
  const unreadable = (reason: string) => new StateFileError(path, kind.what, reason);
  // An empty file is what a crash of a non-atomic writer (or a full disk) leaves behind.
  if (text.trim() === '') throw unreadable('it is empty');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the text around the fault, which may be an API key.
    throw unreadable('not JSON, maybe cut off');
  }
  if (kind.isPlain?.(json)) return json;
  const parsed = kind.schema().safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `at ${issue.path.map(String).join('.')}: ` : '';
    throw unreadable(`unexpected content ${where}${issue?.message ?? 'wrong shape'}`);
  }
  return parsed.data;
}

/** The base of each store of the state: its one file, and the clock of the timestamps it writes. */
export abstract class FileStore<T> {
  constructor(
    protected readonly file: StateDocument<T>,
    protected readonly now: () => Date,
  ) {}

  get path(): string {
    return this.file.path;
  }
}
