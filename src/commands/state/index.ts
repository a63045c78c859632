import { Command } from 'commander';
import type { Context } from '../../context.js';
import { runs } from '../action.js';

export function stateCommand(ctx: Context): Command {
  return new Command('state')
    .description(
      "where the ledger lives (this machine's files, or a team's PostgreSQL: SCHEDCTL_STATE_URL or `profile add --state`)",
    )
    .addCommand(
      new Command('status')
        .description('the state backend, its schema version, what it holds, and the locks held and by whom')
        .addHelpText(
          'after',
          '\n--json prints {backend, location, schemaVersion, counts, locks, keptOnThisMachine} (docs/team-state.md).\nExit 9 when the team state cannot be reached.',
        )
        .action(runs(ctx, 'state/status')),
    )
    .addCommand(
      new Command('push')
        .description(
          "copy this machine's local ledger into the team state, once (records already there are left as they are: running it again changes nothing)",
        )
        .addHelpText(
          'after',
          '\nLike `terraform init -migrate-state`: the local files stay as they were.\n--json prints {from, to, moved: {<document>: n}, alreadyThere: {<document>: n}}.',
        )
        .action(runs(ctx, 'state/push')),
    )
    .addCommand(
      new Command('pull')
        .description(
          "copy the team state's ledger into this machine's local ledger (records already here are left as they are: running it again changes nothing)",
        )
        .addHelpText(
          'after',
          '\nThe other way from `state push`: the team state stays as it was; with SCHEDCTL_STATE_URL=local this machine then knows what the team knew.\n--json prints {from, to, pulled: {<table>: n}, alreadyHere: {<table>: n}}.',
        )
        .action(runs(ctx, 'state/pull')),
    )
    .addCommand(
      new Command('reset-ledger')
        .description(
          "start a new, empty local ledger where one was (missing, emptied, another's): the file there is kept aside, never deleted",
        )
        .option('--yes', 'do it (required: the meetings and attempts on record then no longer guard the leads)')
        .addHelpText(
          'after',
          '\nThe way past the refusal of a missing, emptied or other ledger.db (docs/ledger.md#a-ledger-that-was-there-stays-there).\n--json prints {ledger, ledgerId, setAside: [<file>]}.',
        )
        .action(runs(ctx, 'state/reset-ledger')),
    )
    .addCommand(
      new Command('accept-ledger')
        .description(
          "accept the local ledger.db there as this config directory's: a restored older copy, or one copied from another config directory (the file is not changed)",
        )
        .addHelpText(
          'after',
          '\nThe way past the refusal of an older copy or another ledger (docs/ledger.md#the-ledger-knows-its-age).\n--json prints {ledger, ledgerId, serial, was: {ledgerId, serial} | null, mark}.',
        )
        .action(runs(ctx, 'state/accept-ledger')),
    )
    .addCommand(
      new Command('unlock')
        .description(
          "release a lead's lock held by a stuck run (like `terraform force-unlock`): that run is cut off from the team state",
        )
        .argument('[email]', 'the lead whose lock to release (see `schedctl state status`)')
        .option('--meeting <id>', "release a meeting's lock (held by a move) instead of a lead's")
        .option('--force', 'do not ask for confirmation (required without a terminal)')
        .option('--yes', 'the same as --force (skips the confirmation)')
        .action(runs(ctx, 'state/unlock')),
    );
}
