/**
 * What a schedctl from before the tables kept on this machine while the team database was
 * unreachable: one JSON document per ledger kind in `<config dir>/team-spool/` (journal.json, …).
 * Moved into the tables by the next run (backend.ts), then removed. New kept steps are statements
 * (ledger-spool.ts).
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { EVENTS_FILE, FIRES_FILE, JOURNAL_FILE, MEETINGS_FILE, OUTCOMES_FILE } from '../files.js';
import { JsonFile } from '../json-file.js';
import type { LockTiming } from '../lock.js';
import { countDocuments, type LedgerDocuments } from '../sql/documents.js';

const KINDS = [JOURNAL_FILE, MEETINGS_FILE, OUTCOMES_FILE, FIRES_FILE, EVENTS_FILE];

export class LegacySpool {
  constructor(
    readonly dir: string,
    private readonly timing: LockTiming,
  ) {}

  /** The kept documents, or undefined when none are (one stat: every run's start). */
  held(): LedgerDocuments | undefined {
    if (!KINDS.some((k) => existsSync(join(this.dir, k.name)))) return undefined;
    const t = this.timing;
    return {
      journal: new JsonFile(this.dir, JOURNAL_FILE, t).readNow(),
      meetings: new JsonFile(this.dir, MEETINGS_FILE, t).readNow(),
      outcomes: new JsonFile(this.dir, OUTCOMES_FILE, t).readNow(),
      fires: new JsonFile(this.dir, FIRES_FILE, t).readNow(),
      events: new JsonFile(this.dir, EVENTS_FILE, t).readNow(),
    };
  }

  count(): number {
    const held = this.held();
    return held ? Object.values(countDocuments(held)).reduce((a, b) => a + b, 0) : 0;
  }

  drop(): void {
    for (const k of KINDS) rmSync(join(this.dir, k.name), { force: true });
  }
}
