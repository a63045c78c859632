/**
 * One request budget per API key, shared by every schedctl process on the machine, so that
 * parallel runs (scripts, `--file` bulk runs, a second terminal) never meet a 429: the API
 * allows 30 requests per rolling minute per key (spec "Limits").
 *
 * This module keeps the rule; a BudgetStore keeps the state, `{ sent: [epoch ms of draws within
 * the window], blockedUntil?: epoch ms, at most a minute ahead (MAX_BLOCK_MS) }`, under an id =
 * the first 32 hex digits of sha256(baseUrl + "\n" + apiKey): the key itself is never written.
 * Commands use the ledger's table `schedctl_rate_budgets`: this machine's SQLite ledger
 * (state/sqlite/rate-budget.ts, the default) or the team database (state/postgres/rate-budget.ts),
 * chosen in services.ts. Without a store (the rule's own unit tests) the budget is a file,
 * `<dir>/rate/<id>.json`, read and rewritten under a lock (quick-lock.ts: an atomic mkdir of
 * `<file>.lock`; a lock left by a killed process is taken over once stale): the store schedctl
 * used before the ledger kept budgets, whose old files are left alone and never read.
 *
 * The state is a cache of recent timestamps, not a record: a corrupted one is simply reset
 * (at worst one window's requests are forgotten and the server's 429 + Retry-After, which the
 * client still honors, covers the gap). For the same reason a store that cannot be used never
 * fails a command: the budget then counts this process's requests only.
 *
 * Cheap to import and to use: node built-ins only.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CliError, EXIT } from '../errors.js';
import { withQuickLock } from './quick-lock.js';

export interface BudgetState {
  sent: number[];
  blockedUntil?: number;
}

export interface RateBudgetOptions {
  /** The config directory; the budget lives in its `rate/` subdirectory. */
  dir: string;
  baseUrl: string;
  apiKey: string;
  limit?: number;
  windowMs?: number;
  /**
   * Added to the window: the server counts arrival times, and a request drawn a full window
   * after another may still arrive less than a window after it when the earlier one was slower
   * on the wire. Default 1 s.
   */
  marginMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Lock timing (tests): a lock that stood still this long (on this clock, not by its mtime) is taken over. */
  lockStaleMs?: number;
  /**
   * Where the budget is kept, when not in the config directory: the team state's database
   * (state/postgres/rate-budget.ts), so that every machine on the key draws from one budget.
   */
  store?: BudgetStore;
}

/**
 * One locked read-modify-write of the budget; `change` gets the current instant of the store's
 * clock (a shared store uses one clock for every machine). Never fails: a store that cannot be
 * used counts this process's requests only.
 */
export interface BudgetStore {
  readonly where: string;
  /** How to clear the budget at once, for the hint of RateBudgetWaitError (default: delete `where`). */
  readonly clear?: string;
  /**
   * `draw`: `change` is the draw rule (DrawRule) with these numbers, so a store may apply it where
   * the state is (the team database does it in one statement: one round trip, no lock held
   * across the network) and run `change` on the state it found, for the same outcome.
   */
  update<T>(
    change: (state: BudgetState, t: number) => T,
    debug: ((line: string) => void) | undefined,
    draw?: DrawRule,
  ): Promise<T>;
}

/**
 * The draw, as a store may apply it itself: drop the draws older than `spanMs` and a block that
 * has passed (cap one more than MAX_BLOCK_MS ahead), then, unless blocked or `limit` draws are
 * left, add one at the store's instant.
 */
export interface DrawRule {
  limit: number;
  spanMs: number;
  /**
   * Draws wanted at once (default 1): when there is room for one, up to this many are taken,
   * the first at the store's instant, the others `aheadMs` after it (spares: see drawAhead).
   */
  count?: number;
  aheadMs?: number;
}

/**
 * How long the spare draws of a batch (RateBudget.drawAhead) stay usable, and how far after the
 * batch's instant they are stamped: a spare is never counted as leaving the window before the
 * request it stands for does (the 1 s margin covers the answer's way back from the store).
 */
export const AHEAD_MS = 5000;

export interface DrawOptions {
  /** Give up (RateBudgetWaitError) rather than wait longer than this in total. */
  maxWaitMs?: number;
  /** Called before each wait, with its length. */
  onWait?(ms: number): void;
  debug?(line: string): void;
}

export interface RateBudget {
  readonly file: string;
  /** Requests per window. */
  readonly limit: number;
  /** Waits until the key's budget has room, then takes one request from it. Resolves to the instant drawn. */
  draw(opts?: DrawOptions): Promise<number>;
  /**
   * The command knows it will send `n` requests one after another: the next draw takes up to
   * `n` at once (one round trip to a shared store instead of `n`), as many as there is room
   * for; the next draws within AHEAD_MS use the spares without asking the store. A spare
   * left unused stays counted (an estimate on the safe side); a 429 drops them.
   */
  drawAhead(n: number): void;
  /**
   * drawAhead(n), and the draw now (waiting for room here): every request of the batch, the
   * first too, then goes out on a spare (within AHEAD_MS). For requests sent under a lock, so
   * the lock is not held while the budget fills up (a bulk row: its lead's).
   */
  reserve(n: number, opts?: DrawOptions): Promise<void>;
  /**
   * The command ends: draws taken ahead and never sent are given back to the budget (they would
   * otherwise hold its room for a minute: other machines on the key wait for requests never made).
   */
  giveBack(opts?: Pick<DrawOptions, 'debug'>): Promise<void>;
  /** A 429 said to wait `seconds`: every process on this key waits at least that long. */
  recordRetryAfter(seconds: number, opts?: Pick<DrawOptions, 'debug'>): Promise<void>;
  /**
   * Waits, without drawing, until the budget has room for `n` requests at once (at most its
   * limit): a run that knows what it will send (smoke) waits once, up front. `onWait` hears of
   * the wait first, with how many requests are left now. Resolves to the time waited.
   */
  waitForRoom(
    n: number,
    opts?: Omit<DrawOptions, 'onWait'> & { onWait?(ms: number, left: number): void },
  ): Promise<number>;
}

/**
 * The longest a 429's Retry-After blocks the budget: the API's window is one minute, so a
 * server asking for more (or a file written before this bound) cannot lock a key out longer.
 */
export const MAX_BLOCK_MS = 60_000;

export class RateBudgetWaitError extends CliError {
  readonly waitMs: number;
  constructor(waitMs: number, limit: number, windowMs: number, file: string, clear = `delete ${file}`) {
    const per = windowMs === 60_000 ? 'minute' : `${windowMs / 1000} s`;
    super(
      'RATE_LIMITED',
      `the rate budget for this key is spent for ${Math.ceil(waitMs / 1000)} s more (${limit} requests per ${per}, shared by every schedctl process); try again then`,
      EXIT.rateLimited,
      {
        hint: `it clears by itself within a minute; to clear it now (no other schedctl using this key), ${clear}`,
      },
    );
    this.waitMs = waitMs;
  }
}

/** The budget file's id: never the key itself. */
export function budgetId(baseUrl: string, apiKey: string): string {
  return createHash('sha256').update(`${baseUrl}\n${apiKey}`).digest('hex').slice(0, 32);
}

export function budgetFile(dir: string, baseUrl: string, apiKey: string): string {
  return join(dir, 'rate', `${budgetId(baseUrl, apiKey)}.json`);
}

/** How long before `t` the requests a budget still counts were drawn (the ledger's budgetInUse, local and team). */
export function msAgoInUse(
  state: BudgetState,
  t: number,
  options: Pick<RateBudgetOptions, 'windowMs' | 'marginMs'> = {},
): number[] {
  const span = (options.windowMs ?? 60_000) + (options.marginMs ?? 1000);
  const blocked = (state.blockedUntil ?? 0) - t;
  // A spare of a batch is stamped ahead (AHEAD_MS): counted as drawn now.
  const ago = state.sent.map((s) => Math.max(0, t - s)).filter((a) => a < span);
  // A 429's wait blocks the whole budget: as if it were full until then.
  return blocked > 0 ? [...ago, ...Array.from({ length: 1000 }, () => span - blocked)] : ago;
}

export function createRateBudget(options: RateBudgetOptions): RateBudget {
  const limit = options.limit ?? 30;
  const windowMs = options.windowMs ?? 60_000;
  const span = windowMs + (options.marginMs ?? 1000);
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const file = options.store?.where ?? budgetFile(options.dir, options.baseUrl, options.apiKey);
  // A lock is held for microseconds, so only a dead or badly stalled holder makes it stale;
  // 5 s rather than the 2 s floor, so a process stalled between taking the lock and using it
  // is not overtaken (an overdraw), at the cost of a 5 s wait after a crash inside the lock.
  const store = options.store ?? fileStore(file, options.lockStaleMs ?? 5000, now);

  /** Requests the next draw takes at once (drawAhead), and the spares of the last batch. */
  let ahead = 1;
  /** `first`: the batch's own draw (stamped `at`, not after it: reserve) is still among those left, the next used. */
  let spares: { left: number; at: number; until: number; first?: boolean } | undefined;
  /** Spares that lapsed unused (their instants in the store's window): given back at the end. */
  const lapsed: number[] = [];
  const lapse = () => {
    const s = spares;
    if (s && s.left > 0)
      lapsed.push(...Array.from({ length: s.left }, (_, i) => s.at + (i === 0 && s.first ? 0 : AHEAD_MS)));
    spares = undefined;
  };

  async function draw(opts: DrawOptions = {}): Promise<number> {
    if (spares && spares.left > 0 && now() < spares.until) {
      spares.left -= 1;
      spares.first = false;
      opts.debug?.(`rate budget: a request drawn ahead with the last draw (${spares.left} left)`);
      return spares.at;
    }
    lapse();
    const count = ahead;
    ahead = 1;
    let waited = 0;
    for (;;) {
      const outcome = await store.update(
        (
          state,
          t,
        ): { drawn: number; used: number; spare: number } | { drawn?: undefined; waitMs: number; used: number } => {
          prune(state, t);
          const blockedMs = (state.blockedUntil ?? 0) - t;
          const full = state.sent.length >= limit;
          if (blockedMs <= 0 && !full) {
            // The same as the store's statement (DrawRule): one at t, the spares AHEAD_MS after it.
            const spare = Math.min(count, limit - state.sent.length) - 1;
            state.sent.push(t, ...Array.from({ length: spare }, () => t + AHEAD_MS));
            return { drawn: t, used: state.sent.length, spare };
          }
          // Room comes when enough of the oldest draws have left the window.
          const freeAt = full ? (state.sent[state.sent.length - limit] ?? t) + span : t;
          return { waitMs: Math.max(blockedMs, freeAt - t, 1), used: state.sent.length };
        },
        opts.debug,
        { limit, spanMs: span, count, aheadMs: AHEAD_MS },
      );
      if (outcome.drawn !== undefined) {
        opts.debug?.(
          `rate budget: request ${outcome.used} of ${limit} in the last ${windowMs / 1000} s (${file})${outcome.spare > 0 ? `, ${outcome.spare} more drawn ahead` : ''}`,
        );
        if (outcome.spare > 0) spares = { left: outcome.spare, at: outcome.drawn, until: now() + AHEAD_MS };
        return outcome.drawn;
      }
      const { waitMs, used } = outcome;
      if (opts.maxWaitMs !== undefined && waited + waitMs > opts.maxWaitMs)
        throw new RateBudgetWaitError(waitMs, limit, windowMs, file, store.clear);
      opts.debug?.(
        `rate budget: ${used}/${limit} requests used in the last ${windowMs / 1000} s; waiting ${waitMs} ms`,
      );
      opts.onWait?.(waitMs);
      await sleep(waitMs);
      waited += waitMs;
    }
  }

  async function recordRetryAfter(seconds: number, opts: Pick<DrawOptions, 'debug'> = {}): Promise<void> {
    if (!Number.isFinite(seconds) || seconds <= 0) return;
    // Blocked: what was drawn ahead may not be sent before the block ends.
    spares = undefined;
    await store.update((state, t) => {
      prune(state, t);
      state.blockedUntil = Math.max(state.blockedUntil ?? 0, t + Math.min(seconds * 1000, MAX_BLOCK_MS));
    }, opts.debug);
  }

  async function waitForRoom(
    n: number,
    opts: Omit<DrawOptions, 'onWait'> & { onWait?(ms: number, left: number): void } = {},
  ): Promise<number> {
    const want = Math.min(Math.max(n, 1), limit);
    let waited = 0;
    for (;;) {
      const { waitMs, left } = await store.update((state, t) => {
        prune(state, t);
        const blockedMs = (state.blockedUntil ?? 0) - t;
        const left = blockedMs > 0 ? 0 : Math.max(0, limit - state.sent.length);
        // The oldest draws that must leave the window before `want` fit.
        const leaving = state.sent.length - (limit - want);
        const freeAt = leaving > 0 ? (state.sent[leaving - 1] ?? t) + span : t;
        return { waitMs: Math.max(blockedMs, freeAt - t, 0), left };
      }, opts.debug);
      if (waitMs <= 0) return waited;
      if (opts.maxWaitMs !== undefined && waited + waitMs > opts.maxWaitMs)
        throw new RateBudgetWaitError(waitMs, limit, windowMs, file, store.clear);
      opts.onWait?.(waitMs, left);
      await sleep(waitMs);
      waited += waitMs;
    }
  }

  function prune(state: BudgetState, t: number): void {
    state.sent = state.sent.filter((s) => s > t - span).sort((a, b) => a - b);
    if (state.blockedUntil !== undefined && state.blockedUntil <= t) delete state.blockedUntil;
    // A block past the bound (a file written before it, or by hand) is cut back to it.
    if (state.blockedUntil !== undefined && state.blockedUntil > t + MAX_BLOCK_MS)
      state.blockedUntil = t + MAX_BLOCK_MS;
  }

  const drawAhead = (n: number) => {
    ahead = Math.max(1, Math.min(Math.floor(n) || 1, limit));
  };

  async function reserve(n: number, opts: DrawOptions = {}): Promise<void> {
    // Spares of an earlier batch are not this one's: its draw goes to the store.
    lapse();
    drawAhead(n);
    const at = await draw(opts);
    spares = { left: (spares?.left ?? 0) + 1, at, until: spares?.until ?? now() + AHEAD_MS, first: true };
  }

  async function giveBack(opts: Pick<DrawOptions, 'debug'> = {}): Promise<void> {
    lapse();
    const back = lapsed.splice(0);
    if (back.length === 0) return;
    await store.update((state) => {
      for (const at of back) {
        const i = state.sent.indexOf(at);
        if (i !== -1) state.sent.splice(i, 1);
      }
    }, opts.debug);
    opts.debug?.(`rate budget: ${back.length} request(s) drawn ahead and not sent given back`);
  }
  return { file, draw, drawAhead, reserve, giveBack, recordRetryAfter, waitForRoom, limit };
}

/**
 * Read-modify-write of the budget under the lock. When the file cannot be used (a read-only or
 * missing-permission directory, a lock that cannot be made), it switches for good to a state
 * in memory: this process's own requests still count, and nothing fails.
 */
function fileStore(file: string, staleMs: number, now: () => number): BudgetStore {
  return sharedOrMemory(file, now, (change) =>
    withFileLock(file, staleMs, () => {
      const state = readState(file);
      const result = change(state, now());
      writeState(file, state);
      return { result, state };
    }),
  );
}

/** How long a budget that lost its shared place counts alone before it asks that place again. */
export const REJOIN_MS = 5000;

/**
 * A budget store over a shared place (a file, the team database): `shared` runs one locked
 * read-modify-write there. When it fails the store counts in memory, seeded with what it last
 * saw (this process's own requests still count, nothing fails), says so once (`warn`), and asks
 * the shared place again after REJOIN_MS: once it answers, the draws made alone meanwhile are
 * added to its window, and every machine on the key counts them again.
 */
export function sharedOrMemory(
  where: string,
  now: () => number,
  shared: <T>(
    change: (state: BudgetState, t: number) => T,
    draw?: DrawRule,
  ) => Promise<{ result: T; state: BudgetState }>,
  warn?: (line: string) => void,
): BudgetStore {
  let memory: BudgetState = { sent: [] };
  /** Counting alone: when to ask the shared place again, and the draws made alone it has not seen. */
  let alone: { retryAt: number; unseen: number[] } | undefined;
  let warned = false;
  async function rejoin(unseen: number[]): Promise<void> {
    // The draws made alone, at their age on the shared place's clock.
    const local = now();
    await shared((state, t) => {
      state.sent.push(...unseen.map((at) => t - (local - at)));
    });
    unseen.length = 0;
  }
  async function update<T>(
    change: (state: BudgetState, t: number) => T,
    debug: ((line: string) => void) | undefined,
    draw?: DrawRule,
  ): Promise<T> {
    if (!alone || now() >= alone.retryAt) {
      try {
        if (alone) await rejoin(alone.unseen);
        const { result, state } = await shared(change, draw);
        if (alone) debug?.(`rate budget: ${where} answers again; the draws made alone are counted there`);
        alone = undefined;
        memory = { ...state, sent: [...state.sent] };
        return result;
      } catch (error) {
        alone = { retryAt: now() + REJOIN_MS, unseen: alone?.unseen ?? [] };
        const why = `${where} cannot be used (${(error as Error).message})`;
        debug?.(`rate budget: ${why}; counting this process's requests only`);
        if (warn && !warned) {
          warned = true;
          warn(
            `warning: the shared rate budget at ${why}: this run counts its own requests only, and rejoins the shared count once it answers`,
          );
        }
      }
    }
    const before = [...memory.sent];
    const result = change(memory, now());
    // What this change drew alone (the draws it added), for the shared place to count on rejoining.
    const added = [...memory.sent];
    for (const at of before) {
      const i = added.indexOf(at);
      if (i !== -1) added.splice(i, 1);
    }
    alone?.unseen.push(...added);
    return result;
  }
  return { where, update };
}

function readState(file: string): BudgetState {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { sent: [] };
    throw error;
  }
  try {
    return budgetStateOf(JSON.parse(text));
  } catch {
    return { sent: [] }; // corrupted: a cache, reset (see the top of this file)
  }
}

/** A stored budget, or an empty one when the value is not one (a cache: never a reason to fail). */
export function budgetStateOf(value: unknown): BudgetState {
  const v = value as { sent?: unknown; blockedUntil?: unknown } | null;
  const sent = Array.isArray(v?.sent) && v.sent.every((t) => Number.isFinite(t)) ? (v.sent as number[]) : undefined;
  if (!sent) return { sent: [] };
  return Number.isFinite(v?.blockedUntil) ? { sent, blockedUntil: v?.blockedUntil as number } : { sent };
}

function writeState(file: string, state: BudgetState): void {
  // Write then rename: a process killed mid-write leaves the old file, not half of the new one.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 });
  renameSync(tmp, file);
}

const madeDirs = new Set<string>();

/** Longest wait for another process's lock; held for microseconds, so only a stuck or dead holder reaches it. */
const LOCK_WAIT_MS = 10_000;

/**
 * `critical` is synchronous on purpose: no timer runs inside it, so the lock cannot be
 * found stale and taken over halfway through a read-modify-write.
 */
async function withFileLock<T>(file: string, staleMs: number, critical: () => T): Promise<T> {
  if (!madeDirs.has(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    madeDirs.add(file);
  }
  return withQuickLock(file, { staleMs, waitMs: Math.max(LOCK_WAIT_MS, staleMs * 2) }, critical);
}
