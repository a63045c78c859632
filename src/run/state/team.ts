/** The team state of a `state` command, or the usage error saying how to name one. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { PostgresBackend } from '../../state/postgres/backend.js';

export async function teamBackend(ctx: Context, what: string): Promise<PostgresBackend> {
  const backend = await (await ctx.state()).backend();
  if (backend.kind !== 'postgres')
    throw new UsageError(
      `${what} needs a team state: set SCHEDCTL_STATE_URL=postgres://… (or \`schedctl profile add NAME --state postgres://…\`)`,
      { hint: 'docs/team-state.md says how to set one up' },
    );
  return backend as PostgresBackend;
}
