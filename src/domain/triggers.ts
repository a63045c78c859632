/**
 * Trigger rules that run before any fire: resolving a name to a trigger, and checking
 * the responses against the trigger's form, so a typo never costs a workflow run
 * (every fire starts one: CRM writes and notifications repeat, routing fairness counts).
 */
import type { FireRequest, Trigger, TriggerField } from '../api/schemas.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { closest } from './closest.js';
import { isValidEmail, parseKeyValues } from './inputs.js';

/** By id, else exact name, else case-insensitive name. */
export function resolveTrigger(triggers: Trigger[], idOrName: string): Trigger {
  const byId = triggers.find((t) => t.id === idOrName);
  if (byId) return byId;
  const exact = triggers.filter((t) => t.name === idOrName);
  const matches = exact.length > 0 ? exact : triggers.filter((t) => t.name.toLowerCase() === idOrName.toLowerCase());
  const [only] = matches;
  if (only && matches.length === 1) return only;
  if (matches.length > 1) {
    throw new UsageError(`trigger name "${idOrName}" is ambiguous: ${matches.length} triggers match`, {
      details: matches.map((t) => `${t.name}: ${t.id}`),
      hint: 'pass the trigger id instead of the name',
    });
  }
  const names = triggers.map((t) => `"${t.name}"`);
  throw new CliError('NOT_FOUND', `no trigger "${idOrName}" in this workspace`, EXIT.notFound, {
    hint: names.length
      ? `available triggers: ${names.join(', ')} (see \`schedctl triggers ls\`)`
      : 'this workspace has no API triggers',
  });
}

/** A field filled from the fire's `email`: named `email`, or of type `email`. */
export function isEmailField(field: TriggerField): boolean {
  return field.name === 'email' || field.type === 'email';
}

export interface ResponsesInput {
  email: string;
  /** From repeatable `--field key=value`; wins over the file. */
  fields: Record<string, string>;
  /** From `--responses FILE|-`: a JSON object. */
  fromFile?: Record<string, unknown>;
}

/**
 * Merges the file and `--field` values and checks them against the form. All problems
 * are collected into one UsageError (details `<field>: <reason>`), so one run shows
 * everything to fix. Returns the `responses` to send: select labels mapped to their
 * values, the email field left out (the API fills it from `email`).
 */
export function buildResponses(trigger: Trigger, input: ResponsesInput): Record<string, string> {
  const problems: string[] = [];
  if (!isValidEmail(input.email)) problems.push(`email: "${input.email}" is not a valid email address (--email)`);

  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.fromFile ?? {})) {
    if (value === null || value === undefined) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      merged[key] = String(value);
    else
      problems.push(`${key}: must be a string, not ${Array.isArray(value) ? 'an array' : 'an object'} (--responses)`);
  }
  Object.assign(merged, input.fields);

  const byName = new Map(trigger.fields.map((f) => [f.name, f]));
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(merged)) {
    const field = byName.get(key);
    if (!field) {
      const suggestion = closest(
        key,
        trigger.fields.map((f) => f.name),
      );
      problems.push(
        `${key}: not a field of this trigger; ${suggestion ? `did you mean "${suggestion}"?` : `fields: ${trigger.fields.map((f) => f.name).join(', ')}`}`,
      );
      continue;
    }
    if (isEmailField(field)) {
      // The API fills it from `email`; a different value is a conflict the server would reject.
      if (value !== '' && value.trim().toLowerCase() !== input.email.trim().toLowerCase()) {
        problems.push(
          `${key}: "${value}" differs from --email ${input.email}; leave it out (it is filled from --email)`,
        );
      }
      continue;
    }
    if (value === '') continue;
    if (field.options) {
      const option = field.options.find((o) => o.value === value) ?? field.options.find((o) => o.label === value);
      if (!option) {
        problems.push(
          `${key}: "${value}" is not an option; valid values: ${field.options.map((o) => o.value).join(', ')}`,
        );
        continue;
      }
      out[key] = option.value;
      continue;
    }
    out[key] = value;
  }

  const missing = trigger.fields.filter(
    (f) =>
      f.required && !isEmailField(f) && out[f.name] === undefined && !problems.some((p) => p.startsWith(`${f.name}:`)),
  );
  for (const f of missing)
    problems.push(
      `${f.name}: required (${f.label}); pass --field ${f.name}=${f.options ? f.options.map((o) => o.value).join('|') : '…'}`,
    );

  if (problems.length > 0) {
    const names = [...new Set(problems.map((p) => p.slice(0, p.indexOf(':'))))];
    throw new UsageError(`invalid input for trigger "${trigger.name}": fix ${names.join(', ')}; nothing was fired`, {
      details: problems,
      hint: `see its fields with \`schedctl triggers show ${trigger.id}\``,
    });
  }
  return out;
}

export const CONTEXT_KEYS = ['utmParams', 'gclid', 'pageUrl', 'referrer', 'userAgent', 'ipAddress'] as const;

/**
 * `--context key=value` pairs into the fire's `context`. Only the spec's six members;
 * `utmParams` may be a JSON object (`utmParams={"source":"ads"}`), the rest are strings.
 */
export function parseContext(pairs: string[]): FireRequest['context'] | undefined {
  if (pairs.length === 0) return undefined;
  const raw = parseKeyValues(pairs, '--context');
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
