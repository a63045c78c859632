/**
 * What one MCP tool is: its name, a description written for a model, a zod input shape (refused
 * when an argument is unknown), a zod output shape (the tool's outputSchema: structuredContent
 * conforms to it), honest annotations, and a run that returns the document plus a few lines of
 * text. The server (./server.ts) turns a run into a tool result, and any error into an isError
 * result.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod/v4';
import type { Context } from '../context.js';

export type Shape = Record<string, z.ZodType>;

/** One tool call: its own context (no prompts, no stdout) and the notes it gathers. */
export interface ToolCall {
  ctx: Context;
  /** Warnings for the text content (a reused outcome, a record that could not be written). */
  notes: string[];
  /**
   * Set right before a request that is never repeated (book, fire): what to tell the model
   * if its answer is lost (OUTCOME_UNKNOWN), in this tool's words.
   */
  lostHint: string | undefined;
  /**
   * Set with lostHint by the tools that book: the tool's name for the words used when the answer
   * was an explicit error (a 5xx, an HTML 502) rather than none. That proves nothing either way
   * (shared/ledger-rules.md), so the result says the outcome is unknown, never "almost certainly booked".
   */
  booking?: string | undefined;
  /**
   * Progress of a call that makes several requests: each API request answered is one step
   * (a notifications/progress when the client sent a progressToken). A tool that knows how
   * many requests it will make sets `total` first.
   */
  progress: { total: number | undefined };
  /** The arguments as the client sent them (for hints that name them). */
  args: Record<string, unknown>;
}

export interface ToolReply {
  /** structuredContent: conforms to the tool's output shape (always an object). */
  doc: Record<string, unknown>;
  /** Text content lines: server text in them is already quoted (./quote.ts). */
  text: string[];
}

export interface ToolDef<S extends Shape = Shape> {
  name: string;
  title: string;
  description: string;
  input: S;
  /** The shape of structuredContent on success (the tool's outputSchema). */
  output: z.ZodObject;
  annotations: ToolAnnotations;
  /** The CLI flag each argument stands for: a refusal of bad input then names the argument. */
  flags?: Record<string, string>;
  run(call: ToolCall, args: z.output<z.ZodObject<S>>): Promise<ToolReply>;
}

/** Keeps the argument types of `run` tied to the input shape. */
export function defineTool<S extends Shape>(def: ToolDef<S>): ToolDef<S> {
  return def;
}

/** The spec's budget, said the same way in every description. */
export const BUDGET = 'the API allows 30 requests per minute per key, shared by every schedctl process';

/** Annotations, said once: what each kind of tool does to the world. */
export const ANNOTATIONS = {
  /** Reads the API; the same call again changes nothing. */
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  /** Reads only schedctl's local record. */
  local: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} as const satisfies Record<string, ToolAnnotations>;
