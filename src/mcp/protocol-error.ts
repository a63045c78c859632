/**
 * A JSON-RPC error answer of the server (a protocol fault: unknown tool, bad params, resource
 * not found). The SDK sends a thrown error's `code`, `message` and `data` as they are; its
 * McpError puts "MCP error <code>: " in front of the message, and the client's McpError puts it
 * there again, so a person read "MCP error -32002: MCP error -32002: Resource not found". Thrown
 * instead of McpError: the message on the wire is the text alone, and the client's prefix is the
 * only one.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}
