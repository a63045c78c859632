/**
 * The one zod import of schedctl: zod/mini, with English messages.
 *
 * Why mini: the classic API hangs every method on every schema, so importing it evaluates
 * all of zod (about 90 KB minified, ~20 ms of every command's start on Node 20); mini's
 * functions are tree-shaken to what the schemas use (about 15 KB). Mini ships no messages
 * by default ("Invalid input"); the English locale restores classic's wording, which
 * error details and the sandbox's INVALID_REQUEST details show to people.
 */
import * as z from 'zod/mini';
// From the locales index, not 'zod/v4/locales/en.js': zod's package types 'zod/mini' and the
// index with its .d.cts files but the deep path with .d.ts ones, and tsc then loaded zod's
// declarations twice and compared the two copies structurally (83 more files, seconds of the
// type check). The bundle is the same: the index's other locales are tree-shaken.
import { en } from 'zod/v4/locales';

z.config(en());

export * from 'zod/mini';

/** One `<json path>: <problem>` line per schema issue, e.g. `$.meeting.status: invalid option`. */
export function formatSchemaIssues(error: z.core.$ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    return `$${path}: ${issue.message}`;
  });
}
