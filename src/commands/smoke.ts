import { Command } from 'commander';
import type { Context } from '../context.js';
import { collect, runs } from './action.js';

export function smokeCommand(ctx: Context): Command {
  return new Command('smoke')
    .description(
      'post-deploy checks: the key works, every endpoint answers, and every response matches the API contract',
    )
    .option('--event <id|slug>', 'event to check detail and slots of (default: the first listed event)')
    .option('--trigger <id|name>', 'also fire this trigger and check its outcome (needs --email)')
    .option('--email <address>', 'lead email for --trigger and --book')
    .option('--field <key=value>', 'a trigger form response (repeatable)', collect)
    .option('--book', 'also book a real meeting on the first slot (routed when --trigger gives a scheduler outcome)')
    .option('--max-latency <ms>', 'fail any check slower than this many milliseconds')
    .option('--junit <file>', 'write a JUnit XML report (one testcase per check) for CI')
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 all checks passed (skips allowed), 1 a check failed, 2 bad flags, 3 no API key.',
        'Uses at most 8 requests (the API allows 30 per minute); a 429 waits per Retry-After.',
        'Examples:',
        '  schedctl smoke',
        '  schedctl smoke --max-latency 2000 --junit reports/smoke.xml',
        '  schedctl smoke --trigger "Inbound demo request" --email qa@acme.com --field company=Acme --field region=emea --book',
      ].join('\n'),
    )
    .action(runs(ctx, 'smoke'));
}
