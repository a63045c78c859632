import { maskKey } from '../../config/mask.js';
import { checkBaseUrl, DEFAULT_BASE_URL } from '../../config/target.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { readAll } from '../../ui/stdin.js';
import type { ProfileView } from './view.js';

interface AddOptions {
  default?: boolean;
  keyStdin?: boolean;
  key?: string;
  apiKey?: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const KEY_REFUSAL = 'API keys are not accepted as command-line arguments (they leak into shell history and `ps`)';

export async function run(ctx: Context, [name = '', ...extra]: string[], opts: AddOptions): Promise<void> {
  if (opts.key !== undefined || opts.apiKey !== undefined || extra.length > 0) {
    throw new UsageError(KEY_REFUSAL, { hint: 'use --key-stdin, or run `schedctl profile add <name>` on a terminal for a hidden prompt' });
  }
  if (!NAME.test(name)) throw new UsageError(`invalid profile name "${name}": use letters, digits, _ . - (at most 64)`);
  const baseUrl = checkBaseUrl(ctx.globals.baseUrl ?? DEFAULT_BASE_URL, '--base-url');
  const apiKey = await readKey(opts, ctx);
  const store = await ctx.store();
  store.set(name, { baseUrl, apiKey }, Boolean(opts.default));
  const view: ProfileView = { name, baseUrl, key: maskKey(apiKey), isDefault: store.defaultName() === name };
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json({ profile: view });
  ui.info(`${ui.err.green('✓')} saved profile "${view.name}" (${view.baseUrl}, key ${view.key})${view.isDefault ? ', the default' : ''}`);
}

async function readKey(opts: AddOptions, ctx: Context): Promise<string> {
  let key: string;
  if (opts.keyStdin) {
    key = (await readAll(ctx.io.stdin)).trim();
    if (!key) throw new UsageError('no API key on stdin (--key-stdin): stdin was empty');
  } else if (ctx.canPrompt()) {
    // The prompts load only when one is shown.
    const { password } = await import('@inquirer/prompts');
    const answer = await password(
      { message: 'API key (input hidden)', mask: true, validate: (v) => (v.trim() ? true : 'the key cannot be empty') },
      { input: ctx.io.stdin, output: ctx.io.stderr },
    );
    key = answer.trim();
  } else {
    throw new UsageError('no API key given: pass it on stdin with --key-stdin (stdin is not a terminal, so no prompt)');
  }
  if (/\s/.test(key)) throw new UsageError('the API key read from stdin contains white space; expected one key on one line');
  return key;
}
