/**
 * What the team database failed to save after a request had left this machine (the outcome of a
 * booking, a fire, a move): the write statements of those steps, kept in
 * `<config dir>/team-spool/ledger.jsonl`, appended in the order they were made, and applied to
 * the database in that order, in one transaction, by the next run with the team state (or
 * `schedctl state push`). Each statement carries its whole row or names what it removes, so
 * applying them again changes nothing more.
 */
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir } from '../disk.js';
import { StateFileError, StateWriteError } from '../errors.js';
import { withLock, type LockTiming } from '../lock.js';
import type { SqlValue } from '../sql/types.js';
import { toPg, type Database } from './connect.js';

export interface SpooledStatement {
  sql: string;
  params: SqlValue[];
}

export class LedgerSpool {
  readonly path: string;
  constructor(
    readonly dir: string,
    private readonly timing: LockTiming,
  ) {
    this.path = join(dir, 'ledger.jsonl');
  }

  async keep(statements: SpooledStatement[]): Promise<void> {
    ensureDir(this.dir);
    await withLock(this.path, this.timing, () => {
      try {
        appendFileSync(this.path, statements.map((s) => `${JSON.stringify(s)}\n`).join(''), { mode: 0o600 });
      } catch (error) {
        throw new StateWriteError(this.path, error);
      }
    });
  }

  /** The statements kept (none: one stat, every run's start). */
  pending(): SpooledStatement[] {
    return existsSync(this.path) ? this.read() : [];
  }

  /** Applies what is kept to the database (one step, in order), then forgets it; resolves to how many. */
  async applyTo(db: Pick<Database, 'step'>): Promise<number> {
    if (!existsSync(this.path)) return 0;
    return withLock(this.path, this.timing, () => this.read()).then(async (kept) => {
      if (kept.length === 0) return 0;
      await db.step(kept.map((s) => [toPg(s.sql), s.params] as const));
      // Only what was applied is forgotten: a run that kept more meanwhile appended after it.
      await withLock(this.path, this.timing, () => {
        const now = this.read();
        if (now.length <= kept.length) rmSync(this.path, { force: true });
        else appendRest(this.path, now.slice(kept.length));
      });
      return kept.length;
    });
  }

  private read(): SpooledStatement[] {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return [];
    }
    const out: SpooledStatement[] = [];
    const lines = text.split('\n').filter((line) => line.trim());
    lines.forEach((line, i) => {
      try {
        out.push(JSON.parse(line) as SpooledStatement);
      } catch {
        // A crash mid-append cuts off the last line only (it was never a whole statement, nor
        // reported as kept); anything else is damage, said rather than skipped.
        if (i < lines.length - 1)
          throw new StateFileError(
            this.path,
            'team spool',
            `its record ${i + 1} (a line of its own) is not JSON`,
            'it was not changed; its records are writes the team database has not had yet: mend or remove that line, and the rest are applied',
          );
      }
    });
    return out;
  }
}

function appendRest(path: string, rest: SpooledStatement[]): void {
  rmSync(path, { force: true });
  appendFileSync(path, rest.map((s) => `${JSON.stringify(s)}\n`).join(''), { mode: 0o600 });
}
