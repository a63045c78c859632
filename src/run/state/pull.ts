import type { Context } from '../../context.js';
import { DEFAULT_LOCK_TIMING, localBackend } from '../../state/index.js';
import { teamBackend } from './team.js';

export async function run(ctx: Context): Promise<void> {
  const backend = await teamBackend(ctx, '`schedctl state pull`');
  const { pullTeam } = await import('../../state/postgres/admin.js');
  const dir = (await ctx.state()).dir;
  await backend.ready();
  // This machine's ledger, whatever the profile's state: the SQLite database of the config directory.
  const local = localBackend(dir, DEFAULT_LOCK_TIMING, DEFAULT_LOCK_TIMING, (line) => ctx.io.stderr.write(`${line}\n`));
  const report = await pullTeam(backend, await local.sql()).finally(() => local.close());
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
