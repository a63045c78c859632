/**
 * The heavier services of a Context (state store, target, HTTP client, API, UI), built in
 * the back on first use. The front's context (src/context.ts) reaches them through one
 * `import()` of this module: one entry for the ES module loader to resolve, read and link
 * instead of one per service (each also a re-exporting facade file), a measurable part of a
 * one-request command's start. The HTTP client (ky) still loads on its own, after the
 * connection to the API has been started: the handshake overlaps loading it.
 */
import type { HttpClient } from './api/client.js';
import { createApi, type Api } from './api/endpoints.js';
import { budgetId, createRateBudget, type BudgetStore } from './api/rate-budget.js';
import { nodeFetch, preconnect, proxyFor, proxySecrets } from './api/transport.js';
import { redact } from './config/mask.js';
import { resolveProfileName, resolveTarget, type Target } from './config/target.js';
import type { Context } from './context-types.js';
import { UsageError } from './errors.js';
import { setHolderCommand } from './state/holder-command.js';
import {
  DEFAULT_LOCK_TIMING,
  openState,
  rateCache,
  sqliteBudgetStore,
  type Profile,
  type State,
} from './state/index.js';
import { pgBudgetStore, type PostgresBackend } from './state/postgres/backend.js';
import { checkStateUrl } from './config/state-url.js';
import { sanitizeText } from './ui/sanitize.js';
import { createUi, type Ui } from './ui/ui.js';
import { serverClockOf, withClockSkew } from './api/server-clock.js';

export { settleServerClock } from './api/server-clock.js';

export { createUi };

/**
 * The command's UI: `json()` adds `clockSkew` (domain/server-clock.ts) to an object document when
 * this machine's clock was found more than a minute off the server's. Additive: a reader that
 * does not know the field is unaffected; lists and JSON Lines are printed as they are.
 */
export function uiOf(ctx: Context): Ui {
  const ui = createUi(ctx.io, ctx.env, ctx.globals);
  const json = ui.json;
  ui.json = (value) => json(withClockSkew(ctx, value));
  return ui;
}

export const DEFAULT_TIMEOUT_SECONDS = 30;
/** Requests per minute of the shared budget when neither SCHEDCTL_RATE nor the profile says. */
const DEFAULT_RATE = 30;

export function openStateOf(ctx: Context): State {
  // What this run's lock holder records say it is (never the command's values).
  if (ctx.invocation) setHolderCommand(ctx.invocation.path, ctx.invocation.argv, new Set(ctx.invocation.known));
  const state: State = openState(ctx.configDir(), {
    now: () => ctx.clock.now(),
    staleMs: testOnlyMs(ctx.env.SCHEDCTL_TEST_LOCK_STALE_MS),
    lockWaitMs: testOnlyMs(ctx.env.SCHEDCTL_TEST_LOCK_WAIT_MS),
    stateUrl: async () => stateUrlFrom(ctx, await state.profiles.snapshot()),
    // A note is silenced by --quiet, as every note is (ui.ts); a warning is not.
    warn: (line) => {
      if (!(ctx.globals.quiet && line.startsWith('note:'))) ctx.io.stderr.write(`${sanitizeText(line)}\n`);
    },
  });
  return state;
}

/**
 * The team state's URL, by the rule of the base URL (config/target.ts): --profile's >
 * SCHEDCTL_STATE_URL > the profile's (SCHEDCTL_PROFILE or the default) > none (this machine's
 * files). SCHEDCTL_STATE_URL=local forces this machine's files.
 */
export function stateUrlFrom(
  ctx: Pick<Context, 'env' | 'globals'>,
  snapshot: { defaultProfile?: string | undefined; profiles: Record<string, Profile> },
): string | undefined {
  const name = resolveProfileName({
    flagProfile: ctx.globals.profile,
    env: ctx.env,
    defaultProfile: snapshot.defaultProfile,
    profiles: snapshot.profiles,
  });
  const profile = name ? snapshot.profiles[name] : undefined;
  const env = ctx.env.SCHEDCTL_STATE_URL || undefined;
  const fromProfile = profile?.state ? ([profile.state, `profile "${name}"'s state`] as const) : undefined;
  const [url, source] =
    ctx.globals.profile !== undefined && fromProfile
      ? fromProfile
      : env !== undefined
        ? ([env, 'SCHEDCTL_STATE_URL'] as const)
        : (fromProfile ?? [undefined, '']);
  if (url === undefined || url === 'local') return undefined;
  return checkStateUrl(url, source);
}

/** The global --timeout / SCHEDCTL_TIMEOUT in milliseconds; a bad value is a usage error naming its source. */
export function timeoutMsOf(ctx: Context): number {
  const raw = ctx.globals.timeout ?? ctx.env.SCHEDCTL_TIMEOUT;
  if (raw === undefined || raw === '') return DEFAULT_TIMEOUT_SECONDS * 1000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    const source = ctx.globals.timeout !== undefined ? '--timeout' : 'SCHEDCTL_TIMEOUT';
    throw new UsageError(
      `invalid ${source} "${raw}": expected a number of seconds greater than 0 and at most 3600 (0 would give no time at all)`,
    );
  }
  return Math.round(seconds * 1000);
}

export async function targetOf(ctx: Context): Promise<Target> {
  // Global flags are judged together, before a command says anything ("Booking on …"):
  // a bad --timeout must not first surface when the HTTP client is built.
  timeoutMsOf(ctx);
  const s = await ctx.state();
  const { defaultProfile, profiles } = await s.profiles.snapshot();
  const t = resolveTarget({
    flagProfile: ctx.globals.profile,
    flagBaseUrl: ctx.globals.baseUrl,
    env: ctx.env,
    defaultProfile,
    profiles,
  });
  ctx.secrets.push(t.apiKey);
  // With a team state, loading the PostgreSQL client, connecting and checking the schema start
  // here, so the wait for the database overlaps loading the HTTP layer (every command with a
  // target draws on the rate budget or the ledger). A failure is said by the first real use.
  s.backend().catch(() => {});
  // schedctl keeps its files 0600 but never changes a directory it did not create: say when others can read the key.
  if (t.keySource === 'profile' && s.profiles.keyFileExposed()) {
    ctx.io.stderr.write(`warning: ${s.profiles.path} (it holds API keys) is readable by other users: chmod 600 it\n`);
  }
  // Profile names and URLs come from a local file: text from outside, never terminal control.
  if (!ctx.globals.quiet) for (const note of t.notes) ctx.io.stderr.write(`${sanitizeText(`note: ${note}`)}\n`);
  return t;
}

export async function httpOf(ctx: Context): Promise<HttpClient> {
  // The target first: a missing key fails before any request is prepared.
  const t = await ctx.target();
  return httpClientFor(ctx, t);
}

/**
 * An HTTP client for a key and base URL: the command's own (httpOf), or one `profile add`
 * checks a new key with, over schedctl's transport. When the API is reached directly, the
 * connection to it is started before ky loads (the handshake overlaps loading it); through a
 * proxy it is not: that connection would go around the proxy.
 */
async function httpClientFor(
  ctx: Context,
  to: { baseUrl: string; apiKey: string; rate?: number | undefined },
): Promise<HttpClient> {
  const { io } = ctx;
  // The same per-URL decision the transport makes (HTTPS_PROXY, NO_PROXY, …); a proxy URL it
  // cannot use is a usage error here, before any request.
  const proxy = proxyFor(to.baseUrl);
  // Its password is a secret like the key: redacted from every message and debug line.
  if (proxy) ctx.secrets.push(...proxySecrets(proxy));
  const debug = ctx.globals.debug
    ? (line: string) => io.stderr.write(`debug: ${sanitizeText(redact(line, ctx.secrets))}\n`)
    : undefined;
  if (proxy) debug?.(`through the proxy ${proxy.host}: no connection opened ahead`);
  else {
    void preconnect(to.baseUrl, debug);
    // Node 24 issues a connect on the next tick and may then load the HTTP layer without
    // turning the event loop: one turn first, or the connection opened ahead only comes up
    // after the first request (no overlap, and a booking's own connection would be the server's first).
    await new Promise((resolve) => setImmediate(resolve));
  }
  const { createHttpClient } = await import('./api/client.js');
  // One budget per key and base URL, shared by every schedctl process (0 turns it off).
  const rate = to.rate ?? DEFAULT_RATE;
  const budget =
    rate > 0
      ? createRateBudget({
          store: await sharedBudgetStore(ctx, to),
          dir: ctx.configDir(),
          baseUrl: to.baseUrl,
          apiKey: to.apiKey,
          limit: rate,
          windowMs: testOnlyMs(ctx.env.SCHEDCTL_TEST_RATE_WINDOW_MS),
        })
      : undefined;
  return createHttpClient({
    ...(budget ? { budget } : {}),
    baseUrl: to.baseUrl,
    apiKey: to.apiKey,
    timeoutMs: timeoutMsOf(ctx),
    debug,
    // Colors and spinners load only when there is something to say.
    notify: (line, waitMs) => void ctx.ui().then((u) => u.waiting(line, waitMs)),
    clock: ctx.clock,
    onServerDate: (serverMs) => serverClockOf(ctx).observe(to.baseUrl, serverMs),
    fetch: nodeFetch,
    testRetryBaseMs: testOnlyMs(ctx.env.SCHEDCTL_TEST_RETRY_BASE_MS),
  });
}

/**
 * The key's budget, a row of `schedctl_rate_budgets`: with a team state, the row every machine
 * draws from (on the database's clock); without, the row of this machine's rate cache (its clock).
 */
async function sharedBudgetStore(ctx: Context, to: { baseUrl: string; apiKey: string }): Promise<BudgetStore> {
  const state = await ctx.state();
  const backend = await state.backend();
  const id = budgetId(to.baseUrl, to.apiKey);
  if (backend.kind !== 'postgres') return sqliteBudgetStore(rateCacheOf(ctx, state), id, Date.now);
  return pgBudgetStore(backend as PostgresBackend, id, Date.now, (line) =>
    ctx.io.stderr.write(`${sanitizeText(line)}\n`),
  );
}

/**
 * Test-only knobs (docs/development.md, "How the suite is kept fast"): a shorter rate window,
 * lock stale age or retry backoff, so the test suite need not wait out the real ones. Not user settings: not in
 * docs/environment.md or `help environment`. A missing or unusable value leaves the real default.
 */
function testOnlyMs(raw: string | undefined): number | undefined {
  const ms = Number(raw);
  return raw && Number.isInteger(ms) && ms > 0 ? ms : undefined;
}

export async function apiOf(ctx: Context): Promise<Api> {
  return createApi(await ctx.http());
}

/** The API with another key and base URL than the command's (`profile add` checks a key before saving it). */
export async function apiWith(
  ctx: Context,
  to: { baseUrl: string; apiKey: string; rate?: number | undefined },
): Promise<Api> {
  ctx.secrets.push(to.apiKey);
  return createApi(await httpClientFor(ctx, to));
}

/** This machine's rate cache (rate-budgets.db in the config directory), waiting for a lock as the state does. */
export function rateCacheOf(ctx: Context, state: Pick<State, 'dir'>): ReturnType<typeof rateCache> {
  return rateCache(state.dir, testOnlyMs(ctx.env.SCHEDCTL_TEST_LOCK_WAIT_MS) ?? DEFAULT_LOCK_TIMING.waitMs);
}
