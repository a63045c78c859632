/**
 * The JSON Schemas in tools/list, in the form every client takes. zod writes a nullable string
 * as `type: ["string", "null"]` and a loose object's extra keys as `additionalProperties: {}`;
 * several assistant platforms reject both in tool schemas (Inspector's --strict warns about
 * them). Here a type array becomes an `anyOf` of one type each (each keyword kept on the branch
 * it applies to), an empty schema as a map's values becomes "anything" said by leaving the
 * keyword out (JSON Schema's default), and an empty `properties` is dropped.
 */
import * as z from 'zod/v4';

type Json = Record<string, unknown>;

/** The keywords that apply to one JSON type only: they go to that type's branch of an anyOf. */
const BY_TYPE: Record<string, string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems', 'prefixItems'],
  object: ['properties', 'required', 'additionalProperties', 'propertyNames', 'minProperties', 'maxProperties'],
};

const isEmpty = (v: unknown) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v as Json).length === 0;

export function portable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(portable);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema as Json)) {
    if (k === 'properties' && typeof v === 'object' && v !== null) {
      const props = Object.fromEntries(Object.entries(v as Json).map(([name, s]) => [name, portable(s)]));
      if (Object.keys(props).length) out[k] = props;
    } else if ((k === 'additionalProperties' || k === 'items' || k === 'propertyNames') && isEmpty(v)) {
      // `{}` means "anything": the same as leaving the keyword out.
    } else out[k] = portable(v);
  }
  if (Array.isArray(out.type)) {
    const types = out.type as string[];
    delete out.type;
    const moved = new Set<string>();
    const anyOf = types.map((t) => {
      const branch: Json = { type: t };
      for (const key of BY_TYPE[t] ?? [])
        if (key in out) {
          branch[key] = out[key];
          moved.add(key);
        }
      return branch;
    });
    for (const key of moved) delete out[key];
    out.anyOf = anyOf;
  }
  return out;
}

/** A tool's input or output schema as tools/list shows it. */
export function toolSchema(schema: z.ZodObject, io: 'input' | 'output'): Json {
  const json = portable(z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' })) as Json;
  return { ...json, type: 'object' };
}

/** Where a schema tree breaks Inspector's --strict portability rules: a `type` array, or an empty `{}`. */
export function portabilityProblems(schema: unknown, path = '$'): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => portabilityProblems(s, `${path}[${i}]`));
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Json;
  const own: string[] = [];
  if (isEmpty(s)) own.push(`${path}: empty schema {}`);
  if (Array.isArray(s.type)) own.push(`${path}: type array ${JSON.stringify(s.type)}`);
  return [...own, ...Object.entries(s).flatMap(([k, v]) => portabilityProblems(v, `${path}.${k}`))];
}
