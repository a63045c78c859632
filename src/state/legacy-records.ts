/**
 * Records from before workspaces were filed under `profile@url` (identity.ts, splitLegacyScope). They
 * move once, for every profile of the config directory together, into the workspace of that
 * profile's key; and every profile's key is recorded in its workspace at the same time (its
 * name joining, its former ids adopted), so two profiles of one key never start apart. What no
 * profile here has the name and URL of goes to the URL's unattributed scope: visible to every
 * workspace at that URL, blocking its leads until resolved (state/ledger.ts).
 */
import {
  formerWorkspaceIds,
  keyFingerprint,
  normaliseBaseUrl,
  splitLegacyScope,
  unattributedScope,
  workspaceId,
} from './identity.js';
import type { Profile } from './schemas.js';
import { get, type Sql } from './sql/types.js';
import { joinIn, legacyScopes, moveRecords, type Workspaces } from './workspaces.js';

/** What the attribution did: each legacy scope and the workspace it went to. */
export type Attribution = { scope: string; workspace: string; profile: string | undefined }[];

/** The mark of this config directory's attribution (a team database holds one per machine's directory). */
export const legacyMark = (dir: string): string => `legacy-records:${dir}`;

/** Runs the attribution once for the config directory `dir`; later calls only read the mark. */
export async function attributeLegacyOnce(
  workspaces: Workspaces,
  dir: string,
  profiles: Readonly<Record<string, Profile>>,
  now: Date,
): Promise<Attribution> {
  let done: Attribution = [];
  await workspaces.once(legacyMark(dir), async (tx) => {
    done = await attributeLegacy(tx, profiles, now);
  });
  return done;
}

/** Every profile's key recorded, then every legacy scope moved (in the caller's transaction). */
export async function attributeLegacy(
  tx: Sql,
  profiles: Readonly<Record<string, Profile>>,
  now: Date,
): Promise<Attribution> {
  // In any order: a later profile's name merges an earlier one's workspace, never forks it.
  for (const p of Object.values(profiles)) {
    const url = normaliseBaseUrl(p.baseUrl);
    const { workspace } = await joinIn(tx, { url, fingerprint: keyFingerprint(p.apiKey), name: p.workspace }, now);
    // Records under the ids an older schedctl computed for this key (its own, before a name joined it).
    for (const former of [workspaceId(p), ...formerWorkspaceIds(p)]) await moveRecords(tx, former, workspace);
  }
  const attribution: Attribution = [];
  for (const scope of await legacyScopes(tx)) {
    const owner = splitLegacyScope(scope);
    // The profile of that name, holding that URL as it was typed then (the legacy scope's spelling).
    const p = owner && Object.hasOwn(profiles, owner.profileName) ? profiles[owner.profileName] : undefined;
    const profile = p?.baseUrl === owner?.baseUrl ? owner?.profileName : undefined;
    // The workspace as it is now: a profile joined after this one's may have merged it.
    const workspace =
      p && profile !== undefined
        ? await currentWorkspace(tx, normaliseBaseUrl(p.baseUrl), keyFingerprint(p.apiKey))
        : unattributedScope(owner?.baseUrl ?? scope);
    await moveRecords(tx, scope, workspace);
    attribution.push({ scope, workspace, profile });
  }
  return attribution;
}

async function currentWorkspace(tx: Sql, url: string, fingerprint: string): Promise<string> {
  const row = await get<{ workspace: string }>(
    tx,
    'SELECT workspace FROM schedctl_workspace_keys WHERE base_url = ? AND fingerprint = ?',
    [url, fingerprint],
  );
  // Joined just above, in this transaction: the row is there.
  return row!.workspace;
}
