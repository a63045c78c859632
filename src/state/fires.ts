/**
 * The fires journal (table `fires`): every trigger fire is written down before it is sent, marked
 * sent right before its bytes leave, and answered with its workflow run. A fire whose answer was
 * lost stays `sent`: the next fire for that lead and trigger says that an earlier one may have
 * started a workflow run (CRM writes and routing fairness repeat) before it fires again.
 * One row per fire, looked up by lead and trigger or by workflow run.
 */
import { randomUUID } from 'node:crypto';
import { leadId } from './identity.js';
import { msOf } from './journal.js';
import type { FireEntry } from './schemas.js';
import { get, type Sql, type SqlSource, type SqlValue, type Statement } from './sql/types.js';
import type { Write } from './together.js';

export type { FireEntry };
export type NewFire = Pick<FireEntry, 'scope' | 'triggerId' | 'personEmail' | 'answersKey'>;

const KEEP_DAYS = 90;
const DAY_MS = 86_400_000;

interface Row {
  workspace: string;
  body: string;
}
const fireOf = (row: Row): FireEntry => ({ ...(JSON.parse(row.body) as FireEntry), scope: row.workspace });

/** The statement that writes one fire (insert, or replace the row with its id; `keep`: insert only). */
export function fireWrite(f: FireEntry, keep = false, sameWorkspace = false): [string, SqlValue[]] {
  return [
    `INSERT INTO schedctl_fires (id, workspace, lead, trigger_id, state, execution_id, prepared_ms, body)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) ${
       keep
         ? 'DO NOTHING'
         : `DO UPDATE SET workspace = excluded.workspace, lead = excluded.lead,
       trigger_id = excluded.trigger_id, state = excluded.state, execution_id = excluded.execution_id,
       prepared_ms = excluded.prepared_ms, body = excluded.body${
         sameWorkspace ? ' WHERE schedctl_fires.workspace = excluded.workspace' : ''
       }`
     }`,
    [
      f.id,
      f.scope,
      leadId(f.personEmail),
      f.triggerId,
      f.state,
      f.executionId ?? null,
      msOf(f.preparedAt),
      JSON.stringify(f),
    ],
  ];
}

export const putFire = (sql: Sql, f: FireEntry, keep = false): Promise<number> => sql.run(...fireWrite(f, keep));

/** A fire's row (fireWrite's columns), inserted only when its lead has nothing on record in the workspace. */
const INSERT_IF_NEW_LEAD = `INSERT INTO schedctl_fires (id, workspace, lead, trigger_id, state, execution_id, prepared_ms, body)
  SELECT ?, ?, ?, ?, ?, ?, ?, ?
  WHERE NOT EXISTS (SELECT 1 FROM schedctl_meetings WHERE workspace = ? AND lead = ?)
    AND NOT EXISTS (SELECT 1 FROM schedctl_attempts WHERE workspace = ? AND lead = ?)
    AND NOT EXISTS (SELECT 1 FROM schedctl_outcomes WHERE workspace = ? AND trigger_id = ? AND lead = ?)
  ON CONFLICT (id) DO NOTHING`;

/** Earlier fires of this one's lead and trigger whose answers were lost: settled by its answer. */
const earlierOf = (f: FireEntry, id: string): [string, SqlValue[]] => [
  `DELETE FROM schedctl_fires WHERE workspace = ? AND lead = ? AND trigger_id = ? AND state = 'sent' AND id <> ?`,
  [f.scope, leadId(f.personEmail), f.triggerId, id],
];

export class Fires {
  constructor(
    private readonly db: SqlSource,
    protected readonly now: () => Date,
  ) {}

  /** The fires prepared over 90 days ago, pruned with each fire written. */
  private prune(): Statement {
    return ['DELETE FROM schedctl_fires WHERE prepared_ms < ?', [this.now().getTime() - KEEP_DAYS * DAY_MS]];
  }

  /** Records a fire about to be sent; prunes fires prepared over 90 days ago (one step). */
  async prepare(fire: NewFire): Promise<FireEntry> {
    const entry = this.newEntry(fire);
    await (await this.db()).step([this.prune(), fireWrite(entry)]);
    return entry;
  }

  /** A fire about to be sent, not written yet: recordSent writes it whole, right before it is sent. */
  newEntry(fire: NewFire): FireEntry {
    return { id: randomUUID(), ...fire, preparedAt: this.now().toISOString(), state: 'prepared' };
  }

  /**
   * Records a fire as sent, right before its bytes leave (nothing of it written before: a fire
   * that never leaves needs no record), with the pruning of fires prepared over 90 days ago: one
   * step (on a team state one round trip: BEGIN, both, COMMIT).
   */
  async recordSent(entry: FireEntry): Promise<FireEntry> {
    const next: FireEntry = { ...entry, state: 'sent', sentAt: this.now().toISOString() };
    await (await this.db()).step([this.prune(), fireWrite(next)]);
    return next;
  }

  /**
   * recordSent for a lead with nothing on record (no meeting, no attempt, no remembered outcome of
   * this trigger: a route will fire for it), written in front of the lead's reads (asked right
   * after it: on a team state they go out together, the round trip marking the fire sent
   * saved). Resolves to the fire marked, or to undefined when it was not (the lead has a
   * record): recordSent it then, as usual. A fire marked so that is not sent after all must be
   * forgotten (forget).
   */
  async recordSentIfNewLead(entry: FireEntry): Promise<FireEntry | undefined> {
    const next: FireEntry = { ...entry, state: 'sent', sentAt: this.now().toISOString() };
    const lead = leadId(entry.personEmail);
    const [, values] = fireWrite(next, true);
    const answers = await (
      await this.db()
    ).step([
      this.prune(),
      [INSERT_IF_NEW_LEAD, [...values, entry.scope, lead, entry.scope, lead, entry.scope, entry.triggerId, lead]],
    ]);
    return answers[1]!.changes === 1 ? next : undefined;
  }

  /** `known`: the fire as this process last wrote it (Journal.update says why it then needs no read). */
  async markSent(id: string, known?: FireEntry): Promise<FireEntry | undefined> {
    return this.patch(id, { state: 'sent', sentAt: this.now().toISOString() }, known);
  }

  /**
   * The fire's answer: its workflow run. Earlier fires of this lead and trigger whose answers
   * were lost are settled by it (the user was told before this fire), so they are dropped.
   */
  async answered(id: string, executionId: string, outcomeType: string, known?: FireEntry): Promise<void> {
    const at = this.now().toISOString();
    const db = await this.db();
    if (known?.id === id) {
      // As this process last wrote it: no read, the step one round trip (its writes with the COMMIT).
      const [earlier, fire] = this.answeredWrites(known, executionId, outcomeType);
      const answers = await db.step([earlier!.statement, fire!.statement]);
      if (answers[1]!.changes > 0) return;
    }
    await db.transaction(async (tx) => {
      const held = await getFire(tx, id);
      if (!held) return;
      await tx.step([
        earlierOf(held, id),
        fireWrite({ ...held, state: 'answered', answeredAt: at, executionId, outcomeType }),
      ]);
    });
  }

  /**
   * `answered` of a fire as this process last wrote it (`known`), as writes for a shared step
   * (together.ts: the step remembering its outcome); when the fire's row changed nothing (moved
   * to another workspace since), `answered` reads and writes it after the step.
   */
  answeredWrites(known: FireEntry, executionId: string, outcomeType: string): Write[] {
    const answer = {
      ...known,
      state: 'answered' as const,
      answeredAt: this.now().toISOString(),
      executionId,
      outcomeType,
    };
    return [
      { statement: earlierOf(known, known.id) },
      {
        statement: fireWrite(answer, false, true),
        otherwise: () => this.answered(known.id, executionId, outcomeType),
      },
    ];
  }

  /** A fire refused, or one that never left the machine: it started nothing. */
  async forget(id: string): Promise<void> {
    await (await this.db()).run('DELETE FROM schedctl_fires WHERE id = ?', [id]);
  }

  /** Sent fires of this lead (and trigger, when given) whose answer never came: each may have started a run. */
  async unanswered(scope: string, email: string, triggerId?: string, except?: string): Promise<FireEntry[]> {
    const byTrigger = triggerId === undefined ? '' : ' AND trigger_id = ?';
    const rows = await (
      await this.db()
    ).all<Row>(
      `SELECT * FROM schedctl_fires WHERE workspace = ? AND lead = ? AND state = 'sent'${byTrigger} ORDER BY seq`,
      [scope, leadId(email), ...(triggerId === undefined ? [] : [triggerId])],
    );
    // `except`: this run's own fire, marked sent in front of these reads (recordSentIfNewLead).
    return rows.map(fireOf).filter((f) => f.id !== except);
  }

  /**
   * Every fire of this lead on record (prepared, sent, answered), oldest first, in one or several
   * workspaces (one query, the lead's index): a lead's timeline (`meetings history`).
   */
  async ofLead(scope: string | readonly string[], email: string): Promise<FireEntry[]> {
    const scopes = typeof scope === 'string' ? [scope] : scope;
    const rows = await (
      await this.db()
    ).all<Row>(
      `SELECT * FROM schedctl_fires WHERE workspace IN (${scopes.map(() => '?').join(', ')}) AND lead = ? ORDER BY seq`,
      [...scopes, leadId(email)],
    );
    return rows.map(fireOf);
  }

  /** The answered fire that started this workflow run (its trigger and answers), if on record. */
  async byExecution(scope: string, executionId: string): Promise<FireEntry | undefined> {
    const row = await get<Row>(
      await this.db(),
      'SELECT * FROM schedctl_fires WHERE workspace = ? AND execution_id = ? ORDER BY seq LIMIT 1',
      [scope, executionId],
    );
    return row && fireOf(row);
  }

  private async patch(id: string, patch: Partial<FireEntry>, known?: FireEntry): Promise<FireEntry | undefined> {
    const db = await this.db();
    if (known?.id === id) {
      const next: FireEntry = { ...known, ...patch };
      if ((await db.run(...fireWrite(next, false, true))) > 0) return next;
    }
    return db.transaction(async (tx) => {
      const held = await getFire(tx, id);
      if (!held) return undefined;
      const next: FireEntry = { ...held, ...patch };
      await tx.step([fireWrite(next)]);
      return next;
    });
  }
}

async function getFire(sql: Sql, id: string): Promise<FireEntry | undefined> {
  const row = await get<Row>(sql, 'SELECT * FROM schedctl_fires WHERE id = ?', [id]);
  return row && fireOf(row);
}
