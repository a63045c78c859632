// Stand-in for the MCP SDK's ajv-based JSON Schema validator (ajv and its friends are ~120 KB of
// the bundle): `schedctl mcp` gives the server its own validator (src/mcp/server.ts), so the
// default one is never constructed.
export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error('ajv is not bundled: pass a jsonSchemaValidator to the MCP server');
  }
}
