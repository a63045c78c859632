import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ProfileView } from './index.js';

interface AddOptions {
  default?: boolean;
  keyStdin?: boolean;
  key?: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const KEY_REFUSAL =
  'API keys are not accepted as command-line arguments (they leak into shell history and `ps`)';

export function profileAddCommand(ctx: Context): Command {
  return new Command('add')
    .description('add or replace a profile; the key is read from a hidden prompt, or from stdin with --key-stdin')
    .addHelpText('after', '\nThe profile\'s base URL is the global --base-url (default: the local sandbox, http://127.0.0.1:4010).')
    .argument('<name>', 'profile name (letters, digits, _ . -)')
    .argument('[refused...]')
    .option('--default', 'make it the default profile')
    .option('--key-stdin', 'read the API key from stdin (e.g. `schedctl profile add prod --key-stdin < key.txt`)')
    .addOption(new Option('--key <key>').hideHelp())
    .addOption(new Option('--api-key <key>').hideHelp())
    .allowExcessArguments(true)
    .action(
      action<AddOptions & { apiKey?: string }>(ctx, async ([name, ...extra], opts) => {
        if (opts.key !== undefined || opts.apiKey !== undefined || extra.length > 0) {
          const { UsageError } = await import('../../errors.js');
          throw new UsageError(KEY_REFUSAL, { hint: 'use --key-stdin, or run `schedctl profile add <name>` on a terminal for a hidden prompt' });
        }
        const view = await run(name ?? '', opts, ctx);
        const ui = await ctx.ui();
        if (ctx.globals.json) ui.json({ profile: view });
        else ui.info(`${ui.err.green('✓')} saved profile "${view.name}" (${view.baseUrl}, key ${view.key})${view.isDefault ? ', the default' : ''}`);
      }),
    );
}

export async function run(name: string, opts: AddOptions, ctx: Context): Promise<ProfileView> {
  const { UsageError } = await import('../../errors.js');
  if (!NAME.test(name)) throw new UsageError(`invalid profile name "${name}": use letters, digits, _ . - (at most 64)`);
  const { checkBaseUrl, DEFAULT_BASE_URL } = await import('../../config/target.js');
  const baseUrl = checkBaseUrl(ctx.globals.baseUrl ?? DEFAULT_BASE_URL, '--base-url');
  const apiKey = await readKey(opts, ctx);
  const store = await ctx.store();
  store.set(name, { baseUrl, apiKey }, Boolean(opts.default));
  const { maskKey } = await import('../../config/mask.js');
  return { name, baseUrl, key: maskKey(apiKey), isDefault: store.defaultName() === name };
}

async function readKey(opts: AddOptions, ctx: Context): Promise<string> {
  const { UsageError } = await import('../../errors.js');
  let key: string;
  if (opts.keyStdin) {
    const { readAll } = await import('../../ui/stdin.js');
    key = (await readAll(ctx.io.stdin)).trim();
    if (!key) throw new UsageError('no API key on stdin (--key-stdin): stdin was empty');
  } else if (ctx.canPrompt()) {
    const { password } = await import('@inquirer/prompts');
    key = (
      await password(
        { message: 'API key (input hidden)', mask: true, validate: (v) => (v.trim() ? true : 'the key cannot be empty') },
        { input: ctx.io.stdin, output: ctx.io.stderr },
      )
    ).trim();
  } else {
    throw new UsageError('no API key given: pass it on stdin with --key-stdin (stdin is not a terminal, so no prompt)');
  }
  if (/\s/.test(key)) throw new UsageError('the API key read from stdin contains white space; expected one key on one line');
  return key;
}
