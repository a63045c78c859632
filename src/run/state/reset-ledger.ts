import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { sanitizeText } from '../../ui/sanitize.js';

/** `schedctl state reset-ledger --yes` (state/sqlite/ledger-reset.ts): a new local ledger, on purpose. */
export async function run(ctx: Context, _args: string[], opts: { yes?: boolean }): Promise<void> {
  if (!opts.yes)
    throw new UsageError(
      '`schedctl state reset-ledger` starts a new, empty ledger (the meetings and attempts on record then no longer keep a lead from a second booking): pass --yes to do it',
    );
  const state = await ctx.state();
  const backend = await state.backend();
  if (backend.kind !== 'local')
    throw new UsageError(
      "`schedctl state reset-ledger` starts a new ledger on this machine; with a team state (SCHEDCTL_STATE_URL or a profile's --state) it changes nothing: run it with SCHEDCTL_STATE_URL=local",
    );
  const { resetLedger } = await import('../../state/sqlite/ledger-reset.js');
  const done = await resetLedger(state.dir, () => backend.sql(), ctx.clock.now());
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(done);
  ui.print(
    sanitizeText(
      [
        `Started a new, empty ledger at ${done.ledger} (id ${done.ledgerId}).`,
        done.setAside.length
          ? `The former files are kept: ${done.setAside.join(', ')}.`
          : 'There was no ledger file to set aside.',
      ].join('\n'),
    ),
  );
}
