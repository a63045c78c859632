import { checkStateUrl, hasPassword, redactStateUrl } from '../../config/state-url.js';
import type { Command } from 'commander';
import { maskKey } from '../../config/mask.js';
import { checkBaseUrl, DEFAULT_BASE_URL, rateOf, withoutUserinfo } from '../../config/target.js';
import type { Context } from '../../context.js';
import { ApiError, BadResponseError, CancelledError, NetworkError, UsageError } from '../../errors.js';
import { keyFingerprint, normaliseBaseUrl } from '../../state/identity.js';
import { WorkspaceTakenError, type Profile, type State } from '../../state/index.js';
import { attributeLegacyOnce } from '../../state/legacy-records.js';
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
  /** gh's name for --force: skips the confirmation. */
  yes?: boolean;
  newWorkspace?: boolean;
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
  // Without --base-url the key is checked against (and saved for) the local sandbox's address: a key
  // for a real API is refused there, and the messages must say that it was the sandbox that refused it.
  const sandboxDefault = ctx.globals.baseUrl === undefined;
  const baseUrl = checkBaseUrl(ctx.globals.baseUrl ?? DEFAULT_BASE_URL, '--base-url');
  const replaced = await confirmReplace(ctx, name, Boolean(opts.force || opts.yes));
  const apiKey = await readKey(opts, ctx);
  // Saving is the point: a directory that cannot take the file is said before the key check's request.
  (await ctx.state()).assertLocalWritable();
  const keyCheck: KeyCheck =
    opts.verify === false ? 'skipped' : await checkKey(ctx, name, { baseUrl, apiKey, rate, sandboxDefault });
  const state = await ctx.state();
  const { profiles } = state;
  // The key's workspace is recorded before the profile is saved: a key saved but in no workspace
  // would start an empty one on first use, and book its predecessor's leads again.
  const joined = await joinWorkspace(ctx, state, {
    name,
    baseUrl,
    apiKey,
    workspace,
    replaced,
    fresh: opts.newWorkspace,
  });
  const profile = {
    baseUrl,
    apiKey,
    ...(rate !== undefined ? { rate } : {}),
    ...(workspace ? { workspace } : {}),
    ...(stateUrl ? { state: stateUrl } : {}),
    ...(joined.previousKey ? { previousKey: joined.previousKey } : {}),
  };
  await profiles.set(name, profile, Boolean(opts.default));
  const view: ProfileView = {
    ...profileView(name, profile, (await profiles.defaultName()) === name),
    workspace: joined.workspace,
  };
  const ui = await ctx.ui();
  const was = replaced && { baseUrl: withoutUserinfo(replaced.baseUrl), key: maskKey(replaced.apiKey) };
  if (ctx.globals.json)
    return ui.json({ profile: view, keyCheck, ...(was ? { replaced: was } : {}), workspace: joined });
  ui.info(
    `${ui.err.green('✓')} saved profile "${view.name}" (${view.baseUrl}, key ${view.key})${view.isDefault ? ', the default' : ''}`,
  );
  if (was) ui.info(`replaced its previous settings (${was.baseUrl}, key ${was.key})`);
  ui.info(joinedLine(joined));
  if (keyCheck === 'missing_scope') {
    ui.info(
      `note: the key check (${CHECK_REQUEST}) was refused: the key lacks the ${CHECK_SCOPE} scope. It may still serve other commands (events, slots, book need scheduling scopes).`,
    );
  } else if (keyCheck === 'skipped') {
    ui.info('note: the key was not checked (--no-verify)');
  }
}

/** What `profile add` says of the key's workspace (`workspace` in --json). */
export interface WorkspaceJoin {
  /** The workspace id. */
  workspace: string;
  /**
   * How the key came to be in it: `rotation` (it joined the workspace of the key it replaced),
   * `name` (it joined the workspace of --workspace NAME), `new` (a workspace of its own;
   * --new-workspace, or a key never seen), `recorded` (it was in it already).
   */
  how: 'recorded' | 'name' | 'rotation' | 'new';
  /** The fingerprint of the key it replaced, when it joined that key's workspace. */
  previousKey?: string;
  /** Leads the workspace holds records of (meetings or attempts). */
  leads: number;
  /** The workspace's keys (fingerprints, never keys) and the names it joined by. */
  keys: { fingerprint: string; names: string[]; addedAt: string }[];
  names: string[];
}

async function joinWorkspace(
  ctx: Context,
  state: State,
  o: {
    name: string;
    baseUrl: string;
    apiKey: string;
    workspace: string | undefined;
    replaced: Profile | undefined;
    fresh: boolean | undefined;
  },
): Promise<WorkspaceJoin> {
  const url = normaliseBaseUrl(o.baseUrl);
  const fingerprint = keyFingerprint(o.apiKey);
  const { profiles } = await state.profiles.snapshot();
  // Records from before workspaces go to their profiles' keys first (the one being replaced among them).
  await attributeLegacyOnce(state.workspaces, state.dir, profiles, ctx.clock.now());
  const old = o.replaced;
  const previous = old && !o.fresh && normaliseBaseUrl(old.baseUrl) === url ? keyFingerprint(old.apiKey) : undefined;
  const rotated = previous !== undefined && previous !== fingerprint ? previous : undefined;
  const join = rotated
    ? (await state.workspaces.join({ url, fingerprint: rotated, name: old?.workspace })).workspace
    : undefined;
  let joined;
  try {
    joined = await state.workspaces.join({ url, fingerprint, name: o.workspace, join, fresh: o.fresh });
  } catch (error) {
    if (!(error instanceof WorkspaceTakenError)) throw error;
    throw new UsageError(
      `--new-workspace: this key already belongs to workspace ${error.workspace}, and a key never leaves its workspace; profile "${o.name}" was not saved`,
      {
        hint: 'start an empty workspace with a key no profile has used (POST /_sandbox/keys mints one on a sandbox), or leave out --new-workspace',
      },
    );
  }
  const keys = await state.workspaces.keys(joined.workspace);
  return {
    workspace: joined.workspace,
    how: joined.how,
    ...(rotated ? { previousKey: rotated } : {}),
    leads: await state.workspaces.leadCount(joined.workspace),
    keys,
    names: [...new Set(keys.flatMap((k) => k.names))],
  };
}

function joinedLine(j: WorkspaceJoin): string {
  const leads = `${j.leads} lead${j.leads === 1 ? '' : 's'} on record`;
  const keys = `${j.keys.length} key${j.keys.length === 1 ? '' : 's'}`;
  switch (j.how) {
    case 'rotation':
      return `the new key joins workspace ${j.workspace}, the replaced key's (${j.previousKey}): ${leads}, ${keys}; its leads stay booked once`;
    case 'name':
      return `the key joins workspace ${j.workspace} (named ${j.names.join(', ')}): ${leads}, ${keys}`;
    case 'new':
      return `the key starts workspace ${j.workspace}: ${leads}`;
    default:
      return `the key's workspace: ${j.workspace} (${leads}, ${keys})`;
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
  {
    baseUrl,
    apiKey,
    rate,
    sandboxDefault,
  }: { baseUrl: string; apiKey: string; rate: number | undefined; sandboxDefault: boolean },
): Promise<KeyCheck> {
  // Said before the request: which API judges the key (stderr; --json's stdout stays one document).
  const where = sandboxDefault ? `${baseUrl}, the local sandbox's address (no --base-url given)` : baseUrl;
  (await ctx.ui()).info(`checking the key with ${CHECK_REQUEST} at ${where}`);
  // Drawn from the new key's rate budget like any request: SCHEDCTL_RATE, else --rate.
  const api = await ctx.apiWith({ baseUrl, apiKey, rate: rateOf(ctx.env, { rate }) });
  const notSaved = `profile "${name}" was not saved`;
  const orNoVerify = 'or pass --no-verify to save it without checking';
  const nameYourApi = `--base-url names your API (for example --base-url https://api.example.com); without it the key is checked against, and saved for, the local sandbox at ${DEFAULT_BASE_URL}`;
  try {
    await api.listTriggers();
    return 'passed';
  } catch (error) {
    if (error instanceof ApiError && error.code === 'MISSING_SCOPE') return 'missing_scope';
    if (error instanceof ApiError && error.status === 401) {
      const { hint: _hint, details: _details, ...fields } = error.fields();
      throw new ApiError({
        ...fields,
        ...(sandboxDefault
          ? {
              message: `the local sandbox at ${baseUrl} (no --base-url given) refused this API key, so ${notSaved}`,
              hint: `a key for your API needs its address: ${nameYourApi}`,
            }
          : { message: `${baseUrl} refused this API key, so ${notSaved}; check that you copied the whole key` }),
      });
    }
    if (error instanceof ApiError)
      throw error.withHint(
        sandboxDefault ? `${notSaved}; ${nameYourApi}` : `${notSaved}; check --base-url, ${orNoVerify}`,
      );
    if (error instanceof NetworkError) {
      throw new NetworkError(`could not check the key: ${error.message}; ${notSaved}`, {
        hint: sandboxDefault ? nameYourApi : `check --base-url and that the API is reachable, ${orNoVerify}`,
        cause: error,
      });
    }
    if (error instanceof BadResponseError) {
      throw new BadResponseError(`could not check the key: ${error.message}; ${notSaved}`, {
        ...(error.status !== undefined ? { status: error.status } : {}),
        ...(error.details ? { details: error.details } : {}),
        hint: sandboxDefault ? nameYourApi : `is --base-url the API's address? ${orNoVerify}`,
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
    { message: `${what}. Replace it? (a new key for the same API joins its workspace)`, default: false },
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
