/** Turns any thrown error into the documented output and exit code. */
import { redact, redactKeyLike, redactUrls } from './config/mask.js';
import type { Context } from './context.js';
import type { Target } from './config/target.js';
import { ApiError, EXIT, isCliError, type ErrorDocument } from './errors.js';
import { keyRefused, withCommandLine } from './hints.js';
import { withClockSkew } from './api/server-clock.js';
import { interruptNote } from './interrupt-note.js';
import { humanTimes } from './ui/human-times.js';
import { jsonText, sanitizeText } from './ui/sanitize.js';

/**
 * An error with what only the command's context knows added: a refused key names the profile
 * it came from and how to check or replace it (src/hints.ts), instead of the server's developer
 * text as the headline (kept as a detail).
 */
export async function explainError(error: unknown, ctx: Context, argv: string[]): Promise<unknown> {
  if (!(error instanceof ApiError) || (error.code !== 'INVALID_API_KEY' && error.status !== 401)) return error;
  // profile add/verify say which key they checked themselves.
  if (argv.includes('profile') && (argv.includes('add') || argv.includes('verify'))) return error;
  let target: Target;
  try {
    target = await ctx.target();
  } catch {
    return error;
  }
  const { message, hint } = keyRefused(target);
  return new ApiError({
    ...error.fields(),
    message,
    details: [...(error.details ?? []), `the server said: ${error.message}`],
    hint,
  });
}

/** `zone`: the zone the human lines show times in (the command's --tz); without it, times stay as written. */
export function reportError(error: unknown, ctx: Context, json: boolean, zone?: string): number {
  const secrets = [ctx.env.SCHEDCTL_API_KEY ?? '', ...ctx.secrets];
  // The keys in use, and anything key-shaped: a server may echo back an argument that was
  // a different key pasted by mistake (`schedctl events show sk_live_…`).
  // And any URL's userinfo, in any spelling (config/show-url.ts): the last net under every message.
  const clean = (s: string) => redactUrls(redactKeyLike(redact(s, secrets)));
  let doc: ErrorDocument;
  let exitCode: number;
  // Ctrl-C at a prompt: the person knows what they did; exit 130 without an error line.
  let silent = false;
  if (isCliError(error)) {
    doc = error.toDocument();
    exitCode = error.exitCode;
  } else if (isPromptCancel(error)) {
    doc = { error: { code: 'CANCELLED', message: 'cancelled' } };
    exitCode = EXIT.cancelled;
    silent = true;
    // Stopped at a prompt after something was done (the route wizard's fire): say what, and how to resume.
    const note = interruptNote();
    if (note) ctx.io.stderr.write(`${note.split('\n').map(sanitizeText).join('\n')}\n`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    doc = {
      error: {
        code: 'UNEXPECTED',
        message: `unexpected failure: ${message}`,
        hint: 'this is a bug in schedctl; rerun with --debug for the stack trace and report it',
      },
    };
    exitCode = EXIT.error;
    if (ctx.globals.debug && error instanceof Error && error.stack)
      ctx.io.stderr.write(`${clean(error.stack).split('\n').map(sanitizeText).join('\n')}\n`);
  }
  doc.error.message = clean(doc.error.message);
  if (doc.error.details)
    doc.error.details = doc.error.details.map((d) =>
      typeof d === 'string'
        ? clean(d)
        : Object.fromEntries(Object.entries(d).map(([k, v]) => [k, v === null ? null : clean(v)])),
    );
  if (doc.error.hint) doc.error.hint = clean(withCommandLine(doc.error.hint, ctx.globals));

  if (json) {
    // The data as the server sent it (JSON-escaped); the human lines below are sanitized.
    // A refusal judged by the server's clock says so when this machine's clock is off (clockSkew).
    // One line: a bulk run's stdout is JSON Lines, its final error a line like the rest, and one
    // rule for every command is simpler for a script than two.
    ctx.io.stdout.write(`${jsonText(withClockSkew(ctx, doc), 0)}\n`);
  }
  // Messages, details and hints quote the server (and local files): data, never terminal control.
  const e = doc.error;
  const code = sanitizeText(e.code);
  // Times for people: in the user's zone, as the tables show them (--json keeps ISO 8601).
  const human = (s: string) => sanitizeText(zone ? humanTimes(s, zone) : s);
  const headline = `error: ${human(e.message)}${e.status !== undefined ? ` (${code}, HTTP ${e.status})` : e.code !== 'USAGE' && e.code !== 'UNEXPECTED' ? ` (${code})` : ''}`;
  if (!silent && json && !ctx.globals.quiet) {
    // The document is the report; stderr gets its headline only (for a person watching the
    // terminal), never the details and hint a second time (docs/json-output.md).
    ctx.io.stderr.write(`${headline}\n`);
  } else if (!silent && !json) {
    const lines = [headline];
    // A record in --json (a meeting with its id) is its error's own line for people.
    const details = isCliError(error) && error.details ? error.details.map(clean) : (e.details ?? []);
    for (const d of details) lines.push(`  - ${human(typeof d === 'string' ? d : Object.values(d).join('  '))}`);
    if (e.hint) lines.push(`hint: ${human(e.hint)}`);
    ctx.io.stderr.write(`${lines.join('\n')}\n`);
  }
  return exitCode;
}

/** @inquirer/prompts throws ExitPromptError on Ctrl-C. */
function isPromptCancel(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError');
}
