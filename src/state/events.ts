/**
 * Event aliases (table `event_aliases`): what the slots results and booked meetings taught the
 * ledger about which slug, scheduling link id or link slug stands for which eventId, per
 * workspace. The ledger compares events by id (state/identity.ts), never as typed.
 */
import { eventAliasKey } from './identity.js';
import { put } from './records.js';
import type { Sql, SqlSource } from './sql/types.js';

export async function putAlias(sql: Sql, scope: string, alias: string, eventId: string, keep = false): Promise<number> {
  return sql.run(
    `INSERT INTO schedctl_event_aliases (workspace, alias, event_id) VALUES (?, ?, ?)
     ON CONFLICT (workspace, alias) ${keep ? 'DO NOTHING' : `DO UPDATE SET event_id = excluded.event_id`}`,
    [scope, alias, eventId],
  );
}

export class EventAliases {
  constructor(
    private readonly db: SqlSource,
    protected readonly now: () => Date,
  ) {}

  /**
   * This workspace's aliases of the events named (alias → eventId): one indexed look-up per name,
   * never the whole table (a routed booking teaches one alias per scheduling link).
   */
  async of(scope: string, names: readonly string[]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const keys = [...new Set(names.map(eventAliasKey))];
    if (keys.length === 0) return out;
    const rows = await (
      await this.db()
    ).all<{ alias: string; event_id: string }>(
      `SELECT alias, event_id FROM schedctl_event_aliases WHERE workspace = ? AND alias IN (${keys.map(() => '?').join(', ')})`,
      [scope, ...keys],
    );
    for (const r of rows) put(out, r.alias, r.event_id);
    return out;
  }

  /** Learns that `alias` names `eventId` here; writes only what is new. */
  async learn(scope: string, alias: string, eventId: string): Promise<void> {
    const key = eventAliasKey(alias);
    const id = eventId.toLowerCase();
    if (key === id) return;
    const db = await this.db();
    const held = await db.get<{ event_id: string }>(
      'SELECT event_id FROM schedctl_event_aliases WHERE workspace = ? AND alias = ?',
      [scope, key],
    );
    if (held?.event_id !== id) await putAlias(db, scope, key, id);
  }
}
