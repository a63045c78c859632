/**
 * The help topics (`schedctl help <topic>`), in the order `schedctl help` lists them. Each is a
 * data file beside this one: scripts/gen-docs.mjs renders the same files into the manual's
 * tables, so the CLI and the manual say one thing. Edit the JSON, then run `npm run docs`.
 */
import environment from './environment.json' with { type: 'json' };
import exitCodes from './exit-codes.json' with { type: 'json' };
import formatting from './formatting.json' with { type: 'json' };
import type { HelpTopic } from './types.js';

// test/e2e/help.test.ts checks that every row fits its topic's columns.
export const TOPICS: readonly HelpTopic[] = [environment, exitCodes, formatting];
