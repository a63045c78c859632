/**
 * Remembered scheduler outcomes (`outcomes.json`, `{outcomes: {key: record}}`), one per
 * (scope, trigger, lead email). Every fire starts a new workflow run, so the spec asks to reuse
 * a scheduler outcome already held rather than fire again; but an outcome belongs to the
 * answers it was fired with (other answers may route elsewhere), so a record carries the
 * `answersKey` of its responses and only the same answers reuse it.
 */
import { createHash } from 'node:crypto';
import type { Outcome } from '../api/schemas.js';
import { FileStore } from './json-file.js';
import { normEmail, own, put } from './records.js';
import type { OutcomesFile, RememberedOutcome } from './schemas.js';

export type { RememberedOutcome };
export type OutcomeLookup =
  | { kind: 'match'; outcome: RememberedOutcome }
  | { kind: 'different-answers'; previous: RememberedOutcome }
  | { kind: 'none' };
export interface FireToRemember {
  executionId: string;
  outcome: Outcome | { type: string };
  firedAt: string;
  answersKey: string;
}

/**
 * A stable digest of what a fire was asked with: sha256 of canonical JSON (object keys sorted
 * at every depth), so the same answers in another order give the same key.
 */
export function answersKey(responses: Record<string, unknown>, context: Record<string, unknown> = {}): string {
  return createHash('sha256').update(canonical({ responses, context })).digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const keyOf = (scope: string, triggerId: string, email: string) => `${scope} ${triggerId} ${normEmail(email)}`;
// Records written before `scope` was stored are recognised by their key's prefix, as before.
const inScope = (key: string, record: RememberedOutcome, scope: string) =>
  record.scope !== undefined ? record.scope === scope : key.startsWith(`${scope} `);

export class Outcomes extends FileStore<OutcomesFile> {
  /** The held record for this lead, whatever its answers. */
  async get(scope: string, triggerId: string, email: string): Promise<RememberedOutcome | undefined> {
    return own((await this.file.read()).outcomes, keyOf(scope, triggerId, email));
  }

  /**
   * `match` only for the same answers. A record without answersKey (written by an older
   * schedctl) cannot prove its answers, so it is `different-answers`: offered, never reused silently.
   */
  async lookup(scope: string, triggerId: string, email: string, key: string): Promise<OutcomeLookup> {
    const held = await this.get(scope, triggerId, email);
    if (!held) return { kind: 'none' };
    return held.answersKey === key ? { kind: 'match', outcome: held } : { kind: 'different-answers', previous: held };
  }

  /** The record of this workflow run, if held (to name its trigger in a "fire again" hint). */
  async findExecution(scope: string, executionId: string): Promise<RememberedOutcome | undefined> {
    return Object.entries((await this.file.read()).outcomes).find(
      ([k, r]) => r.executionId === executionId && inScope(k, r, scope),
    )?.[1];
  }

  /**
   * A fire for this lead supersedes the record held for it, whatever its answers: the previous
   * record is dropped. Only a `scheduler` outcome is stored (others hold nothing to reuse);
   * true when stored.
   */
  async remember(scope: string, triggerId: string, email: string, fired: FireToRemember): Promise<boolean> {
    const key = keyOf(scope, triggerId, email);
    return this.file.update(({ outcomes }) => {
      delete outcomes[key];
      if (fired.outcome.type !== 'scheduler') return false;
      const record: RememberedOutcome = {
        executionId: fired.executionId,
        outcome: fired.outcome as Outcome,
        firedAt: fired.firedAt,
        email,
        triggerId,
        answersKey: fired.answersKey,
        scope,
      };
      put(outcomes, key, record);
      return true;
    });
  }

  /** Records written under a legacy scope move to the workspace (state/identity.ts). */
  async adopt(from: string, to: string): Promise<void> {
    const held = (outcomes: Record<string, RememberedOutcome>) =>
      Object.entries(outcomes).filter(([k, r]) => inScope(k, r, from));
    if (held((await this.file.read()).outcomes).length === 0) return;
    await this.file.update(({ outcomes }) => {
      for (const [key, r] of held(outcomes)) {
        delete outcomes[key];
        put(outcomes, keyOf(to, r.triggerId, r.email), { ...r, scope: to });
      }
    });
  }

  async forget(scope: string, triggerId: string, email: string): Promise<RememberedOutcome | undefined> {
    const key = keyOf(scope, triggerId, email);
    return this.file.update(({ outcomes }) => {
      const held = own(outcomes, key);
      delete outcomes[key];
      return held;
    });
  }

  /** Forgets the outcome of this workflow run (used up by a booking, or its session ended). */
  async forgetExecution(scope: string, executionId: string): Promise<RememberedOutcome | undefined> {
    return this.file.update(({ outcomes }) => {
      const found = Object.entries(outcomes).find(([k, r]) => r.executionId === executionId && inScope(k, r, scope));
      if (found) delete outcomes[found[0]];
      return found?.[1];
    });
  }
}
