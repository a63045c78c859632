/**
 * The Context every command receives: IO streams, environment, clock, global options,
 * and lazily built heavier services (state store, target, HTTP client, UI helpers), which
 * src/services.ts builds in the back. Nothing heavy is imported here: `--help` must stay at
 * Node's cold-start floor.
 */
import { configDir } from './config/paths.js';
import type { Clock, IO } from './context-basics.js';
import type { Api } from './api/endpoints.js';
import type { HttpClient } from './api/client.js';
import type { Context } from './context-types.js';
import type { State } from './state/index.js';
import type { Target } from './config/target.js';
import type { Ui } from './ui/ui.js';

// The types are declared in context-types.ts and context-basics.ts, which lead nowhere back
// here: services.ts takes a Context and this file loads services.ts, so the Context cannot be
// declared here without an import cycle. Commands still name them from this file.
export type { Clock, GlobalOptions, IO } from './context-basics.js';
export type { Context } from './context-types.js';

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * The process's streams, each made on first use: Node builds process.stdin/stdout/stderr
 * lazily, and over a pipe each one loads the net module; `--help` needs only stdout.
 */
export function processIO(): IO {
  return {
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
    get stdin() {
      return process.stdin;
    },
    get isStdoutTTY() {
      return Boolean(process.stdout.isTTY);
    },
    get isStderrTTY() {
      return Boolean(process.stderr.isTTY);
    },
    get isStdinTTY() {
      return Boolean(process.stdin.isTTY);
    },
    get stdoutColumns() {
      // A pty nobody gave a size (`script`, some CI runners, `docker exec` without -t's size)
      // reports 0 columns: that is "unknown", not a terminal too narrow for anything.
      return (process.stdout.isTTY && process.stdout.columns) || undefined;
    },
  };
}

const truthy = (v: string | undefined) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

/** The back's builders of the services below: one module, loaded on the first service asked for. */
const services = () => import('./services.js');

export function createContext(opts: { io?: IO; env?: NodeJS.ProcessEnv; clock?: Clock } = {}): Context {
  const io = opts.io ?? processIO();
  const env = opts.env ?? process.env;
  const clock = opts.clock ?? systemClock;
  let state: Promise<State> | undefined;
  let target: Promise<Target> | undefined;
  let http: Promise<HttpClient> | undefined;
  let api: Promise<Api> | undefined;
  let ui: Promise<Ui> | undefined;

  const ctx: Context = {
    io,
    env,
    clock,
    globals: { debug: false, color: true, input: true, quiet: false, json: false },
    secrets: [],
    configDir: () => configDir(env),
    timeoutMs: () => services().then((s) => s.timeoutMsOf(ctx)),
    state: () => (state ??= services().then((s) => s.openStateOf(ctx))),
    target: () => (target ??= services().then((s) => s.targetOf(ctx))),
    http: () => (http ??= services().then((s) => s.httpOf(ctx))),
    api: () => (api ??= services().then((s) => s.apiOf(ctx))),
    apiWith: (to) => services().then((s) => s.apiWith(ctx, to)),
    ui: () => (ui ??= services().then((s) => s.uiOf(ctx))),
    canPrompt: () => io.isStdinTTY && io.isStderrTTY && ctx.globals.input && !truthy(env.SCHEDCTL_NO_INPUT),
    close: async () => {
      // The server's time heard by this command, written down for the next one (api/server-clock.ts).
      if (http) await services().then((s) => s.settleServerClock(ctx));
      // Draws taken ahead and never sent go back to the key's budget (other machines wait for them otherwise).
      if (http) await (await http.catch(() => undefined))?.giveBack?.();
      if (state) await (await state.catch(() => undefined))?.close();
    },
  };
  return ctx;
}
