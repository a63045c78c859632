/** Fault injection rules for `/_sandbox/faults`: they let tests rehearse lost responses and bad gateways. */
import * as z from '../api/zod.js';
import { ERROR_CODES } from '../api/schemas.js';
import type { FaultRule } from './types.js';

export const faultInputSchema = z.strictObject({
  method: z.optional(z.string().check(z.minLength(1))),
  path: z.optional(z.string().check(z.startsWith('/'))),
  fault: z.enum(['drop-after-commit', 'stall-after-commit', 'status', 'html', 'truncate', 'delay']),
  count: z.optional(z.int().check(z.gte(1))),
  status: z.optional(z.int().check(z.gte(100), z.lte(599))),
  code: z.optional(z.enum(ERROR_CODES)),
  retryAfter: z.optional(z.int().check(z.gte(0))),
  delayMs: z.optional(z.int().check(z.gte(0), z.lte(600_000))),
});
export type FaultInput = z.infer<typeof faultInputSchema>;

/** `*` stands for exactly one path segment. */
export function pathMatches(pattern: string, path: string): boolean {
  const p = pattern.split('/');
  const s = path.split('/');
  return p.length === s.length && p.every((part, i) => part === '*' || part === s[i]);
}

export class FaultBook {
  private rules: FaultRule[] = [];
  private nextId = 1;

  add(input: FaultInput): FaultRule {
    const { count, ...rest } = input;
    const rule: FaultRule = { id: this.nextId++, ...rest, method: input.method?.toUpperCase(), remaining: count ?? 1 };
    if (rule.method === undefined) delete rule.method;
    this.rules.push(rule);
    return rule;
  }

  /** The first matching rule, consuming one of its counts. */
  take(method: string, path: string): FaultRule | undefined {
    const rule = this.rules.find((r) => (!r.method || r.method === method) && (!r.path || pathMatches(r.path, path)));
    if (!rule) return undefined;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.rules = this.rules.filter((r) => r !== rule);
    return { ...rule };
  }

  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  clear(): void {
    this.rules = [];
  }
}
