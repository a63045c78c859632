/**
 * Which workspace a key belongs to (shared/ledger-rules.md, "Identities"): a workspace is a set
 * of keys at one API, and it only grows. Every key fingerprint is in exactly one workspace; a
 * name joins a key to the workspace carrying that name (merging the key's former workspace into
 * it, so profiles of one key agree whichever carries the name); a rotated key joins its
 * predecessor's workspace. Pure: the store (state/workspaces.ts) reads the rows of one base URL,
 * asks planJoin, and applies the plan in one transaction.
 */
import { keyIdOf, namedIdOf, workspaceName } from '../state/identity.js';

/** One key's row: its fingerprint, the workspace it is in, and the names it joined by (folded). */
export interface KeyRow {
  fingerprint: string;
  workspace: string;
  names: string[];
}

export interface JoinRequest {
  /** The normalised base URL (identity.ts). */
  url: string;
  fingerprint: string;
  /** `--workspace NAME`: join the workspace carrying this name (as typed; folded here). */
  name?: string | undefined;
  /** A workspace id to join: the predecessor's, when a profile's key was replaced. */
  join?: string | undefined;
  /** `--new-workspace`: start an empty workspace; only for a key no workspace holds. */
  fresh?: boolean | undefined;
}

export type JoinPlan =
  | {
      kind: 'join';
      workspace: string;
      /** Workspaces whose keys and records move into `workspace` (never the other way). */
      merge: string[];
      /** The key's names after the join. */
      names: string[];
      /** How the key came to be there: recorded before, by name, by a predecessor, or new. */
      how: 'recorded' | 'name' | 'rotation' | 'new';
      /** Whether the key's row must be written. */
      write: boolean;
    }
  | { kind: 'taken'; workspace: string };

export function planJoin(rows: readonly KeyRow[], req: JoinRequest): JoinPlan {
  const name = workspaceName(req.name ?? '');
  const mine = rows.find((r) => r.fingerprint === req.fingerprint);
  const named = name ? rows.find((r) => r.names.includes(name)) : undefined;
  if (req.fresh) {
    const held = mine ?? named;
    if (held) return { kind: 'taken', workspace: held.workspace };
    const workspace = name ? namedIdOf(req.url, name) : keyIdOf(req.url, req.fingerprint);
    return { kind: 'join', workspace, merge: [], names: name ? [name] : [], how: 'new', write: true };
  }
  const workspace =
    named?.workspace ??
    (name ? namedIdOf(req.url, name) : (req.join ?? mine?.workspace ?? keyIdOf(req.url, req.fingerprint)));
  const merge = [...new Set([req.join, mine?.workspace])].filter(
    (w): w is string => w !== undefined && w !== workspace,
  );
  const names = mine?.names.includes(name) || !name ? (mine?.names ?? []) : [...(mine?.names ?? []), name];
  const how = !mine
    ? name
      ? 'name'
      : req.join
        ? 'rotation'
        : 'new'
    : mine.workspace === workspace
      ? 'recorded'
      : name
        ? 'name'
        : 'rotation';
  const write = !mine || mine.workspace !== workspace || names.length !== mine.names.length || merge.length > 0;
  return { kind: 'join', workspace, merge, names, how, write };
}
