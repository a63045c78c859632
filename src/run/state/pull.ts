import type { Context } from '../../context.js';
import { DEFAULT_LOCK_TIMING, localBackend } from '../../state/index.js';
import { teamBackend } from './team.js';

export async function run(ctx: Context): Promise<void> {
  const backend = await teamBackend(ctx, '`schedctl state pull`');
  const { copyLedger } = await import('../../state/sql/copy.js');
  const dir = (await ctx.state()).dir;
  await backend.ready();
  // This machine's ledger, whatever the profile's state: the SQLite database of the config directory.
  const local = localBackend(dir, DEFAULT_LOCK_TIMING, DEFAULT_LOCK_TIMING, (line) => ctx.io.stderr.write(`${line}\n`));
  // The team's ledger copied in (sql/copy.ts), an outcome this machine did not know learnt: a
  // machine leaving the team, or working alone a while, keeps what the team knows. Run logs stay.
  const { copied, already } = await copyLedger(await backend.sql(), await local.sql(), { learn: true }).finally(() =>
    local.close(),
  );
  const report = { pulled: copied, alreadyHere: already };
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json({ from: backend.where, to: dir, ...report });
  const pulled = Object.values(report.pulled).reduce((a, b) => a + b, 0);
  const here = Object.values(report.alreadyHere).reduce((a, b) => a + b, 0);
  const detail = Object.entries(report.pulled)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  ui.print(
    pulled
      ? `Copied ${pulled} record(s) from ${backend.where} into ${dir} (${detail})${here ? `; ${here} already here` : ''}. The team state is left as it was.`
      : `Nothing to copy: ${dir} already has all ${here} record(s) of the team state at ${backend.where}.`,
  );
}
