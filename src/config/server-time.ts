/**
 * The last server time on record per API (`server-time.json` in the config directory): what
 * the ledger's clock rule falls back on before a command has heard from the server
 * (domain/server-clock.ts). A small file of its own rather than a field of config.json: it is
 * written after requests, often, by commands that never change a profile, and config.json
 * holds the keys (a write of it should be a deliberate act). Neither is it a ledger document:
 * it is a clock reading, not a record of a lead.
 *
 * Keyed by the API (the normalised base URL, state/identity.ts), not by workspace: every key of
 * an API hears the same clock. Written through the state directory's lock and atomic write
 * (state/lock.ts, state/disk.ts); a time only ever moves forward in it. A missing or damaged
 * file reads as no time on record (then this machine's clock alone decides, as before any
 * record), and the next write replaces it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { normaliseBaseUrl } from '../state/identity.js';
import { ensureDir, writeAtomic } from '../state/disk.js';
import { DEFAULT_LOCK_TIMING, type LockTiming, withLock } from '../state/lock.js';

export const SERVER_TIME_FILE = 'server-time.json';

interface ServerTimeFile {
  /** API (normalised base URL) → the latest server time seen, ISO 8601. */
  apis: Record<string, string>;
}

export const serverTimePath = (dir: string): string => join(dir, SERVER_TIME_FILE);

function readFile(path: string): ServerTimeFile {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    const apis = (parsed as Partial<ServerTimeFile> | null)?.apis;
    if (typeof apis !== 'object' || apis === null || Array.isArray(apis)) return { apis: {} };
    const clean: Record<string, string> = {};
    for (const [api, iso] of Object.entries(apis))
      if (typeof iso === 'string' && Number.isFinite(Date.parse(iso))) clean[api] = iso;
    return { apis: clean };
  } catch {
    return { apis: {} };
  }
}

/** The latest server time on record for the API at `baseUrl`, in ms since the epoch; none: undefined. */
export function lastServerTime(dir: string, baseUrl: string): number | undefined {
  const iso = readFile(serverTimePath(dir)).apis[normaliseBaseUrl(baseUrl)];
  return iso === undefined ? undefined : Date.parse(iso);
}

/** Records a server time for the API at `baseUrl`, unless a later one is on record already. */
export async function recordServerTime(
  dir: string,
  baseUrl: string,
  serverMs: number,
  timing: LockTiming = DEFAULT_LOCK_TIMING,
): Promise<void> {
  ensureDir(dir);
  const path = serverTimePath(dir);
  const api = normaliseBaseUrl(baseUrl);
  await withLock(path, timing, () => {
    const file = readFile(path);
    const known = file.apis[api];
    if (known !== undefined && Date.parse(known) >= serverMs) return;
    file.apis[api] = new Date(serverMs).toISOString();
    writeAtomic(path, `${JSON.stringify(file, null, 2)}\n`);
  });
}
