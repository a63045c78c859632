/**
 * Glue between commander and a command's run module: resolve the global options into the
 * context right before the action, load the run module (src/commands/runners.ts) and hand
 * it the positional arguments and its own options. Kept tiny: every definition imports it,
 * and --help must not pay for anything heavy.
 */
import { Command } from 'commander';
import type { Context, GlobalOptions } from '../context.js';
import { RUNNERS, type RunnerName } from './runners.js';

export function globalsOf(cmd: Command): GlobalOptions {
  const o = cmd.optsWithGlobals() as Partial<GlobalOptions>;
  return {
    ...(o.profile !== undefined ? { profile: o.profile } : {}),
    ...(o.baseUrl !== undefined ? { baseUrl: o.baseUrl } : {}),
    ...(o.timeout !== undefined ? { timeout: o.timeout } : {}),
    ...(o.jq !== undefined ? { jq: o.jq } : {}),
    debug: Boolean(o.debug),
    color: o.color !== false,
    input: o.input !== false,
    quiet: Boolean(o.quiet),
    // --jq filters the --json output: it implies --json, as gh's does.
    json: Boolean(o.json) || o.jq !== undefined,
  };
}

/**
 * The action of a command whose work is the run module `name`.
 * Commander passes (...args, options, command); variadic arguments arrive as arrays.
 */
export function runs(ctx: Context, name: RunnerName) {
  return async (...all: unknown[]): Promise<void> => {
    const cmd = all[all.length - 1] as Command;
    const options = all[all.length - 2];
    const args = all.slice(0, -2).flatMap((a) => (Array.isArray(a) ? a : a === undefined ? [] : [a])) as string[];
    ctx.globals = globalsOf(cmd);
    ctx.invocation = invocationOf(cmd);
    noteInvalidTz(ctx);
    if (ctx.globals.jq !== undefined) {
      // The MCP server's stdout is its protocol: no document of its own to filter.
      if (name === 'mcp' || name === 'completion-values')
        cmd.error(
          `error: --jq filters a command's --json output; schedctl ${ctx.invocation.path.join(' ')} prints none`,
        );
      await (await RUNNERS['jq-output']()).run(ctx, [ctx.globals.jq]);
    }
    const { run } = await RUNNERS[name]();
    await run(ctx, args, options as never, cmd);
  };
}

/**
 * A TZ that names no zone (`TZ='America/New York'`): Node then runs in UTC without a word, and
 * every time would be shown in a zone the user did not ask for. Said once, on stderr, before the
 * command (domain/time.ts systemZone answers UTC then).
 */
function noteInvalidTz(ctx: Context): void {
  const tz = ctx.env.TZ;
  // TZ=UTC needs no check: asking Intl loads ICU's zone data, 15-20 ms of CPU in every command.
  // (domain/time.ts systemZone makes the same test: the front may not import it, bundle-layout.test.ts.)
  if (tz === undefined || tz === '' || tz === 'UTC' || Intl.DateTimeFormat().resolvedOptions().timeZone !== undefined)
    return;
  // eslint-disable-next-line no-control-regex -- the variable's text is shown, never its control characters
  const shown = tz.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '?');
  ctx.io.stderr.write(`warning: TZ '${shown}' is not a time zone; using UTC\n`);
}

/** The command's path and the option names it and its parents declare (what a lock's holder record may say). */
function invocationOf(cmd: Command): NonNullable<Context['invocation']> {
  const path: string[] = [];
  const known: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) {
    if (c.parent) path.unshift(c.name());
    for (const o of c.options) for (const f of [o.long, o.short]) if (f) known.push(f);
  }
  return { path, argv: process.argv.slice(2), known };
}

/** Collects a repeatable option into an array (commander's documented pattern). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The aliases gh users type: every `ls` also answers to `list`, every `rm` to `remove`. */
const CONVENTIONAL_ALIASES: Readonly<Record<string, string>> = { ls: 'list', rm: 'remove' };

/** A new (sub)command, with its conventional alias when it has one. */
export function command(name: string): Command {
  const cmd = new Command(name);
  const alias = CONVENTIONAL_ALIASES[name];
  return alias ? cmd.alias(alias) : cmd;
}
