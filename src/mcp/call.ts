/**
 * Running one tool call safely: a context of its own that never prompts and never writes the
 * protocol's stdout, and every outcome, errors included, as a tool result. The data goes out
 * unchanged in structuredContent; in the text content server text is quoted (./quote.ts) and
 * control characters are shown escaped, so a hostile server string can neither pose as an
 * instruction to the model nor drive the terminal of whoever reads a client's log.
 */
import { Readable, Writable } from 'node:stream';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Api } from '../api/endpoints.js';
import { throwIfCancelled } from '../api/send-hook.js';
import type { Context, IO } from '../context.js';
import { formatInZone, resolveZone, systemZone } from '../domain/time.js';
import { humanTimes } from '../ui/human-times.js';
import { CliError, OutcomeUnknownError, UsageError } from '../errors.js';
import { reportError } from '../report.js';
import { sanitizeText } from '../ui/sanitize.js';
import { createUi, type Ui } from '../ui/ui.js';
import { COMMON_FLAGS, toolHint, translateCommands } from './hints.js';
import { clip } from './input.js';
import { q } from './quote.js';
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

/** Reports one step of a call's progress (notifications/progress), when the client asked for it. */
export type ProgressSink = (step: { progress: number; total?: number; message: string }) => void;

const STEP: Record<string, string> = {
  listTriggers: 'listed the triggers',
  fireTrigger: 'fired the trigger',
  listEvents: 'listed events',
  getEvent: 'read the event',
  slots: 'fetched free times',
  book: 'sent the booking',
  reschedule: 'sent the move',
};

/**
 * The API as a tool call uses it: no request starts once the client has cancelled the call
 * (the HTTP layer checks again right before the bytes leave: send-hook.ts), and, when the
 * client asked for progress, each request counted as one step once it is answered (or fails).
 */
function guarded(api: Api, call: ToolCall, report: ProgressSink | undefined): Api {
  let done = 0;
  const counted =
    <A extends unknown[], R>(name: string, fn: (...a: A) => Promise<R>) =>
    (...a: A): Promise<R> => {
      throwIfCancelled();
      const answered = fn(...a);
      if (!report) return answered;
      return answered.finally(() => {
        done += 1;
        const total = call.progress.total;
        report({
          progress: done,
          ...(total !== undefined ? { total: Math.max(total, done) } : {}),
          message: STEP[name] ?? name,
        });
      });
    };
  return {
    ...api,
    listTriggers: counted('listTriggers', api.listTriggers),
    fireTrigger: counted('fireTrigger', api.fireTrigger),
    listEvents: counted('listEvents', api.listEvents),
    getEvent: counted('getEvent', api.getEvent),
    slots: counted('slots', api.slots),
    book: counted('book', api.book),
    reschedule: counted('reschedule', api.reschedule),
  };
}

/**
 * The call's context: the server's state store, target and HTTP layer (one rate budget), but
 * its own IO. Human notices are dropped (quiet), warnings become the call's notes, and anything
 * written to its stdout goes to stderr: stdout belongs to the protocol.
 */
export function newCall(base: Context, args: Record<string, unknown> = {}, report?: ProgressSink): ToolCall {
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
  let api: Promise<Api> | undefined;
  const call: ToolCall = { ctx: base, notes, lostHint: undefined, progress: { total: undefined }, args };
  call.ctx = {
    ...base,
    io,
    globals,
    ui: () => (ui ??= Promise.resolve(createUi(io, { ...base.env, NO_COLOR: '1' }, globals))),
    api: () => (api ??= base.api().then((a) => guarded(a, call, report))),
    canPrompt: () => false,
  };
  return call;
}

/** The CLI's words in a line, as this tool's: commands as tools, flags as arguments. */
const toolWords = (s: string, def: Pick<ToolDef, 'flags'>) =>
  renameFlags(translateCommands(s), { ...COMMON_FLAGS, ...(def.flags ?? {}) });

/** Warnings of the run, quoted: schedctl's words, but they may repeat server text. */
const notesText = (call: ToolCall, def: Pick<ToolDef, 'flags'>) =>
  call.notes.length ? ['', 'Notes:', ...call.notes.map((n) => `- ${q(toolWords(n, def))}`)] : [];

/** A finished call: the document as structuredContent, the lines (and notes) as text. */
export function replyResult(reply: ToolReply, call: ToolCall, def: Pick<ToolDef, 'flags'> = {}): CallToolResult {
  return {
    content: [{ type: 'text', text: boundedText(safeText([...reply.text, ...notesText(call, def)])) }],
    structuredContent: reply.doc,
  };
}

/**
 * The longest text content a result carries. The lists are paged (output.ts: PAGE), so only
 * server text out of the ordinary (a trigger list of very long descriptions) reaches it.
 */
export const TEXT_MAX = 100_000;

/** The text cut at a line break before TEXT_MAX, saying how much was left out and where the whole is. */
export function boundedText(text: string): string {
  if (text.length <= TEXT_MAX) return text;
  const cut = text.lastIndexOf('\n', TEXT_MAX);
  const at = cut > 0 ? cut : TEXT_MAX;
  return `${text.slice(0, at)}\n… ${text.length - at} more characters left out (structuredContent holds the whole result)`;
}

/** Server text is data: every control and bidi character shown escaped (the lines themselves kept). */
export function safeText(lines: string[]): string {
  // Only schedctl's own line breaks (\n) separate lines; any other (a bare \r, U+2028) is shown escaped.
  return lines.join('\n').split('\n').map(sanitizeText).join('\n');
}

/** The longest message, detail or hint an error result carries; and how many details. */
export const ERROR_TEXT_MAX = 600;
const ERROR_DETAILS_MAX = 20;

/** Where a failed call's document goes: clients validate structuredContent against the outputSchema. */
const ERROR_META = 'schedctl/error';

/**
 * A failed call: isError, no structuredContent (it would not match the tool's outputSchema),
 * the error document (`{code, message, details, status, hint}`, as `--json` reports it, secrets
 * redacted) in `_meta["schedctl/error"]`, and as text: the code, the message and details
 * quoted (they may repeat the API's words), the nearest free times of a SLOT_TAKEN, and a hint
 * that names tools and arguments.
 */
export function errorResult(
  error: unknown,
  call: ToolCall,
  def: Pick<ToolDef, 'flags' | 'name'>,
  log: NodeJS.WritableStream,
  zone?: string,
): CallToolResult {
  let e = error;
  if (e instanceof OutcomeUnknownError && call.booking && e.lostBy === 'error_answer')
    e = new OutcomeUnknownError(errorAnswerMessage(e), { hint: errorAnswerHint(call.booking), cause: e });
  else if (e instanceof OutcomeUnknownError && call.lostHint)
    e = new OutcomeUnknownError(e.message, { hint: call.lostHint, cause: e });
  const rename = (s: string) => renameFlags(s, { ...COMMON_FLAGS, ...(def.flags ?? {}) });
  if (e instanceof UsageError && def.flags) {
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
  const io: IO = { ...call.ctx.io, stdout: textSink(out), stderr: textSink([]) };
  reportError(e, { ...call.ctx, io, globals: { ...call.ctx.globals, json: true, quiet: true, debug: false } }, true);
  const doc = JSON.parse(out.join('')) as { error: Record<string, unknown> } & Record<string, unknown>;
  const err = doc.error as { code: string; message: string; details?: string[]; status?: number; hint?: string };
  // Bounded whatever the input or the server said: a value quoted in full stays in no error.
  err.message = clip(err.message, ERROR_TEXT_MAX);
  if (err.details)
    err.details = [
      ...err.details.slice(0, ERROR_DETAILS_MAX).map((d) => clip(d, ERROR_TEXT_MAX)),
      ...(err.details.length > ERROR_DETAILS_MAX ? [`and ${err.details.length - ERROR_DETAILS_MAX} more`] : []),
    ];
  const hint =
    e instanceof OutcomeUnknownError && (call.lostHint || call.booking)
      ? err.hint
      : (toolHint({ tool: def.name, code: err.code, args: call.args, cliHint: err.hint, message: err.message }) ??
        (err.hint === undefined ? undefined : toolWords(err.hint, def)));
  if (hint !== undefined) err.hint = clip(hint, ERROR_TEXT_MAX);
  // SLOT_TAKEN's nearest free times and reservation ride beside the error (book --json does the same).
  const extra = Object.fromEntries(Object.entries(doc).filter(([k]) => k !== 'error'));
  const nearest = Array.isArray(extra.nearestSlots) ? (extra.nearestSlots as string[]) : [];
  // Instants in the message and details are read in the tool's tz (else the system zone); the
  // structured error (_meta) keeps them as the API sent them, and so do the nearest times' values.
  const shownZone = zoneOrSystem(zone);
  const lines = [
    `Error ${err.code}${err.status !== undefined ? ` (HTTP ${err.status})` : ''}: ${q(humanTimes(err.message, shownZone))}`,
    ...(err.details ?? []).map((d) => `- ${q(humanTimes(d, shownZone))}`),
    ...(nearest.length
      ? [
          `Nearest free times (reservation_id ${String(extra.reservationId)} stays usable):`,
          ...nearest.map((s) => `- ${s} (${formatInZone(s, shownZone)})`),
        ]
      : []),
    ...(err.hint ? [`hint: ${err.hint}`] : []),
  ];
  return {
    isError: true,
    content: [{ type: 'text', text: safeText([...lines, ...notesText(call, def)]) }],
    _meta: { [ERROR_META]: { ...err, ...extra } },
  };
}

/** The tool's tz when it names a zone, else the system zone. */
function zoneOrSystem(zone: string | undefined): string {
  try {
    return resolveZone(zone, 'tz');
  } catch {
    return systemZone();
  }
}

/** A booking answered by an explicit error (5xx, an HTML error page): what is known, and no more. */
function errorAnswerMessage(e: OutcomeUnknownError): string {
  let first: unknown = e;
  while (first instanceof OutcomeUnknownError && first.cause instanceof OutcomeUnknownError) first = first.cause;
  const how = /failed with ([^;]+)/.exec((first as Error).message)?.[1] ?? 'an error';
  return `the booking's outcome is unknown: the API answered ${how}, an error answer that does not show whether the server booked before it failed`;
}

const errorAnswerHint = (tool: string) =>
  `do not book this lead another way. To learn the outcome, call ${tool} again with exactly the same arguments: the retry's answer settles it (already_booked if the first booked; otherwise it books now, once), and it cannot create a second meeting`;

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
