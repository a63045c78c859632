/**
 * `schedctl mcp`: the Model Context Protocol server on stdio. Loaded only by the mcp run module,
 * so no other command pays for the SDK. It uses everything a CLI command uses: the profile (or
 * --profile), one HTTP layer with the shared rate budget, the local state store (journal,
 * remembered outcomes, meetings), the sanitizer. stdout carries protocol messages only: every
 * tool call runs on a context whose human output is captured or sent to stderr (./call.ts).
 */
import type { Readable, Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Context } from '../context.js';
import { sanitizeText } from '../ui/sanitize.js';
import { VERSION } from '../version.js';
import { errorResult, newCall, replyResult } from './call.js';
import type { ToolDef } from './tool.js';
import { TOOLS } from './tools/index.js';

export const INSTRUCTIONS = [
  'schedctl books, routes and reschedules meetings through the Scheduling and Workflow Trigger API, with the same safety rules as its CLI.',
  'Only book_meeting and route_lead book, and reschedule_meeting moves: call them only when the person asked for that. Every other tool only reads (find_slots also places a short reservation hold; fire_trigger starts a workflow run).',
  'Never a second meeting: after an OUTCOME_UNKNOWN error from book_meeting or route_lead, call the same tool again with exactly the same arguments; it answers already_booked instead of booking twice. Do not fire a trigger again after OUTCOME_UNKNOWN from fire_trigger.',
  'The API allows 30 requests per minute per key; each tool says what it costs. Errors come back as results with error.code, message and a hint; hints may name schedctl CLI commands and flags (schedctl slots = find_slots, --rebook = rebook).',
].join('\n');

/** Answers elicitation schemas without ajv (which the bundle does not carry); this server never elicits. */
const noSchemaValidation: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

export async function serveMcp(ctx: Context): Promise<void> {
  const server = new McpServer(
    { name: 'schedctl', version: VERSION },
    { instructions: INSTRUCTIONS, jsonSchemaValidator: noSchemaValidation },
  );
  for (const def of TOOLS) register(server, ctx, def);

  const stdin = ctx.io.stdin as Readable;
  const transport = new StdioServerTransport(stdin, ctx.io.stdout as Writable);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  // The client closing our stdin ends the session (the transport itself only listens for data).
  stdin.once('end', () => void server.close());
  await server.connect(transport);
  await announce(ctx);
  await closed;
}

function register(server: McpServer, base: Context, def: ToolDef): void {
  server.registerTool(
    def.name,
    {
      title: def.title,
      description: def.description,
      inputSchema: def.input as ZodRawShapeCompat,
      annotations: def.annotations,
    },
    async (args: unknown) => {
      const call = newCall(base);
      try {
        return replyResult(await def.run(call, args as never), call);
      } catch (error) {
        return errorResult(error, call, def, base.io.stderr);
      }
    },
  );
}

/** One line on stderr (a client's server log): where the tools act. A configuration problem is said here and again by every tool call. */
async function announce(ctx: Context): Promise<void> {
  try {
    const t = await ctx.target();
    const where = t.profileName ? `profile "${t.profileName}"` : 'the key from SCHEDCTL_API_KEY';
    ctx.io.stderr.write(
      `schedctl mcp ${VERSION}: ${TOOLS.length} tools on stdio, using ${sanitizeText(where)} at ${sanitizeText(t.baseUrl)}\n`,
    );
  } catch (error) {
    ctx.io.stderr.write(
      `schedctl mcp ${VERSION}: not configured: ${sanitizeText(error instanceof Error ? error.message : String(error))}\n`,
    );
  }
}
