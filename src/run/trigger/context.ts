import type { FireRequest } from '../../api/schemas.js';
import { closest } from '../../domain/closest.js';
import { parseKeyValues, requirePlainAnswers } from '../../domain/inputs.js';
import { UsageError } from '../../errors.js';

/** The spec's members of a fire's `context`. */
export const CONTEXT_KEYS = ['utmParams', 'gclid', 'pageUrl', 'referrer', 'userAgent', 'ipAddress'] as const;

/**
 * `--context key=value` pairs into the fire's `context`. Only the spec's six members;
 * `utmParams` may be a JSON object (`utmParams={"source":"ads"}`), the rest are strings.
 */
export function parseContext(pairs: string[]): FireRequest['context'] | undefined {
  if (pairs.length === 0) return undefined;
  const raw = requirePlainAnswers(parseKeyValues(pairs, '--context'), '--context');
  const context: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!(CONTEXT_KEYS as readonly string[]).includes(key)) {
      const suggestion = closest(key, CONTEXT_KEYS);
      throw new UsageError(`invalid --context key "${key}"${suggestion ? `; did you mean "${suggestion}"?` : ''}`, {
        hint: `allowed keys: ${CONTEXT_KEYS.join(', ')}`,
      });
    }
    if (key === 'utmParams' && value.trim().startsWith('{')) {
      try {
        context[key] = JSON.parse(value);
      } catch (error) {
        throw new UsageError(`invalid --context utmParams: not valid JSON (${(error as Error).message})`, {
          hint: `e.g. --context 'utmParams={"source":"ads","campaign":"spring"}'`,
        });
      }
    } else {
      context[key] = value;
    }
  }
  return context;
}
