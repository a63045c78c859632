/**
 * `schedctl mcp`: the Model Context Protocol server on stdio (src/mcp/server.ts, which alone
 * loads the SDK), or with --print-config the snippet that registers it with an MCP client.
 */
import { realpathSync } from 'node:fs';
import { checkBaseUrl, resolveProfileName } from '../config/target.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { mcpConfig, registrationHelp } from '../mcp/config.js';

interface McpOptions {
  printConfig?: boolean;
}

export async function run(ctx: Context, _args: string[], opts: McpOptions): Promise<void> {
  if (opts.printConfig) return printConfig(ctx);
  if (ctx.io.isStdinTTY) {
    ctx.io.stderr.write(
      'schedctl mcp speaks the Model Context Protocol on stdin/stdout: an MCP client starts it. To register it: schedctl mcp --print-config\n',
    );
  }
  await resolveOrRefuse(ctx, ': schedctl mcp cannot start');
  const { serveMcp } = await import('../mcp/server.js');
  await serveMcp(ctx);
}

/**
 * A profile named with --profile (or SCHEDCTL_PROFILE) that does not exist stops the server
 * before it speaks: the client shows the server failing to start, instead of a server whose
 * every tool call fails. The profile that names it, and how to add it, in one line.
 */
async function resolveOrRefuse(ctx: Context, why = '') {
  const { profiles, defaultProfile } = await (await ctx.state()).profiles.snapshot();
  try {
    return resolveProfileName({ flagProfile: ctx.globals.profile, env: ctx.env, defaultProfile, profiles });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const name = ctx.globals.profile ?? ctx.env.SCHEDCTL_PROFILE ?? '<name>';
    const known = Object.keys(profiles);
    throw new UsageError(`${error.message}${why}`, {
      hint: `add it with: schedctl profile add ${name} --key-stdin${known.length ? ` (known profiles: ${known.join(', ')})` : ''}`,
    });
  }
}

async function printConfig(ctx: Context): Promise<void> {
  // An unknown --profile (or SCHEDCTL_PROFILE) fails here, not later inside the client.
  const resolved = await resolveOrRefuse(ctx);
  // The profile is pinned in the args: the server a client starts uses it, whatever the
  // client's environment says (an explicit --profile wins over SCHEDCTL_API_KEY/SCHEDCTL_BASE_URL).
  const explicit = ctx.globals.profile ?? (ctx.env.SCHEDCTL_PROFILE || undefined) ?? resolved;
  // A URL with user:password@ would be written into the client's configuration: refused here too.
  if (ctx.globals.baseUrl) checkBaseUrl(ctx.globals.baseUrl, '--base-url');
  const bin = process.argv[1];
  if (!bin) throw new UsageError('cannot tell where schedctl is installed (no script path in argv)');
  const doc = mcpConfig({
    node: process.execPath,
    bin: realpathSync(bin),
    profile: explicit,
    baseUrl: ctx.globals.baseUrl,
    timeout: ctx.globals.timeout,
    configDir: ctx.env.SCHEDCTL_CONFIG_DIR || undefined,
  });
  const ui = await ctx.ui();
  ui.json(doc);
  if (ctx.globals.json) return;
  for (const line of registrationHelp(doc.mcpServers.schedctl)) ui.info(line);
  if (!resolved)
    ui.warn(
      'no profile to use yet: add one first (schedctl profile add <name> --key-stdin), or the server will answer every tool call with NO_API_KEY',
    );
  const inherited = ['SCHEDCTL_API_KEY', 'SCHEDCTL_BASE_URL'].filter((k) => ctx.env[k]);
  if (inherited.length && explicit)
    ui.info(
      `${inherited.join(' and ')} ${inherited.length === 1 ? 'is' : 'are'} set in this shell, and a client started from it (Claude Code does this) passes ${inherited.length === 1 ? 'it' : 'them'} on to the server; the --profile ${explicit} in these args wins over ${inherited.length === 1 ? 'it' : 'them'}, so the server uses that profile's key and base URL`,
    );
  else if (inherited.length)
    ui.warn(
      `${inherited.join(' and ')} ${inherited.length === 1 ? 'is' : 'are'} set in this shell and no profile is pinned: a client started from this shell (Claude Code does this) passes ${inherited.length === 1 ? 'it' : 'them'} on, and the server would use ${inherited.length === 1 ? 'it' : 'them'}. Add a profile and pin it: schedctl mcp --print-config --profile <name>`,
    );
}
