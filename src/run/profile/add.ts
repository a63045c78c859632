import { checkStateUrl, hasPassword, redactStateUrl } from '../../state/postgres/url.js';
import type { Command } from 'commander';
import { maskKey } from '../../config/mask.js';
import { checkBaseUrl, DEFAULT_BASE_URL, rateOf, withoutUserinfo } from '../../config/target.js';
import type { Context } from '../../context.js';
import { ApiError, BadResponseError, CancelledError, NetworkError, UsageError } from '../../errors.js';
import type { Profile } from '../../state/index.js';
import { readAll } from '../../ui/stdin.js';
import { type ProfileView, profileView } from './view.js';

interface AddOptions {
  default?: boolean;
  keyStdin?: boolean;
  key?: string;
  apiKey?: string;
  /** false with --no-verify */
  verify?: boolean;
  rate?: string;
  workspace?: string;
  state?: string;
  force?: boolean;
}

/** What the one read request said about the key before it was saved (`keyCheck` in --json). */
type KeyCheck = 'passed' | 'missing_scope' | 'skipped';
/** The read the check makes, and the scope it needs (the spec: GET /v1/triggers needs triggers:read). */
const CHECK_REQUEST = 'GET /v1/triggers';
const CHECK_SCOPE = 'triggers:read';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const KEY_REFUSAL = 'API keys are not accepted as command-line arguments (they leak into shell history and `ps`)';

export async function run(ctx: Context, [name = '']: string[], opts: AddOptions, cmd: Command): Promise<void> {
  const rate = opts.rate === undefined ? undefined : parseRate(opts.rate);
  // Anything after the name (commander keeps it in cmd.args) can only be a key pasted as an argument.
  const extra = cmd.args.slice(1);
  if (opts.key !== undefined || opts.apiKey !== undefined || extra.length > 0) {
    throw new UsageError(KEY_REFUSAL, {
      hint: 'use --key-stdin, or run `schedctl profile add <name>` on a terminal for a hidden prompt',
    });
  }
  if (!NAME.test(name)) throw new UsageError(`invalid profile name "${name}": use letters, digits, _ . - (at most 64)`);
  const workspace = opts.workspace?.trim();
  if (workspace !== undefined && !NAME.test(workspace))
    throw new UsageError(`invalid --workspace "${workspace}": use letters, digits, _ . - (at most 64)`);
  const stateUrl =
    opts.state === undefined || opts.state === 'local' ? undefined : checkStateUrl(opts.state.trim(), '--state');
  if (stateUrl !== undefined && hasPassword(stateUrl))
    throw new UsageError(
      `--state must not hold the database's password (the profile file is no place for it): ${redactStateUrl(stateUrl)}`,
      { hint: 'give it the way psql takes it: PGPASSWORD in the environment, or ~/.pgpass (0600)' },
    );
  const baseUrl = checkBaseUrl(ctx.globals.baseUrl ?? DEFAULT_BASE_URL, '--base-url');
  const replaced = await confirmReplace(ctx, name, Boolean(opts.force));
  const apiKey = await readKey(opts, ctx);
  // Saving is the point: a directory that cannot take the file is said before the key check's request.
  (await ctx.state()).assertLocalWritable();
  const keyCheck: KeyCheck = opts.verify === false ? 'skipped' : await checkKey(ctx, name, { baseUrl, apiKey, rate });
  const { profiles } = await ctx.state();
  const profile = {
    baseUrl,
    apiKey,
    ...(rate !== undefined ? { rate } : {}),
    ...(workspace ? { workspace } : {}),
    ...(stateUrl ? { state: stateUrl } : {}),
  };
  await profiles.set(name, profile, Boolean(opts.default));
  const view: ProfileView = profileView(name, profile, (await profiles.defaultName()) === name);
  const ui = await ctx.ui();
  const was = replaced && { baseUrl: withoutUserinfo(replaced.baseUrl), key: maskKey(replaced.apiKey) };
  if (ctx.globals.json) return ui.json({ profile: view, keyCheck, ...(was ? { replaced: was } : {}) });
  ui.info(
    `${ui.err.green('✓')} saved profile "${view.name}" (${view.baseUrl}, key ${view.key})${view.isDefault ? ', the default' : ''}`,
  );
  if (was) ui.info(`replaced its previous settings (${was.baseUrl}, key ${was.key})`);
  if (keyCheck === 'missing_scope') {
    ui.info(
      `note: the key check (${CHECK_REQUEST}) was refused: the key lacks the ${CHECK_SCOPE} scope. It may still serve other commands (events, slots, book need scheduling scopes).`,
    );
  } else if (keyCheck === 'skipped') {
    ui.info('note: the key was not checked (--no-verify)');
  }
}

/**
 * One read request with the new key and base URL, through the same HTTP layer as every command
 * (timeouts, retries of a read, 429 waits, --debug with the key redacted). Nothing is saved
 * unless it passes, or fails only for lack of the scope this one request needs.
 */
async function checkKey(
  ctx: Context,
  name: string,
  { baseUrl, apiKey, rate }: { baseUrl: string; apiKey: string; rate: number | undefined },
): Promise<KeyCheck> {
  // Drawn from the new key's rate budget like any request: SCHEDCTL_RATE, else --rate.
  const api = await ctx.apiWith({ baseUrl, apiKey, rate: rateOf(ctx.env, { rate }) });
  const notSaved = `profile "${name}" was not saved`;
  const orNoVerify = 'or pass --no-verify to save it without checking';
  try {
    await api.listTriggers();
    return 'passed';
  } catch (error) {
    if (error instanceof ApiError && error.code === 'MISSING_SCOPE') return 'missing_scope';
    if (error instanceof ApiError && error.status === 401) {
      const { hint: _hint, details: _details, ...fields } = error.fields();
      throw new ApiError({
        ...fields,
        message: `${baseUrl} refused this API key, so ${notSaved}; check that you copied the whole key`,
      });
    }
    if (error instanceof ApiError) throw error.withHint(`${notSaved}; check --base-url, ${orNoVerify}`);
    if (error instanceof NetworkError) {
      throw new NetworkError(`could not check the key: ${error.message}; ${notSaved}`, {
        hint: `check --base-url and that the API is reachable, ${orNoVerify}`,
        cause: error,
      });
    }
    if (error instanceof BadResponseError) {
      throw new BadResponseError(`could not check the key: ${error.message}; ${notSaved}`, {
        ...(error.status !== undefined ? { status: error.status } : {}),
        ...(error.details ? { details: error.details } : {}),
        hint: `is --base-url the API's address? ${orNoVerify}`,
      });
    }
    throw error;
  }
}

/**
 * A profile of that name already exists: its key was shown once, at creation, so replacing it
 * must be deliberate. --force says so; on a terminal the user is asked; otherwise refused.
 * Returns the profile being replaced (to say what was), or undefined for a new name.
 */
async function confirmReplace(ctx: Context, name: string, force: boolean): Promise<Profile | undefined> {
  const existing = await (await ctx.state()).profiles.get(name);
  if (!existing || force) return existing;
  const what = `profile "${name}" already exists (${withoutUserinfo(existing.baseUrl)}, key ${maskKey(existing.apiKey)})`;
  if (!ctx.canPrompt()) {
    throw new UsageError(`${what}; pass --force to replace it`, {
      hint: `or pick another name; \`schedctl profile ls\` lists them`,
    });
  }
  const { confirm } = await import('@inquirer/prompts');
  const yes = await confirm(
    { message: `${what}. Replace it?`, default: false },
    { input: ctx.io.stdin, output: ctx.io.stderr },
  );
  if (!yes) throw new CancelledError(`profile "${name}" was left as it was`);
  return existing;
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
  if (/\s/.test(key))
    throw new UsageError('the API key read from stdin contains white space; expected one key on one line');
  return key;
}

/** `--rate`: a whole number of requests per minute (0 turns the shared budget off). */
function parseRate(raw: string): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > 100_000) {
    throw new UsageError(
      `invalid --rate "${raw}": expected requests per minute, a whole number (0 turns the shared rate budget off)`,
    );
  }
  return Number(raw);
}
