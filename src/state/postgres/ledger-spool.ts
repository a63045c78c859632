/**
 * The writes the team database failed to take after a request had left (a booking's outcome, a
 * fire's, a move's), appended to `<config dir>/team-spool/ledger.jsonl` and applied in order, in
 * one transaction, by the next run with the team state (or `state push`). Each is idempotent.
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
        appendFileSync(this.path, lines(statements), { mode: 0o600 });
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
    const kept = await withLock(this.path, this.timing, () => this.read());
    if (kept.length === 0) return 0;
    await db.step(kept.map((s) => [toPg(s.sql), s.params] as const));
    // Only what was applied is forgotten: a run that kept more meanwhile appended after it.
    await withLock(this.path, this.timing, () => {
      const rest = this.read().slice(kept.length);
      rmSync(this.path, { force: true });
      if (rest.length) appendFileSync(this.path, lines(rest), { mode: 0o600 });
    });
    return kept.length;
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
        // A crash mid-append cuts off the last line only (never reported kept); else it is damage.
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

const lines = (statements: SpooledStatement[]) => statements.map((s) => `${JSON.stringify(s)}\n`).join('');
