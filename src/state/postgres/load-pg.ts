/**
 * Loads `pg` fast for a command with a team state: the build bundles it into dist/pg.cjs (CommonJS:
 * ~5 ms less than an ES module chunk), compiled here with a V8 code cache (~4 ms less again;
 * module.enableCompileCache() measured slower: its cache is made before a query's functions ran),
 * written after the first run that queried, 0600 in $XDG_CACHE_HOME (else ~/.cache)/schedctl/,
 * named by bundle hash, Node version and architecture. Never fails a command: from src/ (tests)
 * `pg` is imported as usual; a cache that cannot be read or written is done without.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { clientConfigWith } from './client-config.js';
import type { Client, ClientConfig } from 'pg';

type Pg = typeof import('pg');
/** The bundle's `pg`, with the connection string parser it carries (pg-connection-string's). */
type BundledPg = Pg & { parseConnectionString: (url: string) => Record<string, unknown> };

declare const __PG_BUNDLE_HASH__: string | undefined;
/** dist/pg.cjs's content hash, from the build that made it: the code cache's name (none outside a build). */
const BUNDLE_HASH = typeof __PG_BUNDLE_HASH__ === 'string' ? __PG_BUNDLE_HASH__ : undefined;

let bundled: BundledPg | null | undefined;
/** Saves the code cache when this run compiled the client without one (saveCodeCache). */
let pendingSave: (() => void) | undefined;

export async function loadPg(): Promise<Pg> {
  const pg = loadBundledPg();
  if (pg) return pg;
  // Running from src/ (tests): a CommonJS module, its classes on the default export.
  const m = await import('pg');
  return ((m as unknown as { default?: Pg }).default ?? m) as Pg;
}

/** The bundled client, compiled at once (no ES module loader on the way); undefined without dist/pg.cjs. */
export function loadBundledPg(): BundledPg | undefined {
  if (bundled === undefined) bundled = compileBundle() ?? null;
  return bundled ?? undefined;
}

function compileBundle(): BundledPg | undefined {
  const here = fileURLToPath(import.meta.url);
  const at = here.lastIndexOf(`${sep}dist${sep}`);
  if (at === -1) return undefined;
  const file = join(here.slice(0, at), 'dist', 'pg.cjs');
  const read = (path: string) => {
    try {
      return readFileSync(path);
    } catch {
      return undefined;
    }
  };
  const source = read(file);
  if (!source) return undefined;
  const env = process.env;
  const cacheFile =
    BUNDLE_HASH &&
    join(
      env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'),
      'schedctl',
      `pg-${BUNDLE_HASH}-${process.version}-${process.arch}.v8`,
    );
  const cachedData = cacheFile ? read(cacheFile) : undefined;
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const mod = { exports: {} as unknown };
  const init = script.runInThisContext() as (...args: unknown[]) => void;
  init.call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
  if (cacheFile && (!cachedData || script.cachedDataRejected))
    pendingSave = () => writeCodeCache(cacheFile, script.createCachedData());
  return mod.exports as BundledPg;
}

/** Writes the code cache this run could not use, once the client has connected and queried (V8 then includes what ran). */
export function saveCodeCache(): void {
  const save = pendingSave;
  pendingSave = undefined;
  save?.();
}

function writeCodeCache(file: string, data: Buffer): void {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Renamed into place: a parallel run reads the whole cache or none.
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, data, { mode: 0o600 });
    renameSync(partial, file);
  } catch {
    // A cache is an optimisation: a read-only home only makes the next run compile again.
  }
}

/** The connection opened as soon as a command knows its state URL: the Database's first (connect.ts). */
export interface EarlyConnection {
  readonly client: Client;
  readonly config: ClientConfig;
  readonly connected: Promise<unknown>;
}

/**
 * The connection, opened as soon as a command knows its state URL: its round trips overlap what
 * the command still loads. Never fails (the first use says a failure); undefined from src/.
 */
export function connectEarly(url: string): EarlyConnection | undefined {
  try {
    const pg = loadBundledPg();
    if (!pg) return undefined;
    const config = clientConfigWith(pg.parseConnectionString, url);
    const client = new pg.Client({ ...config, pipeline: true });
    // Until the Database adds its own listeners: a failure is its to report, not a crash.
    client.on('error', () => {});
    const connected = client.connect();
    connected.catch(() => {});
    return { client, config, connected };
  } catch {
    return undefined;
  }
}
