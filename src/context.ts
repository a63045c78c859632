/**
 * The Context every command receives: IO streams, environment, clock, global options,
 * and lazily built heavier services (state store, target, HTTP client, UI helpers), which
 * src/services.ts builds in the back. Nothing heavy is imported here: `--help` must stay at
 * Node's cold-start floor.
 */
import { configDir } from './config/paths.js';
import type { Api } from './api/endpoints.js';
import type { HttpClient } from './api/client.js';
import type { State } from './state/index.js';
import type { Target } from './config/target.js';
import type { Ui } from './ui/ui.js';

export interface IO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  isStdoutTTY: boolean;
  isStderrTTY: boolean;
  isStdinTTY: boolean;
  /** The terminal's width when stdout is one (what a layout must fit in); undefined otherwise. */
  stdoutColumns?: number | undefined;
}

export interface Clock {
  now(): Date;
  sleep(ms: number): Promise<void>;
}

export interface GlobalOptions {
  profile?: string;
  /** `--jq <expression>`: the --json output filtered (it implies --json; run/jq-output.ts). */
  jq?: string;
  baseUrl?: string;
  timeout?: string;
  debug: boolean;
  color: boolean;
  input: boolean;
  quiet: boolean;
  json: boolean;
}

export interface Context {
  io: IO;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  /** Set by the CLI right before an action runs (commander's optsWithGlobals). */
  globals: GlobalOptions;
  /** Ends what stands in front of stdout once the command is done (--jq): false when it failed. */
  endOutput?: () => Promise<boolean>;
  /**
   * Set with `globals`: the command's names from the top (`['state', 'unlock']`), its arguments and
   * the option names it declares; what a lock's holder record may say of it (state/holder-command.ts).
   */
  invocation?: { path: string[]; argv: string[]; known: string[] } | undefined;
  /** Secrets in use (the API key once resolved), redacted from every message. */
  secrets: string[];
  configDir(): string;
  /** The global --timeout / SCHEDCTL_TIMEOUT in milliseconds (a bad value: UsageError naming it). */
  timeoutMs(): Promise<number>;
  /** The local state store (profiles, journal, remembered outcomes, meetings): the one owner of those files. */
  state(): Promise<State>;
  target(): Promise<Target>;
  http(): Promise<HttpClient>;
  api(): Promise<Api>;
  /** The API with another key and base URL than the command's own (`profile add` checks a key with it). */
  apiWith(to: { baseUrl: string; apiKey: string; rate?: number | undefined }): Promise<Api>;
  ui(): Promise<Ui>;
  /** May the command prompt? Only with a TTY on stdin and stderr, and without --no-input / SCHEDCTL_NO_INPUT. */
  canPrompt(): boolean;
  /** At the command's end: ends the team state's connections, if any were opened (politely, briefly). */
  close?(): Promise<void>;
}

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
      if (state) await (await state.catch(() => undefined))?.close();
    },
  };
  return ctx;
}
