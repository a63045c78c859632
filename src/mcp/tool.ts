/**
 * What one MCP tool is: its name, a description written for a model, a zod input shape, and a
 * run that returns the CLI's `--json` document plus a few lines of text. The server
 * (./server.ts) turns a run into a tool result, and any error into an isError result.
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
}

export interface ToolReply {
  /** structuredContent: the CLI's `--json` document (always an object). */
  doc: Record<string, unknown>;
  /** Text content lines; sanitized as a whole by the server. */
  text: string[];
}

export interface ToolDef<S extends Shape = Shape> {
  name: string;
  title: string;
  description: string;
  input: S;
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
