/**
 * The PostgreSQL test harness itself (test/helpers/postgres.ts, test/helpers/tcp-proxy.ts): a real
 * throwaway server starts, answers SQL through the `pg` client, checks passwords, survives a
 * stop/start and a crash, and the TCP proxy forwards, cuts and blocks connections. Every
 * PostgreSQL test builds on these, so a broken harness fails here first, with its own message.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { findPgBinDir, usePostgres } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const PASSWORD = 'pw with spaces & symbols: é%/@';
const fx = usePostgres({ password: PASSWORD });

/** A connected client (errors it emits while idle are recorded, not thrown). */
async function client(config: pg.ClientConfig): Promise<pg.Client & { errors: Error[] }> {
  const c = Object.assign(new pg.Client(config), { errors: [] as Error[] });
  c.on('error', (e) => c.errors.push(e));
  await c.connect();
  return c;
}

/** The error a promise rejects with (fails the test if it resolves). */
async function rejection(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

describe('findPgBinDir', () => {
  it('takes SCHEDCTL_TEST_PG_BIN first, and refuses one without the server binaries, saying what to set', () => {
    const found = findPgBinDir();
    expect(findPgBinDir({ SCHEDCTL_TEST_PG_BIN: found })).toBe(found);
    expect(() => findPgBinDir({ SCHEDCTL_TEST_PG_BIN: '/nonexistent' })).toThrow(/SCHEDCTL_TEST_PG_BIN=\/nonexistent/);
  });

  it('says what to install when there are no binaries anywhere (never a silent skip)', () => {
    expect(() => findPgBinDir({ PATH: '' }, '/nonexistent')).toThrow(
      /apt-get install postgresql.*SCHEDCTL_TEST_PG_BIN/s,
    );
  });
});

describe('startPostgres', () => {
  it('starts a cluster on 127.0.0.1 that answers SQL as schedctl_test through the pg client', async () => {
    const { pg: db } = fx;
    expect(db.url).toBe(`postgres://schedctl_test@127.0.0.1:${db.port}/schedctl`);
    expect(existsSync(`${db.dataDir}/PG_VERSION`)).toBe(true);
    const c = await client({ connectionString: db.url });
    try {
      const r = await c.query<{ user: string; db: string; fsync: string }>(
        "SELECT current_user AS user, current_database() AS db, current_setting('fsync') AS fsync",
      );
      expect(r.rows[0]).toEqual({ user: 'schedctl_test', db: 'schedctl', fsync: 'off' });
      // schedctl_test owns its database: it can create the schema a backend makes on first use.
      await c.query('CREATE TABLE harness_probe (id int PRIMARY KEY, note text)');
      await c.query("INSERT INTO harness_probe VALUES (1, 'kept')");
    } finally {
      await c.end();
    }
    expect(await db.psql('SELECT id, note, NULL, true FROM harness_probe')).toBe('1|kept||t');
    expect(await db.psql("SELECT current_setting('max_connections')")).toBe('200');
  });

  it('gives each createDatabase() call a fresh database, reachable at the URL it returns', async () => {
    const a = await fx.pg.createDatabase();
    const b = await fx.pg.createDatabase('harness_named');
    expect(b).toBe(`postgres://schedctl_test@127.0.0.1:${fx.pg.port}/harness_named`);
    expect(a).not.toBe(b);
    const c = await client({ connectionString: a });
    try {
      await c.query('CREATE TABLE only_here (x int)');
    } finally {
      await c.end();
    }
    expect(await fx.pg.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'only_here'", 'harness_named')).toBe('0');
  });

  it('lets the password role in with the right password only (scram-sha-256 over TCP)', async () => {
    const { pg: db } = fx;
    const ok = await client({ connectionString: db.passwordUrl });
    try {
      expect((await ok.query('SELECT current_user AS u')).rows[0].u).toBe('schedctl_pw');
    } finally {
      await ok.end();
    }
    const base = { host: db.host, port: db.port, database: 'schedctl', user: 'schedctl_pw' };
    const wrong = await rejection(client({ ...base, password: 'not it' }));
    expect(wrong.code).toBe('28P01'); // invalid_password
    // No password at all: the server asks for one (SASL) and the client cannot give it.
    await rejection(client({ ...base, password: '' }));
    expect(
      await db.psql("SELECT rolpassword LIKE 'SCRAM-SHA-256$%' FROM pg_authid WHERE rolname = 'schedctl_pw'"),
    ).toBe('t');
  });

  it('keeps the data across stop() and start(), on the same port', async () => {
    const { pg: db } = fx;
    await db.psql('CREATE TABLE survives_stop (v text); INSERT INTO survives_stop VALUES ($$before$$)');
    const port = db.port;
    await db.stop();
    const down = await rejection(client({ connectionString: db.url, connectionTimeoutMillis: 2000 }));
    expect(down.code).toBe('ECONNREFUSED');
    await db.start();
    expect(db.port).toBe(port);
    expect(await db.psql('SELECT v FROM survives_stop')).toBe('before');
  });

  // Fails with synchronous_commit = off (the last commits vanish in the crash): see the helper's settings.
  it('recovers after kill() (immediate shutdown) with committed rows intact', async () => {
    const { pg: db } = fx;
    await db.psql('CREATE TABLE survives_kill (v int); INSERT INTO survives_kill SELECT generate_series(1, 100)');
    // A live session when the server dies: its client sees the connection end.
    const live = await client({ connectionString: db.url });
    await db.kill();
    await rejection(live.query('SELECT 1'));
    await live.end().catch(() => undefined);
    await db.start();
    expect(await db.psql('SELECT count(*) FROM survives_kill')).toBe('100');
  });
});

describe('startTcpProxy in front of PostgreSQL', () => {
  let proxy: TcpProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  const viaProxy = (p: TcpProxy) => fx.pg.url.replace(`:${fx.pg.port}/`, `:${p.port}/`);

  it('forwards a pg connection and counts it', async () => {
    const p = (proxy = await startTcpProxy({ port: fx.pg.port }));
    const c = await client({ connectionString: viaProxy(p) });
    try {
      expect(p.connections).toBe(1);
      expect((await c.query('SELECT 41 + 1 AS n')).rows[0].n).toBe(42);
    } finally {
      await c.end();
    }
  });

  it('cut() breaks a live connection (the client sees an error) and keeps accepting new ones', async () => {
    const p = (proxy = await startTcpProxy({ port: fx.pg.port }));
    const c = await client({ connectionString: viaProxy(p) });
    await c.query('SELECT 1');
    const pending = c.query('SELECT pg_sleep(5)');
    p.cut();
    const err = await rejection(pending);
    expect(err.message).toMatch(/ECONNRESET|terminated|closed/i);
    expect(p.connections).toBe(0);
    await c.end().catch(() => undefined);
    const again = await client({ connectionString: viaProxy(p) });
    try {
      expect((await again.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      await again.end();
    }
  });

  it('block() makes a new connect fail while an open connection keeps working; unblock() restores', async () => {
    const p = (proxy = await startTcpProxy({ port: fx.pg.port }));
    const open = await client({ connectionString: viaProxy(p) });
    try {
      p.block();
      await rejection(client({ connectionString: viaProxy(p), connectionTimeoutMillis: 5000 }));
      expect((await open.query('SELECT 2 AS two')).rows[0].two).toBe(2);
      p.unblock();
      const c = await client({ connectionString: viaProxy(p) });
      await c.end();
    } finally {
      await open.end();
    }
  });

  it("block('hang') black-holes: a connect times out, a query waits; unblock() lets it finish", async () => {
    const p = (proxy = await startTcpProxy({ port: fx.pg.port }));
    const open = await client({ connectionString: viaProxy(p) });
    try {
      p.block('hang');
      const err = await rejection(client({ connectionString: viaProxy(p), connectionTimeoutMillis: 300 }));
      expect(err.message).toMatch(/timeout/i);
      let answered = false;
      const q = open.query('SELECT 3 AS three').then((r) => {
        answered = true;
        return r;
      });
      // The query is held by the proxy, not lost: it has no answer while blocked ...
      await new Promise((r) => setTimeout(r, 200));
      expect(answered).toBe(false);
      p.unblock();
      // ... and gets it once the path is back.
      expect((await q).rows[0].three).toBe(3);
    } finally {
      await open.end();
    }
  });
});

/**
 * The script an orphaned test process runs: start a cluster, say where, and wait to be killed
 * (SIGKILL: no exit handler runs). With `holdPipe`, it first hands its end of the watchdog's pipe
 * to a detached `sleep` that outlives it, as a process that inherited the descriptor would.
 */
const ORPHAN_SCRIPT = (holdPipe: boolean) =>
  [
    "import { spawn } from 'node:child_process';",
    "import { readdirSync, readlinkSync } from 'node:fs';",
    "import { startPostgres } from './postgres.ts';",
    'const db = await startPostgres();',
    'let holder;',
    `if (${holdPipe}) {`,
    // Every pipe and socket this process has (libuv's stdio pipes are socket pairs, so the
    // watchdog's cannot be told apart by inode): a process that inherited all its descriptors.
    "  const fds = readdirSync('/proc/self/fd').map(Number).filter((f) => {",
    '    try { return f > 2 && /^(pipe|socket):/.test(readlinkSync(`/proc/self/fd/${f}`)); } catch { return false; }',
    '  });',
    "  const sleeper = spawn('sleep', ['60'], { detached: true, stdio: ['ignore', 'ignore', 'ignore', ...fds] });",
    '  sleeper.unref();',
    '  holder = sleeper.pid;',
    '}',
    'console.log(JSON.stringify({ dataDir: db.dataDir, root: db.socketDir, holder }));',
    'setInterval(() => {}, 1000);',
  ].join('\n');

describe('a test process killed without cleaning up', () => {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it.each([
    ['its pipe closes with it', false],
    ['another process still holds its pipe (the watchdog watches the pid too)', true],
  ])('leaves no server and no temp dir behind when %s', async (_what, holdPipe) => {
    const cache = join(fileURLToPath(new URL('../../node_modules/.cache/schedctl', import.meta.url)));
    mkdirSync(cache, { recursive: true });
    const dir = mkdtempSync(join(cache, 'pg-orphan-'));
    const script = join(dir, 'orphan.mjs');
    let left: { postmaster: number; root: string; holder?: number } | undefined;
    try {
      await build({
        stdin: {
          contents: ORPHAN_SCRIPT(holdPipe),
          resolveDir: fileURLToPath(new URL('../helpers', import.meta.url)),
          loader: 'ts',
        },
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile: script,
        external: ['pg', 'vitest'],
        logLevel: 'error',
      });
      const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
        });
        child.once('exit', (code) => reject(new Error(`the script exited (${code}) before starting a cluster`)));
      });
      const { dataDir, root, holder } = JSON.parse(line) as { dataDir: string; root: string; holder?: number };
      const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      left = { postmaster, root, ...(holder === undefined ? {} : { holder }) };
      expect(alive(postmaster)).toBe(true);
      if (holdPipe) expect(holder !== undefined && alive(holder)).toBe(true);
      child.kill('SIGKILL');
      // The watchdog notices within a second; this bounds the wait, it does not time anything.
      for (let i = 0; i < 200 && (existsSync(root) || alive(postmaster)); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(alive(postmaster)).toBe(false);
      expect(existsSync(root)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      // If the watchdog failed, do not leave its cluster running (SIGQUIT: PostgreSQL's immediate shutdown).
      if (left && alive(left.postmaster)) process.kill(left.postmaster, 'SIGQUIT');
      if (left?.holder !== undefined && alive(left.holder)) process.kill(left.holder, 'SIGKILL');
      if (left) rmSync(left.root, { recursive: true, force: true });
    }
  });
});
