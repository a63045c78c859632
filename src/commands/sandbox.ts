import { Command } from 'commander';
import type { Context } from '../context.js';
import { action } from './action.js';

interface SandboxOptions {
  host: string;
  port: string;
  seed: string;
  holdSeconds: string;
  rateLimit: string;
  state?: string;
}

export function sandboxCommand(ctx: Context): Command {
  return new Command('sandbox')
    .description('run a local, stateful emulator of the whole API: try schedctl without an account')
    .option('--host <host>', 'address to bind (loopback unless you mean it)', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '4010')
    .option('--seed <n>', 'seed of the generated workspace', '1')
    .option('--hold-seconds <n>', 'how long a reservation holds', '600')
    .option('--rate-limit <n>', 'requests per minute per key (0 turns the limit off)', '30')
    .option('--state <file>', 'keep the workspace in this file across restarts')
    .addHelpText('after', '\nWith --profile NAME it also saves a profile NAME pointing at the sandbox with its full-access key.')
    .action(
      action<SandboxOptions>(ctx, async (_args, opts) => {
        const { UsageError } = await import('../errors.js');
        const int = (flag: string, raw: string, min: number, max: number) => {
          const n = Number(raw);
          if (!/^\d+$/.test(raw) || n < min || n > max) throw new UsageError(`invalid ${flag} "${raw}": expected a whole number from ${min} to ${max}`);
          return n;
        };
        const options = {
          host: opts.host,
          port: int('--port', opts.port, 0, 65535),
          seed: int('--seed', opts.seed, 0, 2 ** 31 - 1),
          holdSeconds: int('--hold-seconds', opts.holdSeconds, 1, 86_400),
          rateLimit: int('--rate-limit', opts.rateLimit, 0, 1_000_000),
          json: ctx.globals.json,
          ...(opts.state ? { state: opts.state } : {}),
        };
        if (opts.state) {
          // Checked up front: otherwise the sandbox starts and then answers every change with a 500
          // because it cannot write its state file.
          const [{ statSync }, { dirname, resolve }] = await Promise.all([import('node:fs'), import('node:path')]);
          const folder = dirname(resolve(opts.state));
          if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
            throw new UsageError(`invalid --state "${opts.state}": the folder ${folder} does not exist`, { hint: `create it first, e.g. mkdir -p ${folder}` });
          }
        }
        const { runSandboxCommand } = await import('../sandbox/main.js');
        const running = await runSandboxCommand(options, ctx.io);
        if (ctx.globals.profile) {
          const store = await ctx.store();
          store.set(ctx.globals.profile, { baseUrl: running.baseUrl, apiKey: running.keys.full }, false);
          ctx.io.stderr.write(`saved profile "${ctx.globals.profile}" for this sandbox (use it with --profile ${ctx.globals.profile})\n`);
        }
        await running.closed;
      }),
    );
}
