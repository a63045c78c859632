/**
 * The workspace a command's ledger records belong to (state/workspaces.ts): the one the key is
 * recorded in, else the one its profile's name, or its predecessor key, joins, else a new one.
 * The first time a config directory's schedctl opens a ledger, every profile's key is recorded
 * and the records from before workspaces are attributed (state/legacy-records.ts). When a key is
 * first recorded, records under the ids an older schedctl computed for it (a name with its case,
 * a path's escapes, the key's own id before it joined a name) are adopted into its workspace.
 */
import { scopeOf } from '../config/target.js';
import type { Context } from '../context.js';
import { formerWorkspaceIds, keyFingerprint, normaliseBaseUrl, workspaceId } from '../state/identity.js';
import { StateLockError, StateWriteError, type Profile } from '../state/index.js';
import { attributeLegacyOnce, legacyMark } from '../state/legacy-records.js';

const resolved = new WeakMap<Context, Promise<string>>();

export function workspaceOf(ctx: Context): Promise<string> {
  let scope = resolved.get(ctx);
  if (!scope) {
    scope = resolve(ctx);
    resolved.set(ctx, scope);
  }
  return scope;
}

async function resolve(ctx: Context): Promise<string> {
  const [target, state] = await Promise.all([ctx.target(), ctx.state()]);
  const url = normaliseBaseUrl(target.baseUrl);
  const fingerprint = keyFingerprint(target.apiKey);
  try {
    const { profiles } = await state.profiles.snapshot();
    // An older schedctl filed a key from the environment under `env@url`: when this command runs
    // with one (and no profile is called env), its records are that key's.
    const fromEnv: Record<string, Profile> =
      target.keySource === 'SCHEDCTL_API_KEY' && !profiles.env
        ? { env: { baseUrl: target.baseUrl, apiKey: target.apiKey } }
        : {};
    // Whether the attribution is done and the key's place as recorded, asked together (one round
    // trip on a team state): when both stand, the usual case, nothing is written.
    const request = { url, fingerprint, name: target.workspace };
    const [attributed, recorded] = await Promise.all([
      state.workspaces.marked(legacyMark(state.dir)),
      target.previousKey ? undefined : state.workspaces.recorded(request),
    ]);
    if (!attributed)
      await attributeLegacyOnce(state.workspaces, state.dir, { ...profiles, ...fromEnv }, ctx.clock.now());
    const join = target.previousKey ? await state.workspaces.lookup(url, target.previousKey) : undefined;
    const joined = (attributed && recorded) || (await state.workspaces.join({ ...request, join }));
    if (joined.how !== 'recorded')
      for (const former of [workspaceId(target), ...formerWorkspaceIds(target)])
        await state.adopt(former, joined.workspace);
    return joined.workspace;
  } catch (error) {
    // A read-only directory still answers reads; a command that writes refuses on its own.
    if (!(error instanceof StateWriteError || error instanceof StateLockError)) throw error;
    return (await state.workspaces.lookup(url, fingerprint)) ?? scopeOf(target);
  }
}
