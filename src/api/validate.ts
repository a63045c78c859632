import type { core } from './zod.js';

/** One `<json path>: <problem>` line per schema issue, e.g. `$.meeting.status: invalid option`. */
export function formatSchemaIssues(error: core.$ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    return `$${path}: ${issue.message}`;
  });
}
