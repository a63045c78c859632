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
  const { serveMcp } = await import('../mcp/server.js');
  await serveMcp(ctx);
}

async function printConfig(ctx: Context): Promise<void> {
  const { profiles, defaultProfile } = await (await ctx.state()).profiles.snapshot();
  // An unknown --profile (or SCHEDCTL_PROFILE) fails here, not later inside the client.
  const resolved = resolveProfileName({ flagProfile: ctx.globals.profile, env: ctx.env, defaultProfile, profiles });
  // A URL with user:password@ would be written into the client's configuration: refused here too.
  if (ctx.globals.baseUrl) checkBaseUrl(ctx.globals.baseUrl, '--base-url');
  const explicit = ctx.globals.profile ?? (ctx.env.SCHEDCTL_PROFILE || undefined);
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
  if (ctx.env.SCHEDCTL_API_KEY)
    ui.warn(
      "SCHEDCTL_API_KEY is set in this shell, but an MCP client does not pass it on: the server uses the profile's key",
    );
}
