/**
 * Glue between commander and a command's `run`: resolve global options into the context
 * right before the action, and hand `run` its own parsed options. Kept tiny: every
 * command file imports it, and --help must not pay for anything heavy.
 */
import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../context.js';

export function globalsOf(cmd: Command): GlobalOptions {
  const o = cmd.optsWithGlobals() as Partial<GlobalOptions>;
  return {
    ...(o.profile !== undefined ? { profile: o.profile } : {}),
    ...(o.baseUrl !== undefined ? { baseUrl: o.baseUrl } : {}),
    ...(o.timeout !== undefined ? { timeout: o.timeout } : {}),
    debug: Boolean(o.debug),
    color: o.color !== false,
    input: o.input !== false,
    quiet: Boolean(o.quiet),
    json: Boolean(o.json),
  };
}

/**
 * Wraps an action: `fn(args, options)` where args are the positional arguments.
 * Commander passes (...args, options, command).
 */
export function action<O>(ctx: Context, fn: (args: string[], options: O, cmd: Command) => Promise<void>) {
  return async (...all: unknown[]): Promise<void> => {
    const cmd = all[all.length - 1] as Command;
    const options = all[all.length - 2] as O;
    const args = all.slice(0, -2).flatMap((a) => (Array.isArray(a) ? a : a === undefined ? [] : [a])) as string[];
    ctx.globals = globalsOf(cmd);
    await fn(args, options, cmd);
  };
}

/** Collects a repeatable option into an array (commander's documented pattern). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
