/**
 * One JSON state file: validated reads (missing file = defaults; anything unreadable is an
 * error, never a silent reset).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as z from '../api/zod.js';

import { StateFileError, describeOsError, errnoCode } from './errors.js';
import type { LockTiming } from './lock.js';

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
 * A JSON file of the config directory read as a whole, validated: the ledger documents of a
 * schedctl from before the tables (moved in once: sqlite/migrate.ts, postgres/schema.ts). Written
 * never: the ledger is tables now, and config.json has its own store (config-file.ts).
 */
export class JsonFile<T> {
  readonly path: string;
  constructor(
    readonly dir: string,
    private readonly kind: FileKind<T>,
    private readonly timing: LockTiming,
  ) {
    this.path = join(dir, kind.name);
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
