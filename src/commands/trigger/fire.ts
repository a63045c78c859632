import { Command } from 'commander';
import type { Context } from '../../context.js';
import { collect, runs } from '../action.js';

export function triggerFireCommand(ctx: Context): Command {
  return new Command('fire')
    .description('fire a trigger for a lead: validates the fields locally first, then starts one workflow run')
    .argument('<trigger>', 'trigger id or name (a name is resolved by listing the triggers once)')
    .option('-e, --email <email>', "the lead's email (fills the form's email field)")
    .option(
      '-f, --field <key=value>',
      'a form response; repeatable; select fields take an option value (or its exact label)',
      collect,
    )
    .option('--responses <file>', 'form responses as a JSON object from FILE, or - for stdin (--field wins)')
    .option(
      '--context <key=value>',
      'attribution: utmParams (JSON allowed), gclid, pageUrl, referrer, userAgent, ipAddress; repeatable',
      collect,
    )
    .option('--force', 'fire even when a scheduler outcome for this trigger and email is already remembered')
    .option('--yes', 'the same as --force (skips the confirmation)')
    .addHelpText(
      'after',
      `
Every fire starts a new workflow run: CRM writes and notifications repeat and routing
fairness counts again. A scheduler outcome is remembered per profile, trigger and email;
when one is held, schedctl shows it instead of firing (exit 0; on a terminal it asks),
unless --force is given.

--json prints the API's result {"executionId", "outcome"}, or
{"status": "reused", "executionId", "outcome", "firedAt"} when a remembered outcome is shown.

Example: schedctl trigger fire "Inbound demo request" --email ada@acme.com --field company=Acme --field region=emea`,
    )
    .action(runs(ctx, 'trigger/fire'));
}
