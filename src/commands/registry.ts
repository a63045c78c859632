/**
 * The resource commands, in the order `schedctl --help` lists them. Each module only
 * defines its command (flags, help) at load; its action imports what it needs.
 */
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { apiCommand } from './api.js';

export function extraCommands(ctx: Context): Command[] {
  return [apiCommand(ctx)];
}
