/**
 * Drives `schedctl mcp` the way an AI assistant's client does: the MCP SDK's own Client over
 * stdio, spawning the built bin/schedctl.js. Every result's text and the server's stderr are
 * checked for leaked keys; anything on stdout that is not a protocol message surfaces as a
 * client error, collected in `protocolErrors`. `rawMcp` speaks JSON-RPC lines by hand, for the
 * protocol's edges that a well-behaved client never reaches.
 */
import { spawn } from 'node:child_process';
import { DOCUMENTS, schemaId, type DocumentKindName } from '../../src/documents/index.js';
import { formatSchemaIssues } from '../../src/api/zod.js';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, expect } from 'vitest';
import { assertNoSecrets, baseEnv, BIN, tempDir } from './cli.js';
import type { SandboxFixture } from './sandbox.js';

/** The tools whose structuredContent is a CLI document kind. */
const TOOL_DOCUMENTS: Record<string, DocumentKindName> = {
  book_meeting: 'booking-result',
  route_lead: 'route-result',
  reschedule_meeting: 'move-result',
};

export interface McpSession {
  client: Client;
  /** Calls a tool; the result as the client received it, with its text content joined. */
  call(
    name: string,
    args?: Record<string, unknown>,
    opts?: { onprogress?: (p: Progress) => void },
  ): Promise<ToolResult>;
  stderr(): string;
  /** Errors the client saw outside tool results (e.g. a line on stdout that is not JSON-RPC). */
  protocolErrors: Error[];
  close(): Promise<void>;
}

export interface ToolResult {
  isError: boolean;
  text: string;
  /**
   * structuredContent, read by path in the tests; for an error result (which carries none),
   * `{error}` from its `_meta["schedctl/error"]`.
   */
  doc: any;
  /** The result as received. */
  raw: CallToolResult;
}

function envFor(configDir: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { ...baseEnv(configDir), SCHEDCTL_RATE: '0' };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export async function startMcp(opts: {
  configDir: string;
  env?: Record<string, string | undefined>;
  args?: string[];
}): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...(opts.args ?? [])],
    env: envFor(opts.configDir, opts.env),
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
    async call(name, args = {}, callOpts = {}) {
      const r = (await client.callTool(
        { name, arguments: args },
        undefined,
        callOpts.onprogress ? { onprogress: callOpts.onprogress } : undefined,
      )) as CallToolResult;
      const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      assertNoSecrets(`mcp ${name}`, {
        text,
        structuredContent: JSON.stringify(r.structuredContent ?? null),
        meta: JSON.stringify(r._meta ?? null),
      });
      const error = r._meta?.['schedctl/error'];
      // The booking tools' structured output is the CLI's document (docs/json-output.md): checked
      // against the same schema as `book`, `route` and `reschedule --json`.
      const kind = TOOL_DOCUMENTS[name];
      if (kind && r.structuredContent && !r.isError) {
        const parsed = DOCUMENTS[kind].schema().safeParse(r.structuredContent);
        if (!parsed.success)
          throw new Error(
            `${name}'s structuredContent is not a ${schemaId(kind)}:\n  ${formatSchemaIssues(parsed.error).join('\n  ')}`,
          );
      }
      return { isError: Boolean(r.isError), text, doc: r.structuredContent ?? (error ? { error } : undefined), raw: r };
    },
    async close() {
      await client.close();
      assertNoSecrets('schedctl mcp', { stderr });
    },
  };
}

/** A JSON-RPC peer that writes lines as given and reads the server's answers by id. */
export interface RawMcp {
  /** Writes one line (a message, or anything at all) to the server's stdin. */
  send(line: string): void;
  /** The next answer whose id is `id` (null: an error that could not name its request). */
  answer(id: string | number | null): Promise<any>;
  /** Sends initialize and initialized; resolves with the initialize result. */
  initialize(): Promise<any>;
  /** Every message received so far (answers already taken by `answer` included). */
  seen(): any[];
  close(): Promise<{ code: number | null; stderr: string }>;
}

export function rawMcp(opts: { configDir: string; env?: Record<string, string | undefined>; args?: string[] }): RawMcp {
  const child = spawn(process.execPath, [BIN, 'mcp', ...(opts.args ?? [])], {
    env: envFor(opts.configDir, opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const received: any[] = [];
  const all: any[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    received.push(message);
    all.push(message);
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const answer = async (id: string | number | null): Promise<any> => {
    for (;;) {
      const i = received.findIndex((m) => 'id' in m && m.id === id && ('result' in m || 'error' in m));
      if (i !== -1) return received.splice(i, 1)[0];
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const send = (line: string) => child.stdin.write(`${line}\n`);
  return {
    send,
    answer,
    seen: () => [...all],
    async initialize() {
      send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'init',
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      );
      const init = await answer('init');
      send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      return init;
    },
    async close() {
      child.stdin.end();
      const code = await exited;
      return { code, stderr };
    },
  };
}

/** A message for expect(): what the tool answered. */
export function shown(r: ToolResult): string {
  return `isError ${r.isError}\ntext:\n${r.text}\nstructuredContent:\n${JSON.stringify(r.raw.structuredContent, null, 2)}\n_meta:\n${JSON.stringify(r.raw._meta ?? null)}`;
}

/**
 * MCP sessions on the fixture's sandbox with its full key, each closed after its test with no
 * protocol error seen by the client: `const mcp = useMcpSessions(t)`, then `await mcp()`.
 */
export function useMcpSessions(t: SandboxFixture): () => Promise<McpSession> {
  const sessions: McpSession[] = [];
  afterEach(async () => {
    for (const s of sessions.splice(0)) {
      await s.close();
      expect(s.protocolErrors, `client errors\nstderr:\n${s.stderr()}`).toEqual([]);
    }
  });
  return async () => {
    const s = await startMcp({
      configDir: t.dir,
      env: { SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: t.sb.baseUrl },
    });
    sessions.push(s);
    return s;
  };
}

/**
 * One `schedctl mcp` shared by the tests of a file (or of the describe block that calls this),
 * for tests that neither depend on a fresh process nor leave anything behind: listings,
 * schemas, prompts and arguments refused before any request. It has a config dir of its own
 * (never a test's `t.dir`: that is a fresh one per test) and the fixture's full key; it starts
 * with the first test that asks for it and is closed after the last. The client must have seen
 * no protocol error by the end of each test. A start costs ~0.3 s of CPU (docs/development.md
 * "How the suite is kept fast"); a test of what a fresh server does, or of state it keeps, uses
 * `useMcpSessions`.
 */
export function useSharedMcp(t: SandboxFixture): () => Promise<McpSession> {
  let session: Promise<McpSession> | undefined;
  afterEach(async () => {
    if (!session) return;
    const s = await session;
    expect(s.protocolErrors, `client errors\nstderr:\n${s.stderr()}`).toEqual([]);
  });
  afterAll(async () => {
    if (!session) return;
    const s = await session.catch(() => undefined);
    session = undefined;
    await s?.close();
  });
  return () =>
    (session ??= startMcp({
      configDir: tempDir(),
      env: { SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: t.sb.baseUrl },
    }));
}
