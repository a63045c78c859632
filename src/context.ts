/**
 * The Context every command receives: IO streams, environment, clock, global options,
 * and lazily built heavier services (config store, target, HTTP client, UI helpers).
 * Nothing heavy is imported here: `--help` must stay at Node's cold-start floor.
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
}

export interface Clock {
  now(): Date;
  sleep(ms: number): Promise<void>;
}

export interface GlobalOptions {
  profile?: string;
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
  /** Secrets in use (the API key once resolved), redacted from every message. */
  secrets: string[];
  configDir(): string;
  /** The local state store (profiles, journal, remembered outcomes, meetings): the one owner of those files. */
  state(): Promise<State>;
  target(): Promise<Target>;
  http(): Promise<HttpClient>;
  api(): Promise<Api>;
  ui(): Promise<Ui>;
  /** May the command prompt? Only with a TTY on stdin and stderr, and without --no-input / SCHEDCTL_NO_INPUT. */
  canPrompt(): boolean;
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
  };
}

const truthy = (v: string | undefined) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

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
    state: () =>
      (state ??= import('./state/index.js').then(({ openState }) =>
        openState(ctx.configDir(), { now: () => clock.now() }),
      )),
    target: () =>
      (target ??= (async () => {
        // Global flags are judged together, before a command says anything ("Booking on …"):
        // a bad --timeout must not first surface when the HTTP client is built.
        await timeoutMs(ctx);
        const s = await ctx.state();
        const { resolveTarget } = await import('./config/target.js');
        const { defaultProfile, profiles } = await s.profiles.snapshot();
        const t = resolveTarget({
          flagProfile: ctx.globals.profile,
          flagBaseUrl: ctx.globals.baseUrl,
          env,
          defaultProfile,
          profiles,
        });
        ctx.secrets.push(t.apiKey);
        // schedctl keeps its files 0600 but never changes a directory it did not create: say when others can read the key.
        if (t.keySource === 'profile' && s.profiles.keyFileExposed()) {
          io.stderr.write(`warning: ${s.profiles.path} (it holds API keys) is readable by other users: chmod 600 it\n`);
        }
        if (t.notes.length) {
          // Profile names and URLs come from a local file: text from outside, never terminal control.
          const { sanitizeText } = await import('./ui/sanitize.js');
          for (const note of t.notes) io.stderr.write(`${sanitizeText(`note: ${note}`)}\n`);
        }
        return t;
      })()),
    http: () =>
      (http ??= (async () => {
        // The target first: a missing key fails before the HTTP layer (ky, zod) is even loaded.
        const t = await ctx.target();
        const debug = ctx.globals.debug ? (line: string) => io.stderr.write(`debug: ${line}\n`) : undefined;
        const proxied = Boolean(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);
        const direct = proxied ? undefined : await import('./api/transport.js');
        // The handshake with the API overlaps loading ky, zod and Node's WHATWG classes.
        void direct?.preconnect(t.baseUrl, debug);
        const { createHttpClient } = await import('./api/client.js');
        if (proxied) (await import('./api/proxy.js')).installProxyFromEnv();
        const transport = direct?.nodeFetch;
        // One budget per key and base URL, shared by every schedctl process (0 turns it off).
        const rate = t.rate ?? 30;
        const budget =
          rate > 0
            ? (await import('./api/rate-budget.js')).createRateBudget({
                dir: ctx.configDir(),
                baseUrl: t.baseUrl,
                apiKey: t.apiKey,
                limit: rate,
              })
            : undefined;
        return createHttpClient({
          ...(budget ? { budget } : {}),
          baseUrl: t.baseUrl,
          apiKey: t.apiKey,
          timeoutMs: await timeoutMs(ctx),
          debug,
          // Colors and spinners load only when there is something to say.
          notify: (line, waitMs) => void ctx.ui().then((u) => u.waiting(line, waitMs)),
          clock,
          ...(transport ? { fetch: transport } : {}),
        });
      })()),
    api: () =>
      (api ??= Promise.all([import('./api/endpoints.js'), ctx.http()]).then(([{ createApi }, h]) => createApi(h))),
    ui: () => (ui ??= import('./ui/ui.js').then(({ createUi }) => createUi(io, env, ctx.globals))),
    canPrompt: () => io.isStdinTTY && io.isStderrTTY && ctx.globals.input && !truthy(env.SCHEDCTL_NO_INPUT),
  };
  return ctx;
}

export const DEFAULT_TIMEOUT_SECONDS = 30;

async function timeoutMs(ctx: Context): Promise<number> {
  const { UsageError } = await import('./errors.js');
  const raw = ctx.globals.timeout ?? ctx.env.SCHEDCTL_TIMEOUT;
  if (raw === undefined || raw === '') return DEFAULT_TIMEOUT_SECONDS * 1000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    const source = ctx.globals.timeout !== undefined ? '--timeout' : 'SCHEDCTL_TIMEOUT';
    throw new UsageError(`invalid ${source} "${raw}": expected a number of seconds between 0 and 3600`);
  }
  return Math.round(seconds * 1000);
}
