/**
 * Running one tool call safely: a context of its own that never prompts and never writes the
 * protocol's stdout, and every outcome, errors included, as a tool result. The data goes out
 * unchanged in structuredContent; the text content is sanitized, so a hostile server string
 * cannot drive the terminal of whoever reads a client's log.
 */
import { Readable, Writable } from 'node:stream';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context, IO } from '../context.js';
import { CliError, OutcomeUnknownError, UsageError } from '../errors.js';
import { reportError } from '../report.js';
import { sanitizeText } from '../ui/sanitize.js';
import { createUi, type Ui } from '../ui/ui.js';
import type { ToolCall, ToolDef, ToolReply } from './tool.js';

function lineSink(onLine: (line: string) => void): Writable {
  let pending = '';
  return new Writable({
    write(chunk, _encoding, done) {
      pending += String(chunk);
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) onLine(line);
      done();
    },
  });
}

function textSink(into: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      into.push(String(chunk));
      done();
    },
  });
}

/**
 * The call's context: the server's state store, target and HTTP layer (one rate budget), but
 * its own IO. Human notices are dropped (quiet), warnings become the call's notes, and anything
 * written to its stdout goes to stderr: stdout belongs to the protocol.
 */
export function newCall(base: Context): ToolCall {
  const notes: string[] = [];
  const io: IO = {
    stdout: lineSink((line) => base.io.stderr.write(`schedctl mcp: ${sanitizeText(line)}\n`)),
    stderr: lineSink((line) => notes.push(line.replace(/^warning: /, ''))),
    stdin: Readable.from([]),
    isStdoutTTY: false,
    isStderrTTY: false,
    isStdinTTY: false,
  };
  const globals = { ...base.globals, json: true, input: false, quiet: true, color: false };
  let ui: Promise<Ui> | undefined;
  const ctx: Context = {
    ...base,
    io,
    globals,
    ui: () => (ui ??= Promise.resolve(createUi(io, { ...base.env, NO_COLOR: '1' }, globals))),
    canPrompt: () => false,
  };
  return { ctx, notes, lostHint: undefined };
}

/** A finished call: the document as structuredContent, the lines (and notes) as sanitized text. */
export function replyResult(reply: ToolReply, call: ToolCall): CallToolResult {
  const notes = call.notes.length ? ['', 'Notes:', ...call.notes.map((n) => `- ${n}`)] : [];
  return { content: [{ type: 'text', text: safeText([...reply.text, ...notes]) }], structuredContent: reply.doc };
}

/** Server text is data: every control and bidi character shown escaped (the lines themselves kept). */
export function safeText(lines: string[]): string {
  // Only schedctl's own line breaks (\n) separate lines; any other (a bare \r, U+2028) is shown escaped.
  return lines.join('\n').split('\n').map(sanitizeText).join('\n');
}

/**
 * A failed call as the CLI reports it with --json: `{error: {code, message, details, status,
 * hint}}` (secrets redacted) in structuredContent, the human error lines as text. A lost
 * answer's hint says what calling this tool again does; bad input names the tool's argument.
 */
export function errorResult(
  error: unknown,
  call: ToolCall,
  def: Pick<ToolDef, 'flags' | 'name'>,
  log: NodeJS.WritableStream,
): CallToolResult {
  let e = error;
  if (e instanceof OutcomeUnknownError && call.lostHint)
    e = new OutcomeUnknownError(e.message, { hint: call.lostHint, cause: e });
  if (e instanceof UsageError && def.flags) {
    const rename = (s: string) => renameFlags(s, def.flags ?? {});
    e = new UsageError(rename(e.message), {
      ...(e.hint ? { hint: e.hint } : {}),
      ...(e.details ? { details: e.details.map(rename) } : {}),
    });
  }
  if (!(e instanceof CliError)) {
    const why = e instanceof Error ? (call.ctx.globals.debug && e.stack ? e.stack : e.message) : String(e);
    log.write(`schedctl mcp: ${def.name} failed unexpectedly: ${sanitizeText(why)}\n`);
  }
  const out: string[] = [];
  const err: string[] = [];
  const io: IO = { ...call.ctx.io, stdout: textSink(out), stderr: textSink(err) };
  reportError(e, { ...call.ctx, io, globals: { ...call.ctx.globals, json: true, quiet: false, debug: false } }, true);
  const doc = JSON.parse(out.join('')) as Record<string, unknown>;
  const notes = call.notes.length ? ['', 'Notes:', ...call.notes.map((n) => `- ${n}`)] : [];
  return {
    isError: true,
    content: [{ type: 'text', text: safeText([err.join('').trimEnd(), ...notes]) }],
    structuredContent: doc,
  };
}

/**
 * The CLI's flag names in a message, as this tool's argument names ("invalid --start" ->
 * "invalid start"). `flags` maps argument -> flag; a longer flag is replaced first, and a flag
 * only as a whole word (--tz never inside --lead-tz).
 */
export function renameFlags(text: string, flags: Record<string, string>): string {
  const byLength = Object.entries(flags).sort(([, a], [, b]) => b.length - a.length);
  let out = text;
  for (const [arg, flag] of byLength) {
    const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'g'), arg);
  }
  return out;
}
