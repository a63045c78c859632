/**
 * A tool's input: its shape as a strict object, so an unknown argument is refused (a typo, or a
 * result's camelCase name such as executionId for execution_id, would otherwise be dropped in
 * silence and the call would do less than asked). The refusal names the argument, the one it
 * probably meant and the arguments the tool takes.
 */
import * as z from 'zod/v4';
import type { ToolDef } from './tool.js';

/** executionId -> execution_id; reservationID -> reservation_id. */
const snake = (s: string) =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-\s]+/g, '_')
    .toLowerCase();

/** The known argument an unknown one probably meant: its snake_case form, or one letter off. */
export function meant(key: string, known: string[]): string | undefined {
  const s = snake(key);
  return (
    known.find((k) => k === s) ??
    known.find((k) => k.replaceAll('_', '') === s.replaceAll('_', '')) ??
    known.find((k) => k.startsWith(s) || s.startsWith(k)) ??
    known.find((k) => editDistance(k, s) <= 2)
  );
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** At most `max` characters of a value quoted in an error, saying how many were left out. */
export function clip(value: string, max = QUOTED_MAX): string {
  return value.length <= max ? value : `${value.slice(0, max)}… (${value.length - max} more characters)`;
}

/** The longest part of a value any error quotes; and how many unknown arguments one names. */
export const QUOTED_MAX = 200;
const NAMED_MAX = 5;

export function unknownArguments(tool: string, keys: string[], known: string[]): string {
  const each = keys.slice(0, NAMED_MAX).map((k) => {
    // A long name is not a misspelt argument: no suggestion (and no edit distance over megabytes).
    const m = k.length <= 64 ? meant(k, known) : undefined;
    return `${JSON.stringify(clip(k, 64))}${m ? ` (did you mean ${m}?)` : ''}`;
  });
  if (keys.length > NAMED_MAX) each.push(`and ${keys.length - NAMED_MAX} more`);
  const takes = known.length ? `${tool} takes: ${known.join(', ')}` : `${tool} takes no arguments`;
  return `unknown argument${keys.length === 1 ? '' : 's'} ${each.join(', ')}: nothing was done. ${takes}`;
}

/** A refused input's problems, one line each ("email: too long: at most 254 characters"), at most a few. */
export function inputProblems(error: z.ZodError, tool: string): string[] {
  // An unknown argument first: it is usually a misspelt one, and the others follow from it.
  const issues = [...error.issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  );
  const lines = issues.slice(0, NAMED_MAX).map((i) => {
    const where = i.path
      .map(String)
      .map((p) => clip(p, 64))
      .join('.');
    return `${where ? `${where}: ` : ''}${clip(i.message, 600)}`;
  });
  if (error.issues.length > NAMED_MAX) lines.push(`and ${error.issues.length - NAMED_MAX} more problems`);
  return lines.length ? lines : [`the arguments do not fit ${tool}'s inputSchema`];
}

export function strictInput(def: Pick<ToolDef, 'name' | 'input'>): z.ZodObject {
  const known = Object.keys(def.input);
  return z.strictObject(def.input, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return unknownArguments(def.name, issue.keys, known);
      if (issue.code === 'invalid_type' && issue.path?.length === 0)
        return `the arguments of ${def.name} must be an object`;
      return undefined;
    },
  });
}
