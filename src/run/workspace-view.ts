/**
 * A workspace as `profile show` and `state status` list it: its id, its keys (fingerprints, never
 * keys) and the names it joined by. Read only: showing a profile records nothing.
 */
import { keyFingerprint, normaliseBaseUrl, workspaceId } from '../state/identity.js';
import type { State, WorkspaceKey } from '../state/index.js';

export interface WorkspaceView {
  /** The workspace id (the one on record; before the key's first use, the one it would start). */
  id: string;
  /** Whether the key is on record in it yet (its first command records it). */
  recorded: boolean;
  keys: WorkspaceKey[];
  names: string[];
}

export async function workspaceView(
  state: Pick<State, 'workspaces'>,
  key: { baseUrl: string; apiKey: string; workspace?: string | undefined },
): Promise<WorkspaceView> {
  const found = await state.workspaces.lookup(normaliseBaseUrl(key.baseUrl), keyFingerprint(key.apiKey));
  const id = found ?? workspaceId(key);
  const keys = found ? await state.workspaces.keys(found) : [];
  return { id, recorded: found !== undefined, keys, names: [...new Set(keys.flatMap((k) => k.names))] };
}

/** One line per key, for the text output. */
export function workspaceLines(w: WorkspaceView, indent: string): string[] {
  if (!w.recorded) return [`${indent}(no key on record yet: the first command records this one)`];
  return w.keys.map(
    (k) =>
      `${indent}key ${k.fingerprint}${k.names.length ? ` (names: ${k.names.join(', ')})` : ''}, since ${k.addedAt}`,
  );
}
