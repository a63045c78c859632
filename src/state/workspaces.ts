/**
 * The workspaces on record (sql/tables.ts, `schedctl_workspace_keys`): which workspace each key
 * fingerprint belongs to, at each normalised base URL. A join is one transaction: the key's row
 * written and every workspace it merges (its former one, a predecessor's) moved in whole, keys
 * and ledger rows together, so no reader ever sees a key in one workspace and its records in
 * another. The rule itself is domain/workspace-join.ts.
 */
import { planJoin, type JoinRequest, type KeyRow } from '../domain/workspace-join.js';
import { get, type Sql, type SqlSource } from './sql/types.js';

export interface WorkspaceKey {
  fingerprint: string;
  names: string[];
  addedAt: string;
}

export interface Joined {
  workspace: string;
  how: 'recorded' | 'name' | 'rotation' | 'new';
  /** Workspaces merged into it by this join. */
  merged: string[];
}

/** `--new-workspace` for a key a workspace already holds: the key cannot leave it. */
export class WorkspaceTakenError extends Error {
  constructor(readonly workspace: string) {
    super(`the key already belongs to workspace ${workspace}`);
  }
}

interface Row {
  fingerprint: string;
  workspace: string;
  names: string;
  added_ms: number | string;
}

/** The row whose lock joins take turns on (sql/tables.ts makes it). */
export const JOIN_LOCK = 'workspace-joins';

const namesOf = (text: string): string[] => text.split(' ').filter(Boolean);

export class Workspaces {
  constructor(
    private readonly db: SqlSource,
    private readonly now: () => Date,
  ) {}

  /** The key's workspace as recorded, without writing (a read-only directory still answers). */
  async lookup(url: string, fingerprint: string): Promise<string | undefined> {
    const row = await get<{ workspace: string }>(
      await this.db(),
      'SELECT workspace FROM schedctl_workspace_keys WHERE base_url = ? AND fingerprint = ?',
      [url, fingerprint],
    );
    return row?.workspace;
  }

  /** Records the key in the workspace the rule gives (joining, merging), in one transaction. */
  async join(req: JoinRequest): Promise<Joined> {
    return (await this.db()).transaction((tx) => joinIn(tx, req, this.now()));
  }

  /**
   * The join as it stands when the rule would write nothing (the key already recorded there, the
   * usual case), from one read that is no transaction (so asked together with others on a team
   * state); undefined when the join has something to write (then `join`).
   */
  async recorded(req: JoinRequest): Promise<Joined | undefined> {
    const plan = planJoin(await keyRows(await this.db(), req.url), req);
    return plan.kind === 'join' && !plan.write ? { workspace: plan.workspace, how: plan.how, merged: [] } : undefined;
  }

  /** The keys of a workspace (fingerprints, never keys), oldest first. */
  async keys(workspace: string): Promise<WorkspaceKey[]> {
    const rows = await (
      await this.db()
    ).all<Row>(
      'SELECT fingerprint, workspace, names, added_ms FROM schedctl_workspace_keys WHERE workspace = ? ORDER BY added_ms, fingerprint',
      [workspace],
    );
    return rows.map((r) => ({
      fingerprint: r.fingerprint,
      names: namesOf(r.names),
      addedAt: new Date(Number(r.added_ms)).toISOString(),
    }));
  }

  /** How many leads the workspace holds records of (meetings or attempts). */
  async leadCount(workspace: string): Promise<number> {
    const row = await get<{ n: number | string }>(
      await this.db(),
      `SELECT count(*) AS n FROM (SELECT lead FROM schedctl_meetings WHERE workspace = ?
       UNION SELECT lead FROM schedctl_attempts WHERE workspace = ?) AS leads`,
      [workspace, workspace],
    );
    // count(*) answers one row, always.
    return Number(row!.n);
  }

  /** Whether a one-time step is done. */
  async marked(mark: string): Promise<boolean> {
    const row = await get(await this.db(), 'SELECT mark FROM schedctl_ledger_marks WHERE mark = ?', [mark]);
    return row !== undefined;
  }

  /**
   * Runs a one-time step and marks it done, in one transaction (a second process waiting for it
   * finds the mark and does nothing). Once done, one read: no write transaction per command.
   */
  async once(mark: string, work: (tx: Sql) => Promise<void>): Promise<void> {
    if (await this.marked(mark)) return;
    await (
      await this.db()
    ).transaction(async (tx) => {
      if (await get(tx, 'SELECT mark FROM schedctl_ledger_marks WHERE mark = ?', [mark])) return;
      await work(tx);
      await tx.run('INSERT INTO schedctl_ledger_marks (mark, at_ms) VALUES (?, ?) ON CONFLICT (mark) DO NOTHING', [
        mark,
        this.now().getTime(),
      ]);
    });
  }
}

/** A join in the caller's transaction (the legacy records' attribution joins several keys in one). */
export async function joinIn(tx: Sql, req: JoinRequest, now: Date): Promise<Joined> {
  let plan = planJoin(await keyRows(tx, req.url), req);
  if (plan.kind === 'join' && plan.write) {
    // Writers take turns (a row lock both engines hold to the transaction's end), then plan again
    // on what the one before wrote; a key already on record, the usual case, writes and waits for nothing.
    await tx.run(`UPDATE schedctl_ledger_marks SET at_ms = at_ms WHERE mark = '${JOIN_LOCK}'`);
    plan = planJoin(await keyRows(tx, req.url), req);
  }
  if (plan.kind === 'taken') throw new WorkspaceTakenError(plan.workspace);
  if (!plan.write) return { workspace: plan.workspace, how: plan.how, merged: [] };
  for (const from of plan.merge) {
    await tx.run('UPDATE schedctl_workspace_keys SET workspace = ? WHERE workspace = ?', [plan.workspace, from]);
    await moveRecords(tx, from, plan.workspace);
  }
  await tx.run(
    `INSERT INTO schedctl_workspace_keys (base_url, fingerprint, workspace, names, added_ms) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (base_url, fingerprint) DO UPDATE SET workspace = excluded.workspace, names = excluded.names`,
    [req.url, req.fingerprint, plan.workspace, plan.names.join(' '), now.getTime()],
  );
  return { workspace: plan.workspace, how: plan.how, merged: plan.merge };
}

async function keyRows(tx: Sql, url: string): Promise<KeyRow[]> {
  const rows = await tx.all<Row>(
    'SELECT fingerprint, workspace, names FROM schedctl_workspace_keys WHERE base_url = ?',
    [url],
  );
  return rows.map((r) => ({ fingerprint: r.fingerprint, workspace: r.workspace, names: namesOf(r.names) }));
}

/** The ledger's scopes that are not workspace ids: records written before workspaces (`profile@url`). */
export async function legacyScopes(tx: Sql): Promise<string[]> {
  const rows = await tx.all<{ workspace: string }>(
    `SELECT DISTINCT workspace FROM (
       SELECT workspace FROM schedctl_attempts UNION SELECT workspace FROM schedctl_meetings
       UNION SELECT workspace FROM schedctl_outcomes UNION SELECT workspace FROM schedctl_fires) AS scopes
     WHERE workspace NOT LIKE '%#%' ORDER BY workspace`,
  );
  return rows.map((r) => r.workspace);
}

/**
 * Every record of `from` into `to`, in the caller's transaction. Where both hold a record of one
 * meeting, outcome or alias, the one already in `to` wins (the row of `from` is dropped).
 */
export async function moveRecords(tx: Sql, from: string, to: string): Promise<void> {
  if (from === to) return;
  await tx.run('UPDATE schedctl_attempts SET workspace = ? WHERE workspace = ?', [to, from]);
  await tx.run('UPDATE schedctl_fires SET workspace = ? WHERE workspace = ?', [to, from]);
  await tx.run(
    `UPDATE schedctl_meetings SET workspace = ? WHERE workspace = ?
     AND NOT EXISTS (SELECT 1 FROM schedctl_meetings m WHERE m.workspace = ? AND m.id = schedctl_meetings.id)`,
    [to, from, to],
  );
  await tx.run('DELETE FROM schedctl_meetings WHERE workspace = ?', [from]);
  await tx.run(
    `UPDATE schedctl_outcomes SET workspace = ? WHERE workspace = ? AND NOT EXISTS
     (SELECT 1 FROM schedctl_outcomes o WHERE o.workspace = ? AND o.trigger_id = schedctl_outcomes.trigger_id AND o.lead = schedctl_outcomes.lead)`,
    [to, from, to],
  );
  await tx.run('DELETE FROM schedctl_outcomes WHERE workspace = ?', [from]);
  await tx.run(
    `UPDATE schedctl_event_aliases SET workspace = ? WHERE workspace = ? AND NOT EXISTS
     (SELECT 1 FROM schedctl_event_aliases a WHERE a.workspace = ? AND a.alias = schedctl_event_aliases.alias)`,
    [to, from, to],
  );
  await tx.run('DELETE FROM schedctl_event_aliases WHERE workspace = ?', [from]);
}
