import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { runs } from '../action.js';

const HELP_AFTER = `
The key:
  Never accepted as a command-line argument or flag: argv leaks into shell history and
  \`ps\`, so \`profile add NAME sk_…\` and \`--key sk_…\` are refused (exit 2). On a
  terminal, type it at the hidden prompt; in scripts, pipe it with --key-stdin. It is
  stored in config.json (mode 0600, in the config directory) and only ever shown masked.

Base URL:
  The global --base-url given to this command (default: the local sandbox,
  http://127.0.0.1:4010). Plain http:// is refused for a host that is not loopback,
  and so is a URL with user:password@ in it (exit 2).

Replacing:
  A profile of the same name is replaced only when asked (on a terminal) or with
  --force; without a terminal and without --force it is refused (exit 2). What was
  replaced is said, the old key masked.

Key check:
  Before saving, one GET /v1/triggers with the new key, at the URL it names on stderr
  first (without --base-url: the local sandbox's). A refused key (401) is not
  saved (exit 3). A key without the triggers:read scope (403) is saved, with a note: it
  may still serve the scheduling commands. An unreachable server: nothing is saved
  (exit 1); pass --no-verify to save without checking.

Rate:
  --rate N is for a workspace whose limit is not the API's 30 requests per minute; every
  schedctl process paces its requests on this key to it (SCHEDCTL_RATE wins over it).

Workspace:
  schedctl keeps one ledger (attempts, meetings, lead locks) per workspace: what the key
  reaches at the API (the base URL normalised, and the key's fingerprint), whatever the
  profile is called. Teammates holding different keys of one organisation can join one
  ledger with --workspace NAME (the same NAME and API on each profile). A key belongs
  to one workspace, which only grows: a name joins keys (merging their records), never
  forks one. Replacing a profile's key for the same API (--force, or yes on a terminal)
  keeps its workspace: the new key joins the old key's, and the message (and
  \`workspace\` in --json) says which workspace and how many leads it holds.
  --new-workspace starts an empty one instead (for a key no workspace holds yet).

Examples:
  schedctl profile add prod --base-url https://api.example.com --key-stdin < prod-key.txt
  schedctl profile add staging --base-url https://staging.example.com --default
  schedctl sandbox --profile sandbox      # a profile for a local sandbox, key included`;

export function profileAddCommand(ctx: Context): Command {
  return (
    new Command('add')
      .description(
        'add (or, asked or with --force, replace) a profile: a named API key and base URL, checked with one read request before it is saved',
      )
      .argument('<name>', 'profile name: 1–64 letters, digits, _ . - (starting with a letter or digit)')
      .option('--key-stdin', 'read the API key from stdin, one line (without it: a hidden prompt, on a terminal only)')
      .option('--default', 'make it the default profile (the first profile added always becomes the default)')
      .option('--no-verify', 'save without checking the key against the API')
      .option(
        '--state <url>',
        "share this profile's ledger, locks and rate budget in a team's PostgreSQL (postgres://user@host/db; the password from PGPASSWORD or ~/.pgpass, never stored here)",
      )
      .option('--force', 'replace a profile of that name without asking (needed without a terminal)')
      .option('--yes', 'the same as --force (skips the confirmation)')
      .option(
        '--rate <n>',
        'requests per minute the API allows this key (default 30): the budget every schedctl process shares; 0 turns it off',
      )
      .option(
        '--workspace <name>',
        "join the ledger of this workspace name: profiles with other keys of one organisation share one record of each lead's meetings and attempts",
      )
      .option(
        '--new-workspace',
        "start an empty workspace for this key instead of joining the replaced key's (only for a key no workspace holds yet)",
      )
      .addOption(new Option('--key <key>').hideHelp())
      .addOption(new Option('--api-key <key>').hideHelp())
      // A key pasted as a second argument is refused with a reason (run/profile/add.ts), not as "too many arguments".
      .allowExcessArguments(true)
      .addHelpText('after', HELP_AFTER)
      .action(runs(ctx, 'profile/add'))
  );
}
