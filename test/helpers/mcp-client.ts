/**
 * Drives `schedctl mcp` the way an AI assistant's client does: the MCP SDK's own Client over
 * stdio, spawning the built bin/schedctl.js. Every result's text and the server's stderr are
 * checked for leaked keys; anything on stdout that is not a protocol message surfaces as a
 * client error, collected in `protocolErrors`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { assertNoSecrets, baseEnv, BIN } from './cli.js';

export interface McpSession {
  client: Client;
  /** Calls a tool; the result as the client received it, with its text content joined. */
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  stderr(): string;
  /** Errors the client saw outside tool results (e.g. a line on stdout that is not JSON-RPC). */
  protocolErrors: Error[];
  close(): Promise<void>;
}

export interface ToolResult {
  isError: boolean;
  text: string;
  /** structuredContent, read by path in the tests. */
  doc: any;
}

export async function startMcp(opts: {
  configDir: string;
  env?: Record<string, string | undefined>;
  args?: string[];
}): Promise<McpSession> {
  const env: Record<string, string> = { ...baseEnv(opts.configDir), SCHEDCTL_RATE: '0' };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...(opts.args ?? [])],
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const protocolErrors: Error[] = [];
  const client = new Client({ name: 'schedctl-e2e', version: '1.0.0' });
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  return {
    client,
    protocolErrors,
    stderr: () => stderr,
    async call(name, args = {}) {
      const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      assertNoSecrets(`mcp ${name}`, { text, structuredContent: JSON.stringify(r.structuredContent ?? null) });
      return { isError: Boolean(r.isError), text, doc: r.structuredContent };
    },
    async close() {
      await client.close();
      assertNoSecrets('schedctl mcp', { stderr });
    },
  };
}

/** A message for expect(): what the tool answered. */
export function shown(r: ToolResult): string {
  return `isError ${r.isError}\ntext:\n${r.text}\nstructuredContent:\n${JSON.stringify(r.doc, null, 2)}`;
}
