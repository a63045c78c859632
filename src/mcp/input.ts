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

export function unknownArguments(tool: string, keys: string[], known: string[]): string {
  const each = keys.map((k) => {
    const m = meant(k, known);
    return `"${k}"${m ? ` (did you mean ${m}?)` : ''}`;
  });
  const takes = known.length ? `${tool} takes: ${known.join(', ')}` : `${tool} takes no arguments`;
  return `unknown argument${keys.length === 1 ? '' : 's'} ${each.join(', ')}: nothing was done. ${takes}`;
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
