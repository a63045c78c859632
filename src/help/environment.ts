/** `schedctl help environment`, and the README's "Environment variables" table (scripts/gen-docs.mjs). */
import type { HelpTopic } from './types.js';

export const environment: HelpTopic = {
  name: 'environment',
  summary: 'environment variables schedctl reads, and which flag wins over each',
  intro: ['schedctl reads these environment variables. A flag on the command line wins over its variable.'],
  columns: ['variable', 'meaning'],
  rows: [
    { term: '`SCHEDCTL_API_KEY`', text: "API key; wins over the profile's key" },
    { term: '`SCHEDCTL_BASE_URL`', text: 'API base URL; `--base-url` wins over it' },
    { term: '`SCHEDCTL_PROFILE`', text: 'profile to use; `--profile` wins over it' },
    {
      term: '`SCHEDCTL_CONFIG_DIR`',
      text: 'config directory (profiles, journal, remembered outcomes, meetings record, run logs, rate budget)',
    },
    {
      term: '`XDG_CONFIG_HOME`',
      text: 'without `SCHEDCTL_CONFIG_DIR`, the config directory is `$XDG_CONFIG_HOME/schedctl`, else `~/.config/schedctl`',
    },
    { term: '`SCHEDCTL_TIMEOUT`', text: 'per-request timeout in seconds (default 30); `--timeout` wins' },
    {
      term: '`SCHEDCTL_RATE`',
      text: "requests per minute of the rate budget shared by every schedctl process on a key (default: the profile's `rate`, else 30); `0` turns it off",
    },
    { term: '`SCHEDCTL_NO_INPUT`', text: '`1` = never prompt (like `--no-input`)' },
    { term: '`NO_COLOR` / `FORCE_COLOR`', text: 'disable / force colors' },
    {
      term: '`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`',
      text: "corporate proxies (honored through undici's proxy agent)",
    },
    {
      term: '`NODE_EXTRA_CA_CERTS`',
      text: 'extra trusted CA certificates (e.g. a TLS-inspecting proxy), read by Node at start',
    },
    { term: '`TZ`', text: 'the system time zone: the default of `--tz` (display zone and zone of local times)' },
  ],
  outro: [
    'The API key is never accepted as a command-line argument: use a profile (`schedctl profile add`) or `SCHEDCTL_API_KEY`.',
  ],
};
