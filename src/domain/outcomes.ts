/**
 * Remembered scheduler outcomes, per (profile@baseUrl, trigger, email). Every fire starts
 * a new workflow run, so the spec asks to reuse a scheduler outcome already held rather
 * than fire again. Stored beside the key store (0600), never holding the key.
 */
import type Conf from 'conf';
import type { Outcome } from '../api/schemas.js';
import { openJsonStore } from '../config/store.js';

export interface RememberedOutcome {
  executionId: string;
  outcome: Outcome;
  firedAt: string;
  email: string;
  triggerId: string;
}

type Shape = { outcomes: Record<string, RememberedOutcome> };

export class OutcomeMemory {
  private readonly conf: Conf<Shape>;
  constructor(configDir: string) {
    this.conf = openJsonStore<Shape>(configDir, 'outcomes', { outcomes: {} });
  }

  get(scope: string, triggerId: string, email: string): RememberedOutcome | undefined {
    return this.all()[keyOf(scope, triggerId, email)];
  }

  /** Only `scheduler` outcomes are worth reusing; others are ignored. */
  remember(scope: string, triggerId: string, email: string, result: { executionId: string; outcome: Outcome | { type: string }; firedAt: string }): void {
    if (result.outcome.type !== 'scheduler') return;
    const entry: RememberedOutcome = {
      executionId: result.executionId,
      outcome: result.outcome as Outcome,
      firedAt: result.firedAt,
      email,
      triggerId,
    };
    this.conf.set('outcomes', { ...this.all(), [keyOf(scope, triggerId, email)]: entry });
  }

  forget(scope: string, triggerId: string, email: string): void {
    const all = { ...this.all() };
    delete all[keyOf(scope, triggerId, email)];
    this.conf.set('outcomes', all);
  }

  /** Forgets the outcome of this workflow run (used up by a booking, or its session ended); true when one was held. */
  forgetExecution(scope: string, executionId: string): RememberedOutcome | undefined {
    const all = { ...this.all() };
    const key = Object.keys(all).find((k) => k.startsWith(`${scope} `) && all[k]!.executionId === executionId);
    if (key === undefined) return undefined;
    const held = all[key]!;
    delete all[key];
    this.conf.set('outcomes', all);
    return held;
  }

  private all(): Record<string, RememberedOutcome> {
    return this.conf.get('outcomes') ?? {};
  }
}

// Emails compare case-insensitively (Lead@X.com and lead@x.com are one lead).
const keyOf = (scope: string, triggerId: string, email: string) => `${scope} ${triggerId} ${email.trim().toLowerCase()}`;
