/**
 * Remembered scheduler outcomes (table `outcomes`), one row per (workspace, trigger, lead). Every fire starts a new workflow run, so the spec asks to reuse
 * a scheduler outcome already held rather than fire again; but an outcome belongs to the
 * answers it was fired with (other answers may route elsewhere), so a record carries the
 * `answersKey` of its responses and only the same answers reuse it.
 */
import { createHash } from 'node:crypto';
import type { Outcome } from '../api/schemas.js';
import { normEmail } from './records.js';
import type { RememberedOutcome } from './schemas.js';
import { get, type Sql, type SqlSource, type SqlValue } from './sql/types.js';
import { writeTogether, type FireAnswers, type Write } from './together.js';

export type { RememberedOutcome };
export type OutcomeLookup =
  | { kind: 'match'; outcome: RememberedOutcome }
  | { kind: 'different-answers'; previous: RememberedOutcome }
  | { kind: 'none' };
export interface FireToRemember {
  executionId: string;
  outcome: Outcome | { type: string };
  firedAt: string;
  answersKey: string;
}

/**
 * A stable digest of what a fire was asked with: sha256 of canonical JSON (object keys sorted
 * at every depth), so the same answers in another order give the same key.
 */
export function answersKey(responses: Record<string, unknown>, context: Record<string, unknown> = {}): string {
  return createHash('sha256').update(canonical({ responses, context })).digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

interface Row {
  workspace: string;
  body: string;
}
const outcomeOf = (row: Row): RememberedOutcome => ({
  ...(JSON.parse(row.body) as RememberedOutcome),
  scope: row.workspace,
});

/** Writes one record (the one of its workspace, trigger and lead: a newer replaces it). */
export async function putOutcome(sql: Sql, scope: string, r: RememberedOutcome, keep: boolean): Promise<number> {
  return sql.run(...outcomeWrite(scope, r, keep));
}

function outcomeWrite(scope: string, r: RememberedOutcome, keep = false): [string, SqlValue[]] {
  return [
    `INSERT INTO schedctl_outcomes (workspace, trigger_id, lead, execution_id, body) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (workspace, trigger_id, lead) ${keep ? 'DO NOTHING' : `DO UPDATE SET execution_id = excluded.execution_id, body = excluded.body`}`,
    [scope, r.triggerId, normEmail(r.email), r.executionId, JSON.stringify({ ...r, scope })],
  ];
}

/** The remembered outcome of a workflow run removed: used up by the booking it made. */
export function usedUpWrite(scope: string, executionId: string): [string, SqlValue[]] {
  return ['DELETE FROM schedctl_outcomes WHERE workspace = ? AND execution_id = ?', [scope, executionId]];
}

export class Outcomes {
  constructor(
    private readonly db: SqlSource,
    protected readonly now: () => Date,
    private readonly where: () => string = () => 'the ledger',
    /** Where a fire's answer waits for the booking's first step (together.ts). */
    private readonly fireAnswers?: FireAnswers,
  ) {}

  /** The ledger this store keeps its rows in: stores on the same one may share a step (together.ts). */
  get ledger(): SqlSource {
    return this.db;
  }

  get path(): string {
    return `${this.where()} (outcomes)`;
  }

  /** The held record for this lead, whatever its answers. */
  async get(scope: string, triggerId: string, email: string): Promise<RememberedOutcome | undefined> {
    const row = await get<Row>(
      await this.db(),
      'SELECT * FROM schedctl_outcomes WHERE workspace = ? AND trigger_id = ? AND lead = ?',
      [scope, triggerId, normEmail(email)],
    );
    return row && outcomeOf(row);
  }

  /**
   * The remembered outcomes of this lead for these triggers, in one or several workspaces: one
   * query, each row found by its key (workspace, trigger, lead). By trigger, not by lead alone:
   * the table has no index on the lead, and the triggers a lead was fired for are in its record
   * (its fires, attempts and meetings).
   */
  async ofLead(
    scope: string | readonly string[],
    email: string,
    triggerIds: readonly string[],
  ): Promise<RememberedOutcome[]> {
    if (triggerIds.length === 0) return [];
    const scopes = typeof scope === 'string' ? [scope] : scope;
    const list = (n: number) => Array.from({ length: n }, () => '?').join(', ');
    const rows = await (
      await this.db()
    ).all<Row>(
      `SELECT * FROM schedctl_outcomes WHERE workspace IN (${list(scopes.length)}) AND trigger_id IN (${list(triggerIds.length)}) AND lead = ?`,
      [...scopes, ...triggerIds, normEmail(email)],
    );
    return rows.map(outcomeOf);
  }

  /**
   * `match` only for the same answers. A record without answersKey (written by an older
   * schedctl) cannot prove its answers, so it is `different-answers`: offered, never reused silently.
   */
  async lookup(scope: string, triggerId: string, email: string, key: string): Promise<OutcomeLookup> {
    const held = await this.get(scope, triggerId, email);
    if (!held) return { kind: 'none' };
    return held.answersKey === key ? { kind: 'match', outcome: held } : { kind: 'different-answers', previous: held };
  }

  /** The record of this workflow run, if held (to name its trigger in a "fire again" hint). */
  async findExecution(scope: string, executionId: string): Promise<RememberedOutcome | undefined> {
    const row = await get<Row>(
      await this.db(),
      'SELECT * FROM schedctl_outcomes WHERE workspace = ? AND execution_id = ?',
      [scope, executionId],
    );
    return row && outcomeOf(row);
  }

  /**
   * A fire for this lead supersedes the record held for it, whatever its answers: the previous
   * record is dropped. Only a `scheduler` outcome is stored (others hold nothing to reuse);
   * true when stored. `along`: writes of the same ledger to land in this step (the fire's
   * answer, Fires.answeredWrites): one round trip on a team state for both.
   */
  async remember(
    scope: string,
    triggerId: string,
    email: string,
    fired: FireToRemember,
    along: readonly Write[] = [],
    /** `withBooking`: written with the booking's first step (its attempt marked sent: together.ts FireAnswers). */
    o: { withBooking?: boolean } = {},
  ): Promise<boolean> {
    const stored = fired.outcome.type === 'scheduler';
    const statement: [string, SqlValue[]] = stored
      ? outcomeWrite(scope, {
          executionId: fired.executionId,
          outcome: fired.outcome as Outcome,
          firedAt: fired.firedAt,
          email,
          triggerId,
          answersKey: fired.answersKey,
          scope,
        })
      : [
          'DELETE FROM schedctl_outcomes WHERE workspace = ? AND trigger_id = ? AND lead = ?',
          [scope, triggerId, normEmail(email)],
        ];
    const writes = [...along, { statement }];
    if (o.withBooking && this.fireAnswers?.holds) this.fireAnswers.add(writes);
    else await writeTogether(this.db, writes);
    return stored;
  }

  async forget(scope: string, triggerId: string, email: string): Promise<RememberedOutcome | undefined> {
    const row = await get<Row>(
      await this.db(),
      'DELETE FROM schedctl_outcomes WHERE workspace = ? AND trigger_id = ? AND lead = ? RETURNING workspace, body',
      [scope, triggerId, normEmail(email)],
    );
    return row && outcomeOf(row);
  }

  /**
   * Forgets the outcome of this workflow run (used up by a booking, or its session ended; a
   * booking's own step takes usedUpWrite instead: domain/booking.ts).
   */
  async forgetExecution(scope: string, executionId: string): Promise<RememberedOutcome | undefined> {
    const [row] = await (
      await this.db()
    ).all<Row>(`${usedUpWrite(scope, executionId)[0]} RETURNING workspace, body`, [scope, executionId]);
    return row && outcomeOf(row);
  }
}
