/** Turns any thrown error into the documented output and exit code. */
import { redact, redactKeyLike } from './config/mask.js';
import type { Context } from './context.js';
import type { Target } from './config/target.js';
import { ApiError, EXIT, isCliError, type ErrorDocument } from './errors.js';
import { keyRefused } from './hints.js';
import { withClockSkew } from './api/server-clock.js';
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

export function reportError(error: unknown, ctx: Context, json: boolean): number {
  const secrets = [ctx.env.SCHEDCTL_API_KEY ?? '', ...ctx.secrets];
  // The keys in use, and anything key-shaped: a server may echo back an argument that was
  // a different key pasted by mistake (`schedctl events show sk_live_…`).
  const clean = (s: string) => redactKeyLike(redact(s, secrets));
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
  if (doc.error.details) doc.error.details = doc.error.details.map(clean);
  if (doc.error.hint) doc.error.hint = clean(doc.error.hint);

  if (json) {
    // The data as the server sent it (JSON-escaped); the human lines below are sanitized.
    // A refusal judged by the server's clock says so when this machine's clock is off (clockSkew).
    ctx.io.stdout.write(`${jsonText(withClockSkew(ctx, doc))}\n`);
  }
  if (!silent && (!json || !ctx.globals.quiet)) {
    // Messages, details and hints quote the server (and local files): data, never terminal control.
    const e = doc.error;
    const code = sanitizeText(e.code);
    const lines = [
      `error: ${sanitizeText(e.message)}${e.status !== undefined ? ` (${code}, HTTP ${e.status})` : e.code !== 'USAGE' && e.code !== 'UNEXPECTED' ? ` (${code})` : ''}`,
    ];
    for (const d of e.details ?? []) lines.push(`  - ${sanitizeText(d)}`);
    if (e.hint) lines.push(`hint: ${sanitizeText(e.hint)}`);
    ctx.io.stderr.write(`${lines.join('\n')}\n`);
  }
  return exitCode;
}

/** @inquirer/prompts throws ExitPromptError on Ctrl-C. */
function isPromptCancel(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError');
}
