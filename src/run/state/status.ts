import { join } from 'node:path';
import { runLogFiles } from '../../bulk/run-log.js';
import type { Context } from '../../context.js';
import { sanitizeText } from '../../ui/sanitize.js';
import type { PostgresBackend } from '../../state/postgres/backend.js';
import { countTables, LEDGER_DB, type State } from '../../state/index.js';
import { type WorkspaceView, workspaceLines, workspaceView } from '../workspace-view.js';

export async function run(ctx: Context): Promise<void> {
  const state = await ctx.state();
  const backend = await state.backend();
  const ui = await ctx.ui();
  if (backend.kind !== 'postgres') {
    // The same counting as the team state's (loaded with its backend, without its client).
    const counts: Record<string, number> = { ...(await countTables(await backend.sql(), state.dir)) };
    // The records of this machine's bulk run logs (the ledger's schedctl_run_records), as the
    // team state counts its own; with those a schedctl from before kept in runs/*.jsonl (moved in
    // by their next run), read without writing: a status changes nothing.
    const { countRunRecords } = await import('../../state/sqlite/run-log.js');
    const before = runLogFiles(join(ctx.configDir(), 'runs')).reduce((n, log) => n + log.records.length, 0);
    counts.runRecords = (await countRunRecords(await backend.sql())) + before;
    const workspace = await workspaceOfTarget(ctx, state);
    const doc = {
      backend: 'local',
      location: backend.where,
      // The ledger's own file (SQLite), inside location.
      database: join(backend.where, LEDGER_DB),
      schemaVersion: null,
      counts,
      locks: [],
      keptOnThisMachine: 0,
      workspace,
    };
    if (ctx.globals.json) return ui.json(doc);
    return ui.print(
      [
        `Backend:  local SQLite database (this machine only)`,
        `Location: ${backend.where} (the ledger: ${LEDGER_DB})`,
        `Records:  ${describeCounts(counts)}`,
        ...describeWorkspace(workspace),
        'To share the ledger with a team: SCHEDCTL_STATE_URL=postgres://… then `schedctl state push` (docs/team-state.md).',
      ].join('\n'),
    );
  }
  const pg = backend as PostgresBackend;
  const admin = await import('../../state/postgres/admin.js');
  const version = await admin.teamSchemaVersion(pg).catch((error: unknown) => {
    throw pg.db.unavailable(error);
  });
  const [counts, locks, kept] = await Promise.all([
    admin.teamCounts(pg),
    admin.heldLocks(pg),
    admin.keptHere(pg),
  ]).catch((error: unknown) => {
    throw 'exitCode' in (error as object) ? error : pg.db.unavailable(error);
  });
  const doc = {
    backend: 'postgres',
    location: pg.where,
    schemaVersion: version,
    counts,
    locks: locks.map(({ backendPid: _pid, ...l }) => l),
    keptOnThisMachine: kept,
    workspace: await workspaceOfTarget(ctx, state),
  };
  if (ctx.globals.json) return ui.json(doc);
  const lines = [
    `Backend:  PostgreSQL (team state, shared by every machine using it)`,
    `Location: ${pg.where}`,
    `Schema:   version ${version} (this schedctl writes version ${admin.SCHEMA_VERSION})`,
    `Records:  ${describeCounts(counts)}`,
    ...describeWorkspace(doc.workspace),
    `Locks:    ${locks.length ? `${locks.length} held` : 'none held'}`,
    ...locks.map(
      (l) =>
        `  ${l.subject} ${l.of}: ${l.user}@${l.host} pid ${l.pid}, since ${l.since}: ${l.command} (${l.subject === 'run' ? 'released when that run ends' : `release: schedctl state unlock ${l.subject === 'lead' ? l.of : `--meeting ${l.of}`}`})`,
    ),
    ...(kept
      ? [
          `Kept here: ${kept} record(s) on this machine wait for the team state (moved in by the next run that reaches it)`,
        ]
      : []),
  ];
  // Lock holders (user, host, command) come from the database: text from outside, never terminal control.
  ui.print(lines.map(sanitizeText).join('\n'));
}

/** The workspace of the key in use (null when no key is configured: the state still has a status). */
async function workspaceOfTarget(ctx: Context, state: State): Promise<WorkspaceView | null> {
  const target = await ctx.target().catch(() => undefined);
  return target ? workspaceView(state, target) : null;
}

function describeWorkspace(w: WorkspaceView | null): string[] {
  return w
    ? [`Workspace: ${w.id}${w.names.length ? ` (names: ${w.names.join(', ')})` : ''}`, ...workspaceLines(w, '  ')]
    : [];
}

function describeCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}
