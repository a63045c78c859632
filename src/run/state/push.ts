import type { Context } from '../../context.js';
import { DEFAULT_LOCK_TIMING, localBackend } from '../../state/index.js';
import { teamBackend } from './team.js';

export async function run(ctx: Context): Promise<void> {
  const backend = await teamBackend(ctx, '`schedctl state push`');
  const { copyLedger } = await import('../../state/sql/copy.js');
  const { insertRunRecordsOnce } = await import('../../state/postgres/run-log.js');
  const { localRunRecords, moveRunLogsIn } = await import('../../state/sqlite/run-log.js');
  const dir = (await ctx.state()).dir;
  await backend.ready();
  // This machine's ledger, whatever the profile's state: the SQLite database of the config directory.
  const warn = (line: string) => ctx.io.stderr.write(`${line}\n`);
  const local = localBackend(dir, DEFAULT_LOCK_TIMING, DEFAULT_LOCK_TIMING, warn);
  // This machine's ledger copied into the team's (sql/copy.ts: rows and workspace keys it has are
  // left alone), then each bulk run log whole (one the team has records of is left as it is there).
  const sql = await local.sql();
  let report;
  try {
    const { copied, already } = await copyLedger(sql, await backend.sql(), { learn: false });
    const runs = { moved: 0, there: 0 };
    await moveRunLogsIn(sql, dir, warn);
    for (const [key, records] of await localRunRecords(sql))
      runs[(await insertRunRecordsOnce(backend.db, key, records)) ? 'moved' : 'there'] += records.length;
    report = { moved: { ...copied, runRecords: runs.moved }, alreadyThere: { ...already, runRecords: runs.there } };
  } finally {
    await local.close();
  }
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json({ from: dir, to: backend.where, ...report });
  const moved = Object.values(report.moved).reduce((a, b) => a + b, 0);
  const there = Object.values(report.alreadyThere).reduce((a, b) => a + b, 0);
  const detail = Object.entries(report.moved)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  ui.print(
    moved
      ? `Copied ${moved} record(s) from ${dir} into ${backend.where} (${detail})${there ? `; ${there} already there` : ''}. This machine's ledger is left as it was.`
      : `Nothing to copy: the team state at ${backend.where} already has all ${there} record(s) of ${dir}.`,
  );
}
