import { maskKey, showUrl } from '../../config/mask.js';
import { withoutUserinfo } from '../../config/target.js';
import { UsageError } from '../../errors.js';
import { workspaceId } from '../../state/identity.js';
import type { Profile } from '../../state/index.js';
import { redactStateUrl } from '../../config/state-url.js';

/** The JSON shape of a profile in every profile command's output (the key masked). */
export interface ProfileView {
  name: string;
  baseUrl: string;
  key: string;
  isDefault: boolean;
  /**
   * The ledger workspace its records belong to (state/identity.ts): the normalised base URL
   * and the key's fingerprint, or the explicit name given with --workspace.
   */
  workspace: string;
  /** Its team state (postgres://…, never a password), when it has one. */
  state?: string;
}

export function profileView(name: string, profile: Profile, isDefault: boolean): ProfileView {
  return {
    name,
    // A stored URL with user:password@ (refused now, kept by older versions) never prints its password.
    baseUrl: withoutUserinfo(profile.baseUrl),
    key: maskKey(profile.apiKey),
    isDefault,
    // Its id begins with the URL: shown the same way.
    workspace: showUrl(workspaceId(profile)),
    ...(profile.state ? { state: redactStateUrl(profile.state) } : {}),
  };
}

export function unknownProfile(name: string, known: string[]): UsageError {
  return new UsageError(`unknown profile "${name}"`, {
    hint: known.length
      ? `known profiles: ${known.join(', ')}`
      : 'no profiles yet; add one with `schedctl profile add <name>`',
  });
}
