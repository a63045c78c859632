import type { Context } from '../../context.js';
import { CancelledError, CliError, EXIT, UsageError } from '../../errors.js';
import { requireEmail } from '../../domain/inputs.js';
import { sanitizeText } from '../../ui/sanitize.js';
import { teamBackend } from './team.js';

export async function run(
  ctx: Context,
  [email]: string[],
  opts: { meeting?: string; force?: boolean; yes?: boolean },
): Promise<void> {
  if (email !== undefined && opts.meeting !== undefined)
    throw new UsageError('pass either a lead <email> or --meeting <id>, not both');
  if (email === undefined && opts.meeting === undefined)
    throw new UsageError(
      'missing <email>: the lead whose lock to release (or --meeting <id>); `schedctl state status` lists the locks held',
    );
  const subject = opts.meeting !== undefined ? 'meeting' : 'lead';
  const of =
    opts.meeting !== undefined
      ? opts.meeting.trim().toLowerCase()
      : requireEmail(email ?? '', '<email>')
          .trim()
          .toLowerCase();
  const backend = await teamBackend(ctx, '`schedctl state unlock`');
  const { heldLocks, releaseLock } = await import('../../state/postgres/admin.js');
  const held = (
    await heldLocks(backend).catch((e: unknown) => {
      throw backend.db.unavailable(e);
    })
  ).filter((l) => l.subject === subject && l.of === of);
  const label = subject === 'lead' ? of : `meeting ${of}`;
  if (held.length === 0)
    throw new CliError('NOT_FOUND', `no lock is held on ${label} in ${backend.where}`, EXIT.notFound, {
      hint: '`schedctl state status` lists the locks held and by whom',
    });
  const ui = await ctx.ui();
  for (const lock of held) {
    const who = sanitizeText(`${lock.user}@${lock.host} pid ${lock.pid}, since ${lock.since}: ${lock.command}`);
    if (!opts.force && !opts.yes) {
      if (!ctx.canPrompt())
        throw new UsageError(`the lock on ${label} is held by ${who}; pass --force to release it without a terminal`);
      const { confirm } = await import('@inquirer/prompts');
      const yes = await confirm(
        {
          message: `The lock on ${label} is held by ${who}. Release it? That run is cut off from the team state; if it is still booking, its booking's outcome may be unknown.`,
          default: false,
        },
        { input: ctx.io.stdin, output: ctx.io.stderr },
      );
      if (!yes) throw new CancelledError(`the lock on ${label} was left held`);
    }
    // Refused (no pg_signal_backend, say): the database's refusal with what to grant (refusals.ts).
    await releaseLock(backend, lock).catch((e: unknown) => {
      throw backend.db.unavailable(e);
    });
    if (ctx.globals.json)
      ui.json({
        released: {
          subject,
          of,
          holder: { user: lock.user, host: lock.host, pid: lock.pid, command: lock.command, since: lock.since },
        },
      });
    else ui.print(`Released the lock on ${label} (held by ${who}).`);
  }
}
