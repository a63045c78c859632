/**
 * Records from before workspaces were filed under `profile@url` (identity.ts, legacyScope). They
 * move once, for every profile of the config directory together, into the workspace of that
 * profile's key; and every profile's key is recorded in its workspace at the same time (its
 * name joining, its former ids adopted), so two profiles of one key never start apart. What no
 * profile here has the name and URL of goes to the URL's unattributed scope: visible to every
 * workspace at that URL, blocking its leads until resolved (state/ledger.ts).
 */
import {
  formerWorkspaceIds,
  keyFingerprint,
  legacyScope,
  normaliseBaseUrl,
  splitLegacyScope,
  unattributedScope,
  workspaceId,
} from './identity.js';
import type { Profile } from './schemas.js';
import type { Sql } from './sql/types.js';
import { joinIn, legacyScopes, moveRecords, type Workspaces } from './workspaces.js';

/** What the attribution did: each legacy scope and the workspace it went to. */
export type Attribution = { scope: string; workspace: string; profile: string | undefined }[];

/** The mark of this config directory's attribution (a team database holds one per machine's directory). */
export const legacyMark = (dir: string): string => `legacy-records:${dir}`;

/** Runs the attribution once for the config directory `dir`; later calls only check the mark. */
export async function attributeLegacyOnce(
  workspaces: Workspaces,
  dir: string,
  profiles: Readonly<Record<string, Profile>>,
  now: Date,
): Promise<Attribution> {
  const mark = legacyMark(dir);
  let done: Attribution = [];
  if (await workspaces.marked(mark)) return done;
  await workspaces.once(mark, async (tx) => {
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
  const joined = new Map<string, string>();
  // Named profiles first: a key's unnamed profile then finds it already in the named workspace.
  const order = Object.entries(profiles).sort(([, a], [, b]) => Number(!a.workspace) - Number(!b.workspace));
  for (const [name, p] of order) {
    const url = normaliseBaseUrl(p.baseUrl);
    const { workspace } = await joinIn(tx, { url, fingerprint: keyFingerprint(p.apiKey), name: p.workspace }, now);
    for (const former of [workspaceId(p), ...formerWorkspaceIds(p)]) await moveRecords(tx, former, workspace);
    joined.set(legacyScope(name, p.baseUrl), workspace);
  }
  // A key joined later may have moved an earlier profile's workspace: ask again for the current one.
  const attribution: Attribution = [];
  for (const scope of await legacyScopes(tx)) {
    const owner = splitLegacyScope(scope);
    const profile = owner && joined.has(scope) ? owner.profileName : undefined;
    const p = profile === undefined ? undefined : profiles[profile];
    const workspace = p
      ? await currentWorkspace(tx, normaliseBaseUrl(p.baseUrl), keyFingerprint(p.apiKey))
      : unattributedScope(owner?.baseUrl ?? scope);
    await moveRecords(tx, scope, workspace);
    attribution.push({ scope, workspace, profile });
  }
  return attribution;
}

async function currentWorkspace(tx: Sql, url: string, fingerprint: string): Promise<string> {
  const row = await tx.get<{ workspace: string }>(
    'SELECT workspace FROM schedctl_workspace_keys WHERE base_url = ? AND fingerprint = ?',
    [url, fingerprint],
  );
  // Joined just above, in this transaction: the row is there.
  return row!.workspace;
}
