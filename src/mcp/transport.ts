/**
 * stdio for the MCP server: one JSON-RPC message per line, as the SDK's StdioServerTransport
 * reads them, plus the answers JSON-RPC 2.0 asks for where that transport stays silent or the
 * SDK answers -32603 with a zod dump:
 * - a line that is not JSON: -32700 Parse error (id null);
 * - JSON that is not a JSON-RPC message: -32600 Invalid Request (its id when it has one);
 * - a request of a known method whose params do not fit (tools/call with `arguments: null`):
 *   -32602 Invalid params naming the field;
 * - a request before initialize (other than ping): -32600, as the lifecycle asks initialize first;
 * - a line over MAX_LINE: one -32600 for the whole line, however long the rest of it is.
 */
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  JSONRPCMessageSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod/v4';

const MAX_LINE = 10 * 1024 * 1024;

/** The requests whose params are checked here, before the SDK parses them. */
const PARAMS: Record<string, z.ZodType> = {
  'tools/call': CallToolRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
  'prompts/get': GetPromptRequestSchema,
};

type Id = string | number | null;
const idOf = (v: unknown): Id => {
  const id = (v as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/** What is wrong with a request's params, in one line ("params.arguments must be an object, not null"). */
export function paramsProblem(method: string, message: Record<string, unknown>): string | undefined {
  const schema = PARAMS[method];
  if (!schema) return undefined;
  const params = message.params as Record<string, unknown> | undefined;
  if (method === 'tools/call' && params && 'arguments' in params) {
    const a = params.arguments;
    if (a !== undefined && (a === null || typeof a !== 'object' || Array.isArray(a)))
      return `params.arguments must be an object of the tool's arguments (or left out), not ${typeName(a)}`;
  }
  const parsed = schema.safeParse(message);
  if (parsed.success) return undefined;
  const said = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join('.').slice(0, 100) || 'params'}: ${i.message}`)
    .join('; ');
  // Bounded, whatever the message holds.
  return said.length > 600 ? `${said.slice(0, 600)}…` : said;
}

/**
 * An error answer's message without the "MCP error <code>: " the SDK's McpError writes into it:
 * the client's McpError adds that prefix again, and a person read it twice. schedctl's own
 * errors never carry it (./protocol-error.ts); this catches the SDK's (an invalid tools/call result).
 */
function unprefixed(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || typeof message.error?.message !== 'string') return message;
  const text = message.error.message.replace(/^MCP error -?\d+: /, '');
  return text === message.error.message ? message : { ...message, error: { ...message.error, message: text } };
}

export class LineTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /** The line being received: its pieces so far and their total length. */
  private pending: string[] = [];
  private pendingLength = 0;
  private started = false;
  /** A character split across two chunks is kept until its last byte arrives. */
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
  ) {}

  /** The rest of a line already answered as too long is dropped, up to its end: one reply per line. */
  private discarding = false;
  /** Until the client's initialize, only initialize and ping are answered (the specification's lifecycle). */
  private initialized = false;

  /**
   * Each chunk is scanned once, from its own start: the pending line is kept as its pieces and
   * their length, never searched again, so a long line costs time in proportion to its length
   * (re-scanning the accumulated buffer on every chunk made a 10 MB line cost seconds).
   */
  private readonly onData = (chunk: Buffer | string) => {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let start = 0;
    let nl: number;
    while ((nl = text.indexOf('\n', start)) !== -1) {
      const piece = text.slice(start, nl);
      start = nl + 1;
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      const length = this.pendingLength + piece.length;
      const line = this.pending.length ? this.pending.join('') + piece : piece;
      this.pending = [];
      this.pendingLength = 0;
      if (length > MAX_LINE) this.tooLong();
      else this.receive(line.replace(/\r$/, ''));
    }
    if (this.discarding || start === text.length) return;
    const rest = start === 0 ? text : text.slice(start);
    this.pending.push(rest);
    this.pendingLength += rest.length;
    if (this.pendingLength > MAX_LINE) {
      // Answered now, once; the rest of the line is dropped as it arrives, up to its newline.
      this.pending = [];
      this.pendingLength = 0;
      this.discarding = true;
      this.tooLong();
    }
  };

  private tooLong(): void {
    void this.reply(null, ErrorCode.InvalidRequest, `Invalid Request: a line longer than ${MAX_LINE} characters`);
  }

  private readonly onError = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    if (this.started) throw new Error('LineTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
  }

  /** One line: answered here when it is not a message the SDK can take, else handed on. */
  receive(line: string): void {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      void this.reply(null, ErrorCode.ParseError, `Parse error: the line is not JSON (${(error as Error).message})`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      void this.reply(
        idOf(value),
        ErrorCode.InvalidRequest,
        'Invalid Request: not a JSON-RPC 2.0 message (jsonrpc "2.0", a method, and an id for a request)',
      );
      return;
    }
    const message = parsed.data;
    if ('method' in message && 'id' in message && !this.initialized) {
      if (message.method === 'initialize') this.initialized = true;
      else if (message.method !== 'ping') {
        void this.reply(
          message.id,
          ErrorCode.InvalidRequest,
          `Invalid Request: ${JSON.stringify(message.method.slice(0, 80))} before initialize: the session starts with an initialize request (only ping may come before it)`,
        );
        return;
      }
    }
    if ('method' in message && 'id' in message) {
      const problem = paramsProblem(message.method, message as unknown as Record<string, unknown>);
      if (problem) {
        void this.reply(message.id, ErrorCode.InvalidParams, `Invalid params for ${message.method}: ${problem}`);
        return;
      }
    }
    this.onmessage?.(message);
  }

  private reply(id: Id, code: number, message: string): Promise<void> {
    // JSON-RPC 2.0: an error whose request id could not be read has id null.
    return this.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(JSON.stringify(unprefixed(message)));
  }

  private write(json: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${json}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pending = [];
    this.pendingLength = 0;
    this.onclose?.();
  }
}
