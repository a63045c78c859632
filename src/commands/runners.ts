/**
 * The one boundary between the front and the back of the bundle.
 *
 * The front (dist/cli.cjs) holds commander and the command definitions in src/commands/:
 * all that `--help` needs. Each command's work lives in its run module under src/run/,
 * which the front reaches only through the `import()` calls below; inside src/run/ (and
 * everything it uses), imports are ordinary static ones. A definition that imports a run
 * module (or errors, api, domain, ui) statically would pull it into the front as a second
 * copy: test/perf/bundle-layout.test.ts fails naming this rule.
 */
import type { Command } from 'commander';
import type { Context } from '../context.js';

/** What every run module exports: the positional arguments, commander's options, the command. */
export type RunFn = (ctx: Context, args: string[], options: never, cmd: Command) => Promise<void>;

export const RUNNERS = {
  api: () => import('../run/api.js'),
  book: () => import('../run/book.js'),
  completion: () => import('../run/completion.js'),
  'completion-values': () => import('../run/completion-values.js'),
  'events/ls': () => import('../run/events/ls.js'),
  'events/show': () => import('../run/events/show.js'),
  'meetings/ls': () => import('../run/meetings/ls.js'),
  'meetings/show': () => import('../run/meetings/show.js'),
  help: () => import('../run/help.js'),
  mcp: () => import('../run/mcp.js'),
  'profile/add': () => import('../run/profile/add.js'),
  'profile/ls': () => import('../run/profile/ls.js'),
  'profile/rm': () => import('../run/profile/rm.js'),
  'profile/show': () => import('../run/profile/show.js'),
  'profile/use': () => import('../run/profile/use.js'),
  reschedule: () => import('../run/reschedule.js'),
  route: () => import('../run/route.js'),
  sandbox: () => import('../run/sandbox.js'),
  slots: () => import('../run/slots.js'),
  smoke: () => import('../run/smoke.js'),
  'trigger/fire': () => import('../run/trigger/fire.js'),
  'triggers/ls': () => import('../run/triggers/ls.js'),
  'triggers/show': () => import('../run/triggers/show.js'),
} satisfies Record<string, () => Promise<{ run: RunFn }>>;

export type RunnerName = keyof typeof RUNNERS;
