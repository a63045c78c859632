/**
 * The workspace a command's ledger records belong to (state/identity.ts). The first time a
 * process asks, records an older schedctl wrote under the profile's name and URL as typed are
 * adopted into it, so an upgrade keeps every lost attempt and meeting on record; so are records
 * under the id an older schedctl gave the workspace (a name with its case, a path's escapes).
 */
import { legacyScopeOf, scopeOf } from '../config/target.js';
import { formerWorkspaceIds } from '../state/identity.js';
import type { Context } from '../context.js';
import { StateLockError, StateWriteError } from '../state/index.js';

const adopted = new WeakMap<Context, Promise<string>>();

export function workspaceOf(ctx: Context): Promise<string> {
  let scope = adopted.get(ctx);
  if (!scope) {
    scope = (async () => {
      const [target, state] = await Promise.all([ctx.target(), ctx.state()]);
      const workspace = scopeOf(target);
      try {
        await state.adopt(legacyScopeOf(target), workspace);
        // Ids an older schedctl computed before names folded case and escapes were decoded.
        for (const former of formerWorkspaceIds(target)) await state.adopt(former, workspace);
      } catch (error) {
        // A read-only directory still answers reads; a command that writes refuses on its own.
        if (!(error instanceof StateWriteError || error instanceof StateLockError)) throw error;
      }
      return workspace;
    })();
    adopted.set(ctx, scope);
  }
  return scope;
}
