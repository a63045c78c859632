/** The document kinds as JSON Schemas (scripts/gen-schemas.mjs writes them to schemas/). */
import * as z from '../api/zod.js';
import { DOCUMENTS, schemaId, type DocumentKindName } from './index.js';

export function jsonSchemas(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const kind of Object.keys(DOCUMENTS) as DocumentKindName[]) {
    const doc = DOCUMENTS[kind];
    // `io: 'input'`: an object's extra keys stay allowed (a clockSkew beside any document, a field a
    // newer server adds to a Meeting), as the tests' zod parse allows them; nothing is a transform.
    const body = z.toJSONSchema(doc.schema(), { io: 'input', unrepresentable: 'any', reused: 'ref' }) as Record<
      string,
      unknown
    >;
    const { $schema, ...rest } = body;
    out[kind] = {
      $schema,
      $id: schemaId(kind),
      title: `schedctl --json: ${doc.title}`,
      description: `Printed by: ${doc.commands.length ? doc.commands.map((c) => `schedctl ${c}`).join(', ') : 'any command that fails'} (--json). Document version ${doc.version}; docs/json-output.md.`,
      ...rest,
    };
  }
  return out;
}
