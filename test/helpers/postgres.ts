/**
 * A throwaway PostgreSQL for the tests: a real server (the machine's PostgreSQL binaries, no
 * Docker, no mock), initdb'd into a fresh temp dir, listening on 127.0.0.1 at a free port and
 * on a Unix socket inside that dir, tuned for speed (no fsync), removed at the end.
 *
 * One cluster per test file (`usePostgres()` or `startPostgres()` in beforeAll); each test that
 * needs a clean slate takes its own database with `createDatabase()`. Each cluster is a copy of
 * one initdb per process (`freshCluster`).
 *
 * - Binaries: SCHEDCTL_TEST_PG_BIN, else the highest /usr/lib/postgresql/<version>/bin (Debian's
 *   `postgresql` package), else `pg_config --bindir`, else PATH. None: an Error that says what
 *   to install (never a silent skip).
 * - PostgreSQL refuses to run as root: when the tests run as root, initdb, pg_ctl and the server
 *   run as the `postgres` system user (spawn's uid/gid), and the temp dir is chowned to it.
 * - Roles: `postgres` (superuser, what `psql()` uses), `schedctl_test` (login, trust auth, owner of
 *   every database made here) and, with `password`, `schedctl_pw` (scram-sha-256 over TCP, a member
 *   of schedctl_test so it has the same rights).
 * - Cleanup: `destroy()` (afterAll); a process 'exit' handler stops the server (-m immediate) and
 *   removes the dir if a run ends without it; and a watchdog (a detached `sh` reading a pipe from
 *   this process) does the same when this process dies without running 'exit' handlers (SIGKILL,
 *   a signal, a crash): its read sees end-of-file the moment the last writer is gone.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

export interface TestPostgres {
  /** `postgres://schedctl_test@127.0.0.1:PORT/schedctl`: no password (trust auth for this role). */
  readonly url: string;
  /** With `password`: `postgres://schedctl_pw:PASSWORD@127.0.0.1:PORT/schedctl` (scram-sha-256). */
  readonly passwordUrl: string | undefined;
  readonly password: string | undefined;
  readonly host: string;
  readonly port: number;
  /** The cluster's data directory (PGDATA), inside the temp dir that also holds the log and the socket. */
  readonly dataDir: string;
  /** The Unix socket's directory (the temp dir). */
  readonly socketDir: string;
  /** The server's log file. */
  readonly logFile: string;
  /** Fast shutdown (pg_ctl -m fast: sessions are ended, the data kept). */
  stop(): Promise<void>;
  /** Starts it again, on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Immediate shutdown (pg_ctl -m immediate: like a crash; the next start runs recovery). */
  kill(): Promise<void>;
  /** Stops the server and removes the temp dir. Idempotent. */
  destroy(): Promise<void>;
  /**
   * Runs SQL as the superuser `postgres` on `database` (default `schedctl`); several statements
   * separated by `;` run as one implicit transaction (as `psql -c` does). Returns the rows as `psql -At` prints them: columns joined by `|`, rows by
   * newlines, each value as the server's text (NULL is empty).
   */
  psql(sql: string, database?: string): Promise<string>;
  /** Creates a fresh database (owned by schedctl_test) and returns its URL (the `url` form). */
  createDatabase(name?: string): Promise<string>;
  /** The URL of `database` for schedctl_test, or for schedctl_pw (with its password) with `{ password: true }`. */
  databaseUrl(database: string, opts?: { password?: boolean }): string;
}

export interface StartPostgresOptions {
  /** Also create the role `schedctl_pw` with this password; it authenticates with scram-sha-256 over TCP. */
  password?: string;
}

const TEST_ROLE = 'schedctl_test';
const PASSWORD_ROLE = 'schedctl_pw';
const DEFAULT_DB = 'schedctl';
const START_TIMEOUT_S = 20;

/** Where the PostgreSQL server binaries are (a directory with initdb, pg_ctl and postgres); `debian` is where Debian keeps one per version. */
export function findPgBinDir(env: NodeJS.ProcessEnv = process.env, debian = '/usr/lib/postgresql'): string {
  const has = (dir: string) => ['initdb', 'pg_ctl', 'postgres'].every((b) => existsSync(join(dir, b)));
  const fromEnv = env.SCHEDCTL_TEST_PG_BIN;
  if (fromEnv) {
    if (has(fromEnv)) return fromEnv;
    throw new Error(
      `SCHEDCTL_TEST_PG_BIN=${fromEnv} has no initdb, pg_ctl and postgres: point it at a PostgreSQL bin directory`,
    );
  }
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+(\.\d+)?$/.test(v) && has(join(debian, v, 'bin')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], 'bin');
  }
  try {
    const dir = execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (dir && has(dir)) return dir;
  } catch {
    // no pg_config: try PATH
  }
  for (const dir of (env.PATH ?? '').split(':')) if (dir && has(dir)) return dir;
  throw new Error(
    'No PostgreSQL server binaries (initdb, pg_ctl, postgres) found for the PostgreSQL tests: ' +
      'install them (Debian/Ubuntu: `apt-get install postgresql`, or run `sh .ci/install-tools.sh`), ' +
      'or set SCHEDCTL_TEST_PG_BIN to a directory that holds them.',
  );
}

interface RunAs {
  uid: number;
  gid: number;
}

/** As root, the `postgres` system user (PostgreSQL will not run as root); otherwise undefined (this user). */
function pgUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => {
    const r = spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
    if (r.status !== 0)
      throw new Error(
        'The tests run as root and PostgreSQL refuses to: they run it as the `postgres` system user, which ' +
          "does not exist here. Install Debian's `postgresql` package (it creates the user) or run the tests as another user.",
      );
    return Number(r.stdout.trim());
  };
  return { uid: id('-u'), gid: id('-g') };
}

/** A directory everyone may traverse (the postgres user must reach the temp dir). */
function tempBase(runAs: RunAs | undefined): string {
  const base = tmpdir();
  if (!runAs) return base;
  for (let d = base; ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return '/tmp';
    if (dirname(d) === d) return base;
  }
}

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** The environment for the PostgreSQL programs: no PG* variables of the caller's, C locale. */
function pgEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PG') && !k.startsWith('LC_')) env[k] = v;
  return { ...env, HOME: home, LANG: 'C', LC_ALL: 'C' };
}

interface Ran {
  code: number | null;
  output: string;
}

function run(file: string, args: string[], opts: SpawnOptions): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

function tail(file: string, lines = 25): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new Error(`database name ${JSON.stringify(name)}: use [a-z_][a-z0-9_]*`);
  return `"${name}"`;
}

let dbCounter = 0;

/**
 * A freshly initdb'd cluster of these binaries, made once per process and copied for each
 * cluster a test starts: initdb's files are the same every time (same binaries, options and
 * user; only the cluster's random system identifier repeats, which nothing here reads), and a
 * copy costs a fraction of initdb's ~0.75 s of CPU (15 test files start a cluster). It lives in
 * the temporary directory (a test run's own), is removed when the process exits, and is never started.
 */
const freshClusters = new Map<string, Promise<string>>();
function freshCluster(bin: string, runAs: RunAs | undefined): Promise<string> {
  let made = freshClusters.get(bin);
  if (!made) {
    made = (async () => {
      const root = mkdtempSync(join(tempBase(runAs), 'schedctl-pg-fresh-'));
      // Outside a test run (scripts/bench-team.mjs) nothing else removes it.
      process.on('exit', () => rmSync(root, { recursive: true, force: true }));
      if (runAs) chownSync(root, runAs.uid, runAs.gid);
      const dataDir = join(root, 'data');
      const init = await run(
        join(bin, 'initdb'),
        ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
        { cwd: root, env: pgEnv(root), ...(runAs ?? {}) },
      );
      if (init.code !== 0) throw new Error(`initdb failed (exit ${init.code}): ${init.output.trim()}`);
      return dataDir;
    })();
    // A failed initdb is tried again by the next cluster, not remembered.
    made.catch(() => freshClusters.delete(bin));
    freshClusters.set(bin, made);
  }
  return made;
}

/**
 * SCHEDCTL_TEST_PG_ONCE=1 (the backend's mutation run, test/setup/stryker-postgres.config.mjs):
 * one cluster per process and settings, shared by every file and run; its destroy() leaves it for
 * the process's end (the exit handler and the watchdog end it then).
 */
const sharedClusters = new Map<string, Promise<TestPostgres>>();

export async function startPostgres(opts: StartPostgresOptions = {}): Promise<TestPostgres> {
  if (!process.env.SCHEDCTL_TEST_PG_ONCE) return startCluster(opts);
  const key = JSON.stringify(opts);
  let shared = sharedClusters.get(key);
  if (!shared) sharedClusters.set(key, (shared = startCluster(opts).then((c) => ({ ...c, destroy: async () => {} }))));
  return shared;
}

async function startCluster(opts: StartPostgresOptions): Promise<TestPostgres> {
  const bin = findPgBinDir();
  const runAs = pgUser();
  const root = mkdtempSync(join(tempBase(runAs), 'schedctl-pg-'));
  if (runAs) chownSync(root, runAs.uid, runAs.gid);
  const dataDir = join(root, 'data');
  const logFile = join(root, 'postgres.log');
  const spawnOpts: SpawnOptions = { cwd: root, env: pgEnv(root), ...(runAs ?? {}) };
  const pgCtl = join(bin, 'pg_ctl');
  const host = '127.0.0.1';
  let port = 0;
  let destroyed = false;
  let watchdog: ChildProcess | undefined;

  // Synchronous last resort for a run that ends without destroy(): stop the server, remove the dir.
  const onExit = () => {
    spawnSync(pgCtl, ['-D', dataDir, 'stop', '-m', 'immediate', '-w', '-t', '10'], { ...spawnOpts, stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  };

  const fail = (what: string, ran: Ran): never => {
    throw new Error(
      `${what} failed (exit ${ran.code}): ${ran.output.trim()}\n--- ${logFile} (tail) ---\n${tail(logFile)}`,
    );
  };

  try {
    // The watchdog, before anything exists to leave behind (a run killed during initdb or pg_ctl
    // start leaves nothing either). It ends the cluster when this process is gone however it
    // ended: its stdin is a pipe from this process (`read` sees end-of-file the moment the last
    // writer closes it) and, in case some other process holds that pipe open (an inherited
    // descriptor: a Stryker run once left 29 servers behind), it also watches this process's pid
    // and stops when the pid is gone or a zombie. A cluster never started: `pg_ctl stop` fails
    // harmlessly and the dir is removed.
    watchdog = spawn(
      '/bin/sh',
      [
        '-c',
        [
          // An asynchronous list's stdin is /dev/null unless redirected: hand it the pipe explicitly.
          'exec 3<&0',
          '(while read -r _; do :; done; : >"$3/owner-gone") <&3 &',
          'while s=$(cat "/proc/$4/stat" 2>/dev/null) && [ ! -e "$3/owner-gone" ]; do',
          '  case "${s##*) }" in Z*|X*) break;; esac',
          '  sleep 0.5',
          'done',
          '"$1" -D "$2" stop -m immediate -w -t 10 >/dev/null 2>&1; rm -rf "$3"',
        ].join('\n'),
        'pg-watchdog',
        pgCtl,
        dataDir,
        root,
        String(process.pid),
      ],
      { ...spawnOpts, detached: true, stdio: ['pipe', 'ignore', 'ignore'] },
    );
    watchdog.on('error', () => undefined);
    watchdog.unref();
    (watchdog.stdin as Socket | null)?.unref();
    process.on('exit', onExit);

    const copied = await run('cp', ['-a', await freshCluster(bin, runAs), dataDir], spawnOpts);
    if (copied.code !== 0) fail('copying the fresh cluster', copied);

    const hba = [
      'local all all trust',
      ...(opts.password !== undefined ? [`host all ${PASSWORD_ROLE} 127.0.0.1/32 scram-sha-256`] : []),
      'host all all 127.0.0.1/32 trust',
      '',
    ];
    writeFileSync(join(dataDir, 'pg_hba.conf'), hba.join('\n'));
    if (runAs) chownSync(join(dataDir, 'pg_hba.conf'), runAs.uid, runAs.gid);

    const settings = (p: number) =>
      [
        '',
        '# test settings (test/helpers/postgres.ts): a throwaway cluster, speed over durability',
        `port = ${p}`,
        `listen_addresses = '${host}'`,
        `unix_socket_directories = '${root}'`,
        'max_connections = 200',
        'shared_buffers = 32MB',
        'fsync = off',
        // Not off: with synchronous_commit off a commit is acknowledged before its WAL leaves the server's
        // memory, so kill() (an immediate shutdown, a crash) loses the last ~0.6 s of commits the clients
        // were told are saved, which is what the crash tests check never happens. With fsync off, on
        // costs one write() to the page cache per commit (survives a server crash, not a machine crash).
        'synchronous_commit = on',
        'full_page_writes = off',
        'autovacuum = off',
        "password_encryption = 'scram-sha-256'",
        '',
      ].join('\n');

    const tryStart = async (): Promise<Ran> =>
      run(pgCtl, ['-D', dataDir, '-l', logFile, '-w', '-t', String(START_TIMEOUT_S), 'start'], spawnOpts);

    // A port free a moment ago may be taken by another test process before the server binds it: retry.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      appendFileSync(join(dataDir, 'postgresql.conf'), settings(port));
      const started = await tryStart();
      if (started.code === 0) break;
      const inUse = /could not (bind|create listen socket)|Address already in use/i.test(tail(logFile, 10));
      if (!inUse || attempt === 3) fail('pg_ctl start', started);
    }

    const superUrl = (db: string) => `postgres://postgres@${host}:${port}/${db}`;
    const urlFor = (db: string, password = false) => {
      if (!password) return `postgres://${TEST_ROLE}@${host}:${port}/${db}`;
      if (opts.password === undefined) throw new Error('startPostgres({ password }) makes the password role');
      return `postgres://${PASSWORD_ROLE}:${encodeURIComponent(opts.password)}@${host}:${port}/${db}`;
    };

    const psql = async (sql: string, database = DEFAULT_DB): Promise<string> => {
      const client = new pg.Client({
        connectionString: superUrl(database),
        // The server's text for every value, as psql prints it (no parsing into JS types).
        types: { getTypeParser: () => (value: string) => value },
      });
      await client.connect();
      try {
        const res = (await client.query({ text: sql, rowMode: 'array' })) as
          pg.QueryArrayResult | pg.QueryArrayResult[];
        const results = Array.isArray(res) ? res : [res];
        return results
          .flatMap((r) => r.rows.map((row) => row.map((v) => (v === null ? '' : String(v))).join('|')))
          .join('\n');
      } finally {
        await client.end();
      }
    };

    const ctl = async (what: string, args: string[]) => {
      const ran = await run(pgCtl, ['-D', dataDir, ...args], spawnOpts);
      if (ran.code !== 0) fail(`pg_ctl ${what}`, ran);
    };

    // One statement a call: several in one query string run as one transaction, and CREATE DATABASE cannot.
    await psql(`CREATE ROLE ${TEST_ROLE} LOGIN`, 'postgres');
    await psql(`CREATE DATABASE ${DEFAULT_DB} OWNER ${TEST_ROLE}`, 'postgres');
    if (opts.password !== undefined)
      await psql(
        `CREATE ROLE ${PASSWORD_ROLE} LOGIN IN ROLE ${TEST_ROLE} PASSWORD ${pg.escapeLiteral(opts.password)}`,
        'postgres',
      );

    const tp: TestPostgres = {
      url: urlFor(DEFAULT_DB),
      passwordUrl: opts.password !== undefined ? urlFor(DEFAULT_DB, true) : undefined,
      password: opts.password,
      host,
      port,
      dataDir,
      socketDir: root,
      logFile,
      stop: () => ctl('stop', ['stop', '-m', 'fast', '-w', '-t', String(START_TIMEOUT_S)]),
      kill: () => ctl('stop -m immediate', ['stop', '-m', 'immediate', '-w', '-t', String(START_TIMEOUT_S)]),
      start: async () => {
        const started = await tryStart();
        if (started.code !== 0) fail('pg_ctl start', started);
      },
      destroy: async () => {
        if (destroyed) return;
        destroyed = true;
        process.off('exit', onExit);
        if (watchdog?.pid !== undefined && watchdog.exitCode === null) {
          try {
            // Its process group (detached): the shell and its pipe reader.
            process.kill(-watchdog.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        // Not running is fine here (a test may have stopped it).
        await run(pgCtl, ['-D', dataDir, 'stop', '-m', 'immediate', '-w', '-t', String(START_TIMEOUT_S)], spawnOpts);
        rmSync(root, { recursive: true, force: true });
      },
      psql,
      createDatabase: async (name = `t${process.pid}_${++dbCounter}`) => {
        await psql(`CREATE DATABASE ${quoteIdent(name)} OWNER ${TEST_ROLE}`, 'postgres');
        return urlFor(name);
      },
      databaseUrl: (db, o) => urlFor(db, o?.password),
    };
    return tp;
  } catch (err) {
    process.off('exit', onExit);
    if (watchdog?.pid !== undefined) {
      try {
        process.kill(-watchdog.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    onExit();
    throw err;
  }
}

export interface PostgresFixture {
  /** The file's cluster, started in beforeAll. */
  readonly pg: TestPostgres;
}

/** Registers the file's hooks: start one cluster before all tests, destroy it after them. */
export function usePostgres(opts: StartPostgresOptions = {}): PostgresFixture {
  let started: TestPostgres | undefined;
  beforeAll(async () => {
    started = await startPostgres(opts);
  });
  // Optional: if starting failed, that is the error to see, not a second one from here.
  afterAll(async () => started?.destroy());
  return {
    get pg() {
      if (!started) throw new Error('the PostgreSQL cluster is started in beforeAll: use it inside hooks and tests');
      return started;
    },
  };
}
