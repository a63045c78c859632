// Stand-in for zod v3 where the MCP SDK imports it (server/zod-compat.js): the SDK takes v3
// or v4 schemas and uses v3 only for v3 ones; schedctl's tools are all zod v4, so v3 (and its
// JSON Schema converter, zod-to-json-schema) would be about 80 KB of the package for nothing.
const unused = () => {
  throw new Error('zod v3 is not bundled: schedctl passes the MCP SDK zod v4 schemas only');
};
export const object = unused;
export const zodToJsonSchema = unused;
