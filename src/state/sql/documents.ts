/**
 * The ledger as documents (the JSON files of schedctl before the tables, and a team database's
 * schema-2 rows) moved into the tables, record by record. Used by the migrations (local files →
 * SQLite, schema 2 → 3) with `replace`, and by `state push` (this machine's ledger into the team
 * database) with `keep`: a record already there is left as it is, so a second push changes nothing.
 */
import { putAlias } from '../events.js';
import { putFire } from '../fires.js';
import { putAttempt } from '../journal.js';
import { putMeeting } from '../meetings.js';
import { putOutcome } from '../outcomes.js';
import { normEmail } from '../records.js';
import type { EventsFile, FiresFile, JournalFile, MeetingsFile, OutcomesFile } from '../schemas.js';
import { get, type Sql } from './types.js';

export interface LedgerDocuments {
  journal?: JournalFile | undefined;
  meetings?: MeetingsFile | undefined;
  outcomes?: OutcomesFile | undefined;
  fires?: FiresFile | undefined;
  events?: EventsFile | undefined;
}

/** Records per kind: what was moved, or what a ledger holds (`state status`, the migration's check). */
export interface LedgerCounts {
  journal: number;
  meetings: number;
  outcomes: number;
  fires: number;
  events: number;
}

/** How many records the documents hold, per kind. */
export function countDocuments(d: LedgerDocuments): LedgerCounts {
  return {
    journal: d.journal?.entries.length ?? 0,
    meetings: Object.keys(d.meetings?.meetings ?? {}).length,
    outcomes: Object.keys(d.outcomes?.outcomes ?? {}).length,
    fires: d.fires?.fires.length ?? 0,
    events: Object.keys(d.events?.aliases ?? {}).length,
  };
}

/** How many records the tables hold, per kind: one statement (one round trip to a team database). */
export async function countTables(sql: Sql): Promise<LedgerCounts> {
  const tables: Record<keyof LedgerCounts, string> = {
    journal: 'schedctl_attempts',
    meetings: 'schedctl_meetings',
    outcomes: 'schedctl_outcomes',
    fires: 'schedctl_fires',
    events: 'schedctl_event_aliases',
  };
  const counts = Object.entries(tables).map(([kind, table]) => `(SELECT count(*) FROM ${table}) AS ${kind}`);
  const row = await get<Record<keyof LedgerCounts, number | string>>(sql, `SELECT ${counts.join(', ')}`);
  // Counts without a GROUP BY: always one row.
  const n = (kind: keyof LedgerCounts) => Number(row![kind]);
  return {
    journal: n('journal'),
    meetings: n('meetings'),
    outcomes: n('outcomes'),
    fires: n('fires'),
    events: n('events'),
  };
}

/**
 * Writes every record of the documents into the tables (in the caller's transaction); resolves
 * to how many rows were written per kind. `keep`: a record already in the tables stays as it is.
 */
export async function importDocuments(sql: Sql, d: LedgerDocuments, keep: boolean): Promise<LedgerCounts> {
  const out: LedgerCounts = { journal: 0, meetings: 0, outcomes: 0, fires: 0, events: 0 };
  for (const e of d.journal?.entries ?? []) out.journal += await putAttempt(sql, e, keep);
  // Keyed `${scope} ${meetingId}`: the record carries both.
  for (const m of Object.values(d.meetings?.meetings ?? {})) out.meetings += await putMeeting(sql, m, keep);
  for (const [key, r] of Object.entries(d.outcomes?.outcomes ?? {})) {
    // Records written before `scope` was stored are recognised by their key's prefix, as before.
    const suffix = ` ${r.triggerId} ${normEmail(r.email)}`;
    const scope = r.scope ?? (key.endsWith(suffix) ? key.slice(0, -suffix.length) : key.split(' ')[0]!);
    out.outcomes += await putOutcome(sql, scope, r, keep);
  }
  for (const f of d.fires?.fires ?? []) out.fires += await putFire(sql, f, keep);
  for (const [key, eventId] of Object.entries(d.events?.aliases ?? {})) {
    // `${workspace} ${alias}`: an alias (a slug or an id) holds no space; a workspace's name may.
    const at = key.lastIndexOf(' ');
    if (at > 0) out.events += await putAlias(sql, key.slice(0, at), key.slice(at + 1), eventId, keep);
  }
  return out;
}
