/**
 * config.json (the profiles) on `conf`, the only code that reads or writes it. conf reads,
 * validates (our deserializer: the zod schema, so conf gets no JSON schema and ajv never
 * runs), migrates between format versions and writes (atomically, 0600). It does not lock
 * across a read-modify-write, so every change opens a fresh Conf inside the state store's
 * inter-process lock (lock.ts): read, change the whole store, write, release.
 * A file that does not read is reported (StateFileError from the deserializer, which conf
 * passes on with clearInvalidConfig off) and never reset.
 */
import Conf, { type Options } from 'conf';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import { ensureDir } from './disk.js';
import { StateFileError, StateWriteError, describeOsError, errnoCode } from './errors.js';
import { PROFILES_FILE } from './files.js';
import { parseStateText } from './json-file.js';
import { withLock, type LockTiming } from './lock.js';
import type { ConfigFile } from './schemas.js';

/**
 * The format of config.json, conf's `projectVersion` (kept in the file at
 * `__internal__.migrations.version`). A change of the profile shape bumps it and adds a
 * migration below (conf runs those newer than the file's version, in order, on its next
 * change). Reads do not migrate (they never write), so until a file's next change they see
 * it as it is: keep what a read needs readable from the older format too.
 */
export const CONFIG_FORMAT = '1.0.0';
export type ConfigMigrations = NonNullable<Options<ConfigFile>['migrations']>;
export const CONFIG_MIGRATIONS: ConfigMigrations = {
  // 1.0.0 is what every schedctl before conf wrote: nothing to change, the version is recorded.
  '1.0.0': () => {},
};

class ConfigConf extends Conf<ConfigFile> {}
// conf makes the directory on every read of a missing file and before every write, with the
// umask's mode. Here a read creates nothing, and a change creates it itself, 0700, before
// taking the lock (disk.ts ensureDir: an existing, maybe shared, directory keeps its mode).
Object.defineProperty(ConfigConf.prototype, '_ensureDirectory', { value: () => {} });

export class ConfigFileStore {
  readonly path: string;
  constructor(
    readonly dir: string,
    private readonly timing: LockTiming,
    /** The format this schedctl writes and the migrations to it (tests pass a later one). */
    private readonly format: { version: string; migrations: ConfigMigrations } = {
      version: CONFIG_FORMAT,
      migrations: CONFIG_MIGRATIONS,
    },
  ) {
    this.path = join(dir, PROFILES_FILE.name);
  }

  /** The current content (a fresh copy). Never writes, never creates the directory. */
  read(): ConfigFile {
    let store: ConfigFile;
    try {
      store = this.open(false).store;
    } catch (error) {
      if (error instanceof StateFileError) throw error;
      // A part of the directory path is a file: this file cannot exist either.
      if (errnoCode(error) === 'ENOTDIR') return PROFILES_FILE.empty();
      throw new StateFileError(this.path, PROFILES_FILE.what, describeOsError(error));
    }
    return withProfiles(store);
  }

  /**
   * One locked read-modify-write: `change` edits the fresh content in place and returns the
   * result. The file is rewritten only when the content (or its format) changed. A file that
   * does not read (StateFileError) is left exactly as it was.
   */
  async update<R>(change: (data: ConfigFile) => R): Promise<R> {
    ensureDir(this.dir);
    return withLock(this.path, this.timing, () => {
      // Read on its own first: a damaged file fails here, before conf may write a migration.
      const current = this.read();
      const version = formatOf(current);
      const exists = existsSync(this.path);
      return writing(this.path, () => {
        // conf migrates (and writes) as it opens: only a file that exists, so that a change
        // that changes nothing creates nothing. A file from a newer schedctl is not migrated:
        // conf would mark it with our older version.
        const conf = this.open(exists && (version === undefined || older(version, this.format.version)));
        const data = withProfiles(conf.store);
        const before = JSON.stringify(data);
        const result = change(data);
        if (JSON.stringify(data) === before) return result;
        // A new file is at the current format: what conf records after running every
        // migration on an empty store (each must leave an empty store as it is).
        if (!exists) data.__internal__ = { migrations: { version: this.format.version } };
        conf.store = data;
        return result;
      });
    });
  }

  private open(migrate: boolean): ConfigConf {
    return new ConfigConf({
      cwd: this.dir,
      configName: 'config',
      fileExtension: 'json',
      configFileMode: 0o600,
      // conf's clearInvalidConfig (off by default) would reset on a SyntaxError: the deserializer throws none.
      deserialize: (text) => parseStateText(text, PROFILES_FILE, this.path),
      // The layout schedctl has always written (conf's default indents with tabs).
      serialize: (data) => `${JSON.stringify(data, null, 2)}\n`,
      ...(migrate ? { projectVersion: this.format.version, migrations: this.format.migrations } : {}),
    });
  }
}

/** A missing file reads as {} (conf's empty store): the deserializer never saw it. */
const withProfiles = (store: ConfigFile): ConfigFile => ({ ...store, profiles: store.profiles ?? {} });

/** The version conf's migrations last ran to; undefined before the first (or when unreadable). */
export function formatOf(config: ConfigFile): string | undefined {
  const migrations = config.__internal__?.migrations as { version?: unknown } | undefined;
  return typeof migrations?.version === 'string' ? migrations.version : undefined;
}

/** `a` < `b`, both "x.y.z" (numerically); a version that is not, is not older (not ours to migrate). */
export function older(a: string, b: string): boolean {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number)) as [number[], number[]];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]!;
  return false;
}

/**
 * Runs conf's writes: an OS failure is a StateWriteError. conf writes in place (not
 * atomically, keeping the old mode) when SNAP is set, its workaround for snap packages;
 * snap-packaged terminals and editors leak SNAP to what they start, so it is hidden for
 * the (synchronous) duration: nothing else runs meanwhile.
 */
function writing<R>(path: string, write: () => R): R {
  const snap = process.env.SNAP;
  delete process.env.SNAP;
  try {
    return write();
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new StateWriteError(path, error);
  } finally {
    if (snap !== undefined) process.env.SNAP = snap;
  }
}
