import type { Context } from '../../context.js';
import { DEFAULT_LOCK_TIMING, localBackend } from '../../state/index.js';
import { teamBackend } from './team.js';

export async function run(ctx: Context): Promise<void> {
  const backend = await teamBackend(ctx, '`schedctl state push`');
  const { pushLocal } = await import('../../state/postgres/admin.js');
  const dir = (await ctx.state()).dir;
  await backend.ready();
  // This machine's ledger, whatever the profile's state: the SQLite database of the config directory.
  const warn = (line: string) => ctx.io.stderr.write(`${line}\n`);
  const local = localBackend(dir, DEFAULT_LOCK_TIMING, DEFAULT_LOCK_TIMING, warn);
  const report = await pushLocal(backend, await local.sql(), dir, warn).finally(() => local.close());
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
