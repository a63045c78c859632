/**
 * Event aliases (table `event_aliases`): what the slots results and booked meetings taught the
 * ledger about which slug, scheduling link id or link slug stands for which eventId, per
 * workspace. The ledger compares events by id (state/identity.ts), never as typed.
 */
import { eventAliasKey } from './identity.js';
import { put } from './records.js';
import type { Sql, SqlSource } from './sql/types.js';
import type { Write } from './together.js';

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

  /** Learns that `alias` names `eventId` here; writes only what is new (and says whether it did). */
  async learn(scope: string, alias: string, eventId: string): Promise<boolean> {
    const write = learnWrite(scope, alias, eventId);
    return write !== undefined && (await (await this.db()).run(...write.statement)) > 0;
  }

  /** `learn` as a write for a shared step (together.ts), on this store's ledger. */
  learnWrite(scope: string, alias: string, eventId: string): Write | undefined {
    return learnWrite(scope, alias, eventId);
  }
}

/**
 * `learn` as a write for a shared step (together.ts): one statement, no read first (an alias
 * already naming that event is left as it is); none when the alias is the event's id itself.
 */
export function learnWrite(scope: string, alias: string, eventId: string): Write | undefined {
  const key = eventAliasKey(alias);
  const id = eventId.toLowerCase();
  if (key === id) return undefined;
  return {
    statement: [
      `INSERT INTO schedctl_event_aliases (workspace, alias, event_id) VALUES (?, ?, ?)
     ON CONFLICT (workspace, alias) DO UPDATE SET event_id = excluded.event_id
     WHERE schedctl_event_aliases.event_id <> excluded.event_id`,
      [scope, key, id],
    ],
  };
}
