import { statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { runSandboxCommand, type SandboxCommandOptions } from '../sandbox/main.js';

interface SandboxOptions {
  host: string;
  port: string;
  seed?: string | undefined;
  holdSeconds: string;
  rateLimit: string;
  state?: string;
}

export async function run(ctx: Context, _args: string[], opts: SandboxOptions): Promise<void> {
  const options = {
    ...parseOptions(opts, ctx.globals.json),
    command: invocation(process.argv[1]),
    ...(ctx.globals.profile ? { profile: ctx.globals.profile } : {}),
  };
  const running = await runSandboxCommand(options, ctx.io);
  if (ctx.globals.profile) {
    const { profiles } = await ctx.state();
    const name = ctx.globals.profile;
    await profiles.set(name, { baseUrl: running.baseUrl, apiKey: running.keys.full }, false);
    ctx.io.stderr.write(`${savedProfileNote(name, await profiles.defaultName())}\n`);
  }
  await running.closed;
}

/**
 * How a person runs schedctl from here: `schedctl` when installed (the bin sits in a
 * node_modules tree, and so on PATH), `node bin/schedctl.js` (relative to the current folder)
 * in a checkout, where a bare `schedctl` is not on PATH.
 */
export function invocation(bin: string | undefined, node = process.execPath): string {
  if (!bin || /[\\/]node_modules[\\/]/.test(bin) || !/[\\/]bin[\\/]schedctl\.js$/.test(bin)) return 'schedctl';
  const shown = (path: string) => {
    const rel = relative(process.cwd(), path) || path;
    return /^[\w./-]+$/.test(rel) ? rel : JSON.stringify(rel);
  };
  // The Node a checkout brought (node_modules/node) where the PATH's may be older: named as run.
  return `${/[\\/]node_modules[\\/]/.test(node) ? shown(node) : 'node'} ${shown(bin)}`;
}

function parseOptions(opts: SandboxOptions, json: boolean): SandboxCommandOptions {
  const int = (flag: string, raw: string, min: number, max: number) => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < min || n > max)
      throw new UsageError(`invalid ${flag} "${raw}": expected a whole number from ${min} to ${max}`);
    return n;
  };
  if (opts.state) {
    // Checked up front: otherwise the sandbox starts and then answers every change with a 500
    // because it cannot write its state file.
    const folder = dirname(resolve(opts.state));
    if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
      throw new UsageError(`invalid --state "${opts.state}": the folder ${folder} does not exist`, {
        hint: `create it first, e.g. mkdir -p ${folder}`,
      });
    }
  }
  return {
    host: opts.host,
    port: int('--port', opts.port, 0, 65535),
    seed: int('--seed', opts.seed ?? '1', 0, 2 ** 31 - 1),
    seeded: opts.seed !== undefined,
    holdSeconds: int('--hold-seconds', opts.holdSeconds, 1, 86_400),
    rateLimit: int('--rate-limit', opts.rateLimit, 0, 1_000_000),
    json,
    ...(opts.state ? { state: opts.state } : {}),
  };
}

/** Whether the saved profile is the one commands use without --profile, and how to make it so. */
export function savedProfileNote(name: string, defaultName: string | undefined): string {
  if (defaultName === name)
    return `saved profile "${name}" for this sandbox; it is the default profile, so other commands use it without --profile`;
  return (
    `saved profile "${name}" for this sandbox; the default profile is still "${defaultName ?? '(none)'}": ` +
    `pass --profile ${name}, or make it the default with: schedctl profile use ${name}`
  );
}
