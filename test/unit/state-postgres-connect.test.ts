/**
 * How schedctl reaches a team database: libpq's ways of giving the password (the URL,
 * PGPASSWORD, the password file) work as for psql, and no message ever holds the password.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/state/postgres/connect.js';
import { redactStateUrl } from '../../src/state/postgres/url.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

const PASSWORD = 'S3cret-Pa55word';
let pg: TestPostgres;
const dir = mkdtempSync(join(tmpdir(), 'pgpass-'));
const saved = { PGPASSWORD: process.env.PGPASSWORD, PGPASSFILE: process.env.PGPASSFILE };

beforeAll(async () => {
  pg = await startPostgres({ password: PASSWORD });
}, 60_000);
afterAll(async () => {
  await pg?.destroy();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

const bare = () => `postgres://schedctl_pw@${pg.host}:${pg.port}/schedctl`;
async function ask(url: string): Promise<unknown> {
  const db = openDatabase(url);
  try {
    return (await db.query<{ ok: number }>('SELECT 1 AS ok'))[0]?.ok;
  } catch (error) {
    return db.unavailable(error);
  } finally {
    await db.end();
  }
}

describe('the password of a team database', () => {
  it('comes from the URL', async () => {
    expect(await ask(pg.passwordUrl as string)).toBe(1);
  });

  it('comes from PGPASSWORD when the URL has none', async () => {
    process.env.PGPASSWORD = PASSWORD;
    process.env.PGPASSFILE = join(dir, 'none');
    expect(await ask(bare())).toBe(1);
  });

  it('comes from the password file (PGPASSFILE, 0600) when neither has one', async () => {
    delete process.env.PGPASSWORD;
    const file = join(dir, 'pgpass');
    writeFileSync(file, `${pg.host}:${pg.port}:schedctl:schedctl_pw:${PASSWORD}\n`, { mode: 0o600 });
    process.env.PGPASSFILE = file;
    expect(await ask(bare())).toBe(1);
  });

  it('missing: says so in one line, naming where it may come from', async () => {
    delete process.env.PGPASSWORD;
    process.env.PGPASSFILE = join(dir, 'none');
    const error = (await ask(bare())) as Error;
    expect(error).toMatchObject({ code: 'STATE_UNAVAILABLE', exitCode: 9 });
    expect(error.message).toContain('asks for a password and none was given');
  });

  it('wrong: refused, and never printed, nor the right one', async () => {
    const url = (pg.passwordUrl as string).replace(encodeURIComponent(PASSWORD), 'Wr0ng-guess');
    const error = (await ask(url)) as Error & { hint?: string };
    expect(error).toMatchObject({ code: 'STATE_UNAVAILABLE' });
    expect(error.message).toContain('password authentication failed');
    expect(`${error.message} ${error.hint}`).not.toMatch(/Wr0ng-guess|S3cret/);
    expect(error.message).toContain(redactStateUrl(url));
  });
});

describe('a state URL in messages', () => {
  it('never shows a password, in the userinfo or as a parameter', () => {
    expect(redactStateUrl('postgres://bob:hunter2@db.internal:5433/team?sslmode=require')).toBe(
      'postgres://bob@db.internal:5433/team?sslmode=require',
    );
    expect(redactStateUrl('postgres://db.internal/team?password=hunter2&sslmode=require')).toBe(
      'postgres://db.internal/team?sslmode=require',
    );
  });
});
