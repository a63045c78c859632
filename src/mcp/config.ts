/**
 * `schedctl mcp --print-config`: the snippet that registers the server with an MCP client
 * (Claude Desktop, Claude Code, Cursor and others read `{"mcpServers": {name: {command, args}}}`).
 * A command and its arguments only: never a key (the server reads it from the profile).
 * Pure: no SDK, so printing it loads nothing heavy.
 */
export interface McpConfigInput {
  /** The Node binary running this schedctl. */
  node: string;
  /** bin/schedctl.js of this install. */
  bin: string;
  profile?: string | undefined;
  baseUrl?: string | undefined;
  timeout?: string | undefined;
  /** SCHEDCTL_CONFIG_DIR, when set: the client must find the same profiles. */
  configDir?: string | undefined;
}

export interface McpServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

export function mcpConfig(o: McpConfigInput): { mcpServers: { schedctl: McpServerEntry } } {
  const args = [o.bin, 'mcp'];
  if (o.profile) args.push('--profile', o.profile);
  if (o.baseUrl) args.push('--base-url', o.baseUrl);
  if (o.timeout) args.push('--timeout', o.timeout);
  const entry: McpServerEntry = { command: o.node, args };
  if (o.configDir) entry.env = { SCHEDCTL_CONFIG_DIR: o.configDir };
  return { mcpServers: { schedctl: entry } };
}

/** POSIX shell word, for the `claude mcp add` line. */
const word = (s: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** Where the snippet goes, for people (stderr). */
export function registrationHelp(entry: McpServerEntry): string[] {
  const env = Object.entries(entry.env ?? {})
    .map(([k, v]) => `--env ${word(`${k}=${v}`)} `)
    .join('');
  return [
    'Register it with your MCP client (the key is not in it: the server reads it from the profile):',
    '  Claude Desktop  merge it into claude_desktop_config.json (Settings > Developer > Edit Config), then restart the app',
    '  Cursor          merge it into ~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
    '  Claude Code     .mcp.json in a project, or run:',
    `                  claude mcp add schedctl ${env}-- ${[entry.command, ...entry.args].map(word).join(' ')}`,
  ];
}
