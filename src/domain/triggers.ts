/**
 * Trigger rules that run before any fire: resolving a name to a trigger, and checking
 * the responses against the trigger's form, so a typo never costs a workflow run
 * (every fire starts one: CRM writes and notifications repeat, routing fairness counts).
 */
import type { Trigger, TriggerField } from '../api/schemas.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { closest } from './closest.js';
import { assignOwn, setOwn } from './own-keys.js';
import { isValidEmail } from './inputs.js';
import { controlCharacterIn, shownEscaped } from '../api/request-text.js';

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
  /** Answers given one by one; they win over the file. */
  fields: Record<string, string>;
  /** Answers from a file of JSON: an object. */
  fromFile?: Record<string, unknown>;
}

/**
 * How a caller names the inputs a fire's answers come from, for its problems: the CLI names
 * its flags (run/trigger/flag-names.ts), a bulk row its columns. The domain never does.
 */
export interface FireInputNames {
  /** The lead's email input: the CLI's flag, or `the email column` of a bulk row. */
  email: string;
  /** The file of answers, for callers that read one. */
  file?: string;
  /** How to give a required field that is missing: `the column "region" is missing` (bulk). */
  required(field: TriggerField): string;
}

/** One problem with a fire's answers, as data: each caller words it with its own input names. */
export type ResponsesProblem =
  | { kind: 'lead_email'; key: 'email'; email: string }
  | { kind: 'not_text'; key: string; value: object }
  | { kind: 'control_char'; key: string; char: string; inKey: boolean }
  | { kind: 'unknown_field'; key: string; suggestion: string | undefined; fields: string[] }
  | { kind: 'email_differs'; key: string; value: string; email: string }
  | { kind: 'not_an_option'; key: string; value: string; options: string[] }
  | { kind: 'required'; key: string; field: TriggerField };

/** `<field>: <reason>`, the form of the API's INVALID_REQUEST details. */
export function problemLine(p: ResponsesProblem, names: FireInputNames): string {
  switch (p.kind) {
    case 'lead_email':
      return `email: "${p.email}" is not a valid email address (${names.email})`;
    case 'not_text':
      return `${p.key}: must be a string, not ${Array.isArray(p.value) ? 'an array' : 'an object'}${names.file ? ` (${names.file})` : ''}`;
    case 'control_char':
      return `${p.key}: ${p.inKey ? 'the field name' : 'the answer'} holds the control character ${p.char}; control characters, line breaks and bidi overrides are not sent to the API`;
    case 'unknown_field':
      return `${p.key}: not a field of this trigger; ${p.suggestion ? `did you mean "${p.suggestion}"?` : `fields: ${p.fields.join(', ')}`}`;
    case 'email_differs':
      return `${p.key}: "${p.value}" differs from ${names.email} ${p.email}; leave it out (it is filled from ${names.email})`;
    case 'not_an_option':
      return `${p.key}: "${p.value}" is not an option; valid values: ${p.options.join(', ')}`;
    case 'required':
      return `${p.key}: required (${p.field.label}); ${names.required(p.field)}`;
  }
}

/**
 * Merges the file and the one-by-one answers and checks them against the form, collecting
 * every problem, so one run shows everything to fix. `responses` is what to send: select
 * labels mapped to their values, the email field left out (the API fills it from `email`).
 */
export function checkResponses(
  trigger: Trigger,
  input: ResponsesInput,
): { responses: Record<string, string>; problems: ResponsesProblem[] } {
  const problems: ResponsesProblem[] = [];
  if (!isValidEmail(input.email)) problems.push({ kind: 'lead_email', key: 'email', email: input.email });

  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.fromFile ?? {})) {
    if (value === null || value === undefined) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      setOwn(merged, key, String(value));
    else problems.push({ kind: 'not_text', key, value });
  }
  assignOwn(merged, input.fields);

  const byName = new Map(trigger.fields.map((f) => [f.name, f]));
  const responses: Record<string, string> = {};
  for (const [key, value] of Object.entries(merged)) {
    // The one rule for free text sent to the API (api/request-text.ts), before any other check of
    // the answer. A field's own name and a select's own options are the server's words, sent back
    // as it gave them (a hostile name stays answerable); only what the person typed is checked.
    const field = byName.get(key);
    const inKey = field ? undefined : controlCharacterIn(key);
    const char = inKey ?? (field?.options ? undefined : controlCharacterIn(value));
    if (char) {
      problems.push({ kind: 'control_char', key: inKey ? shownEscaped(key) : key, char, inKey: Boolean(inKey) });
      continue;
    }
    if (!field) {
      const fields = trigger.fields.map((f) => f.name);
      problems.push({ kind: 'unknown_field', key, suggestion: closest(key, fields), fields });
      continue;
    }
    if (isEmailField(field)) {
      // The API fills it from `email`; a different value is a conflict the server would reject.
      if (value !== '' && value.trim().toLowerCase() !== input.email.trim().toLowerCase())
        problems.push({ kind: 'email_differs', key, value, email: input.email });
      continue;
    }
    if (value === '') continue;
    if (field.options) {
      const option = field.options.find((o) => o.value === value) ?? field.options.find((o) => o.label === value);
      if (!option) {
        problems.push({ kind: 'not_an_option', key, value, options: field.options.map((o) => o.value) });
        continue;
      }
      setOwn(responses, key, option.value);
      continue;
    }
    setOwn(responses, key, value);
  }

  for (const field of trigger.fields) {
    const reported = problems.some((p) => p.key === field.name);
    if (field.required && !isEmailField(field) && responses[field.name] === undefined && !reported)
      problems.push({ kind: 'required', key: field.name, field });
  }
  return { responses, problems };
}

/**
 * checkResponses, with every problem in one UsageError (details `<field>: <reason>`, inputs
 * named as the caller names them). Returns the `responses` to send.
 */
export function buildResponses(trigger: Trigger, input: ResponsesInput, names: FireInputNames): Record<string, string> {
  const { responses, problems } = checkResponses(trigger, input);
  if (problems.length > 0) {
    const keys = [...new Set(problems.map((p) => p.key))];
    throw new UsageError(`invalid input for trigger "${trigger.name}": fix ${keys.join(', ')}; nothing was fired`, {
      details: problems.map((p) => problemLine(p, names)),
      hint: `see its fields with \`schedctl triggers show ${trigger.id}\``,
    });
  }
  return responses;
}
