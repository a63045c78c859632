/**
 * The server's clock as one command hears it: every answer's Date header (the HTTP client
 * passes each one here) gives the server's time; the latest per API is what the ledger judges
 * "upcoming" by (domain/server-clock.ts). A local clock more than a minute off is said once per
 * command (stderr, and `clockSkew` in a `--json` document). The latest time is written down per
 * API (config/server-time.ts) for the next command's first decision, before it has heard from
 * the server.
 */
import { lastServerTime, recordServerTime } from '../config/server-time.js';
import {
  type ClockReading,
  describeSkew,
  ledgerNow,
  skewNotice,
  skewWorthReporting,
  type SkewNotice,
} from '../domain/server-clock.js';
import type { Context } from '../context-types.js';
import { normaliseBaseUrl } from '../state/identity.js';
import { sanitizeText } from '../ui/sanitize.js';

/** A time on record is written again once the server's clock has moved this far past it. */
const REWRITE_AFTER_MS = 60_000;

export interface ServerClockOptions {
  /** The config directory: where the last server time per API is kept. */
  dir: () => string;
  /** This machine's clock. */
  localNow: () => Date;
  /** Says the one line about a skewed clock (stderr). */
  report: (line: string) => void;
  /** A failed write of the time on record (it is a hint for later, never worth failing a command). */
  debug?: ((line: string) => void) | undefined;
}

export class ServerClock {
  /** Per API: the server's clock minus ours, from its latest answer. */
  private skews = new Map<string, number>();
  /** Per API: the server time this process last wrote down. */
  private written = new Map<string, number>();
  private writes = new Set<Promise<void>>();
  /** The first skew worth telling, as `--json` carries it. */
  notice: SkewNotice | undefined;

  constructor(private readonly o: ServerClockOptions) {}

  /** An answer of the API at `baseUrl` said the server's time is `serverMs`. */
  observe(baseUrl: string, serverMs: number): void {
    const localMs = this.o.localNow().getTime();
    const api = normaliseBaseUrl(baseUrl);
    const skewMs = serverMs - localMs;
    this.skews.set(api, skewMs);
    if (this.notice === undefined && skewWorthReporting(skewMs)) {
      this.notice = skewNotice(serverMs, localMs);
      this.o.report(describeSkew(this.notice, baseUrl));
    }
    // What is on record counts as written: most commands then write nothing (a lock, a write and
    // two fsyncs a command were 6% of a one-request command's time).
    if (!this.written.has(api)) {
      const onRecord = lastServerTime(this.o.dir(), baseUrl);
      if (onRecord !== undefined) this.written.set(api, onRecord);
    }
    const last = this.written.get(api);
    if (last !== undefined && serverMs < last + REWRITE_AFTER_MS) return;
    this.written.set(api, serverMs);
    const write = recordServerTime(this.o.dir(), baseUrl, serverMs)
      .catch((error: unknown) => this.o.debug?.(`the server's time was not recorded: ${String(error)}`))
      .finally(() => this.writes.delete(write));
    this.writes.add(write);
  }

  /** The reading of the clocks for the API at `baseUrl`: this one, the skew heard in this command, the time on record. */
  reading(baseUrl: string): ClockReading {
    const skewMs = this.skews.get(normaliseBaseUrl(baseUrl));
    const local = this.o.localNow();
    if (skewMs !== undefined) return { local, skewMs };
    return { local, lastServerMs: lastServerTime(this.o.dir(), baseUrl) };
  }

  /** Whether this command has heard the server's time from the API at `baseUrl`. */
  heard(baseUrl: string): boolean {
    return this.skews.has(normaliseBaseUrl(baseUrl));
  }

  /**
   * The server's time now, as heard in this command (this clock before it is heard): what a
   * move's refusals are stamped and lapse by. Not the ledger's now (the earlier of both clocks,
   * which guards a booked lead): a refusal that lapses early costs one more refused try, never a
   * second meeting, so the server's word alone is enough here.
   */
  serverNow(baseUrl: string): Date {
    const skewMs = this.skews.get(normaliseBaseUrl(baseUrl)) ?? 0;
    return new Date(this.o.localNow().getTime() + skewMs);
  }

  /** The now the ledger judges meetings of the API at `baseUrl` by. */
  ledgerNow(baseUrl: string): Date {
    return ledgerNow(this.reading(baseUrl));
  }

  /** Waits for the times being written down (at the command's end). */
  async settled(): Promise<void> {
    await Promise.all([...this.writes]);
  }
}

/**
 * Keyed by the context's `http` service, not the context: an MCP tool call's context is a copy
 * of the server's with its own IO (mcp/call.ts) and shares its HTTP client, so it shares the
 * server's time that client heard too.
 */
const serverClocks = new WeakMap<Context['http'], ServerClock>();

/**
 * The server's clock as this command hears it (api/server-clock.ts): fed by every answer's Date
 * header, asked by the ledger (run/lead-guard.ts). A skewed local clock is said once, on stderr.
 */
export function serverClockOf(ctx: Context): ServerClock {
  let clock = serverClocks.get(ctx.http);
  if (!clock) {
    clock = new ServerClock({
      dir: () => ctx.configDir(),
      localNow: () => ctx.clock.now(),
      report: (line) => ctx.io.stderr.write(`${sanitizeText(`warning: ${line}`)}\n`),
      debug: ctx.globals.debug ? (line) => ctx.io.stderr.write(`debug: ${sanitizeText(line)}\n`) : undefined,
    });
    serverClocks.set(ctx.http, clock);
  }
  return clock;
}

/** At the command's end: the server times being written down are written. */
export async function settleServerClock(ctx: Context): Promise<void> {
  await serverClocks.get(ctx.http)?.settled();
}

/** `value` with `clockSkew` when there is a skew to tell and `value` is a plain object document. */
export function withClockSkew(ctx: Context, value: unknown): unknown {
  const notice = serverClocks.get(ctx.http)?.notice;
  if (!notice || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return { ...value, clockSkew: notice };
}
