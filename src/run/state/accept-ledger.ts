import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { sanitizeText } from '../../ui/sanitize.js';

/**
 * `schedctl state accept-ledger` (state/sqlite/ledger-accept.ts): the ledger.db there is this
 * config directory's from now on, on purpose: a restored older copy, or one from another config
 * directory. The file itself is not changed.
 */
export async function run(ctx: Context): Promise<void> {
  const state = await ctx.state();
  const backend = await state.backend();
  if (backend.kind !== 'local')
    throw new UsageError(
      "`schedctl state accept-ledger` accepts this machine's ledger file; a team state keeps no copy here to accept (docs/ledger.md): run it with SCHEDCTL_STATE_URL=local",
    );
  const { acceptLedger } = await import('../../state/sqlite/ledger-accept.js');
  const done = await acceptLedger(state.dir);
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(done);
  const before = done.was
    ? ` (this config directory had seen ledger ${done.was.ledgerId}${done.was.serial !== null ? ` at serial ${done.was.serial}` : ''})`
    : '';
  ui.print(
    sanitizeText(
      `Accepted ${done.ledger} as this config directory's ledger: id ${done.ledgerId ?? '(none yet)'}, serial ${done.serial}${before}. Meetings and attempts recorded only in a newer copy no longer keep a lead from a second booking.`,
    ),
  );
}
