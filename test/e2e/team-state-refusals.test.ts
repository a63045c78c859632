/**
 * Team state (issue 37, item 9): what the database refuses, said as such. A role without rights,
 * a read-only role, a TLS file the URL names that is not there, `state unlock` without the right
 * to end another role's session, a schema written by a newer schedctl: each is exit 9
 * STATE_UNAVAILABLE with a hint naming what to grant or set, never "unexpected failure". Against
 * the file's own PostgreSQL, with roles made for the purpose (cluster-wide, so named for it).
 */
import pg from 'pg';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bookSlotArgs } from '../helpers/args.js';
import { show, type RunResult } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { useSandbox } from '../helpers/sandbox.js';
import { dbName, machine } from '../helpers/team.js';

const fx = usePostgres();
const t = useSandbox({ holdSeconds: 60 });
const SLOW = { timeout: 90_000 };

let stateUrl = '';
beforeAll(async () => {
  // A role with no rights on anything schedctl made; a read-only member of the tables' owner;
  // a helper with every table right but not pg_signal_backend.
  await fx.pg.psql('CREATE ROLE refusal_stranger LOGIN', 'postgres');
  await fx.pg.psql('CREATE ROLE refusal_reader LOGIN IN ROLE schedctl_test', 'postgres');
  await fx.pg.psql('ALTER ROLE refusal_reader SET default_transaction_read_only = on', 'postgres');
  await fx.pg.psql('CREATE ROLE refusal_helper LOGIN', 'postgres');
});
beforeEach(async () => {
  stateUrl = await fx.pg.createDatabase();
});

const as = (role: string, query = '') => {
  const u = new URL(stateUrl);
  u.username = role;
  return `${u.toString()}${query}`;
};
const sql = (query: string) => fx.pg.psql(query, dbName(stateUrl));

/** The schema made by its owner, as a team's first run does. */
async function schemaMade(): Promise<void> {
  const r = await machine(t.sb, stateUrl).run(['state', 'status', '--json']);
  expect(r.code, show(r)).toBe(0);
}

function refused(r: RunResult, hint: RegExp): void {
  expect(r.code, show(r)).toBe(9);
  const error = r.json().error;
  expect(error.code, show(r)).toBe('STATE_UNAVAILABLE');
  expect(error.hint, show(r)).toMatch(hint);
  expect(r.stdout + r.stderr, show(r)).not.toMatch(/unexpected failure|bug in schedctl|check that the database is up/);
}

describe('refusals of the database, each with its own hint', () => {
  it('a role without rights on the tables: what to GRANT, to whom', SLOW, async () => {
    await schemaMade();
    const m = machine(t.sb, as('refusal_stranger'));
    for (const args of [
      ['state', 'status', '--json'],
      ['meetings', 'ls', '--json'],
      ['state', 'push', '--json'],
    ])
      refused(
        await m.run(args),
        /GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO refusal_stranger/,
      );
  });

  it('a role that may not create the tables: CREATE on the schema, or the owner first', SLOW, async () => {
    refused(
      await machine(t.sb, as('refusal_stranger')).run(['state', 'status', '--json']),
      /GRANT CREATE ON SCHEMA public TO refusal_stranger/,
    );
    expect(await sql(`SELECT count(*) FROM pg_tables WHERE tablename LIKE 'schedctl_%'`)).toBe('0');
  });

  it('a read-only role: the booking is not sent, the hint names default_transaction_read_only', SLOW, async () => {
    await schemaMade();
    const m = machine(t.sb, as('refusal_reader'));
    const slots = await m.run(['slots', 'intro-call', '--json', '--days', '14']);
    expect(slots.code, show(slots)).toBe(0);
    const { reservationId, slots: times } = slots.json() as { reservationId: string; slots: string[] };
    const postsBefore = (await t.sb.state()).requests.filter((q) => q.method === 'POST').length;
    const r = await m.run([...bookSlotArgs('intro-call', times[1]!, reservationId, 'ro@acme.example'), '--json']);
    refused(r, /read-only.*ALTER ROLE refusal_reader SET default_transaction_read_only = off/);
    expect(r.json().error.message).toContain('nothing was sent');
    expect((await t.sb.state()).requests.filter((q) => q.method === 'POST').length).toBe(postsBefore);
  });

  it('a TLS file the URL names that is not there: the file named, the path to fix', SLOW, async () => {
    for (const param of ['sslrootcert', 'sslcert', 'sslkey']) {
      const missing = `/nonexistent/schedctl-test/${param}.pem`;
      const m = machine(t.sb, as('schedctl_test', `?sslmode=verify-full&${param}=${missing}`));
      for (const args of [
        ['state', 'status', '--json'],
        ['meetings', 'ls', '--json'],
      ]) {
        const r = await m.run(args);
        refused(r, /sslrootcert, sslcert or sslkey/);
        expect(r.json().error.message, show(r)).toContain(
          `the TLS file ${missing} named in the state URL cannot be read: no such file`,
        );
      }
      // A read that needs no ledger still works without the database.
      const read = await m.run(['triggers', 'ls', '--json']);
      expect(read.code, show(read)).toBe(0);
    }
  });

  it('state unlock without pg_signal_backend: the right to grant, or who can', SLOW, async () => {
    await schemaMade();
    await sql(
      'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO refusal_helper; GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO refusal_helper',
    );
    // A stuck holder: schedctl_test's session holding a lead's lock, with its holder record.
    const holder = new pg.Client({ connectionString: stateUrl });
    await holder.connect();
    try {
      const name = 'lead ws-test stuck@acme.example';
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [name]);
      const owner = {
        token: 't',
        pid: 4242,
        host: 'runner-1',
        user: 'ana',
        command: 'schedctl book',
        since: new Date().toISOString(),
      };
      await holder.query(
        'INSERT INTO schedctl_locks (name, lock_key, backend_pid, owner) VALUES ($1, hashtextextended($1, 0), pg_backend_pid(), $2)',
        [name, JSON.stringify(owner)],
      );
      const r = await machine(t.sb, as('refusal_helper')).run([
        'state',
        'unlock',
        'stuck@acme.example',
        '--force',
        '--json',
      ]);
      refused(r, /GRANT pg_signal_backend TO refusal_helper/);
      // Still held: nothing was released, the holder record kept.
      const held = await holder.query('SELECT 1');
      expect(held.rowCount).toBe(1);
      expect(await sql('SELECT count(*) FROM schedctl_locks')).toBe('1');
    } finally {
      await holder.end().catch(() => {});
    }
  });

  it('a schema written by a newer schedctl: the hint names the version that wrote it', SLOW, async () => {
    await schemaMade();
    expect(await sql(`SELECT value FROM schedctl_meta WHERE key = 'writer'`)).toMatch(/^schedctl \d+\.\d+\.\d+/);
    await sql(
      `UPDATE schedctl_meta SET value = '99' WHERE key = 'schema_version'; UPDATE schedctl_meta SET value = 'schedctl 7.3.1' WHERE key = 'writer'`,
    );
    const r = await machine(t.sb, stateUrl).run(['state', 'status', '--json']);
    refused(r, /schedctl@7\.3\.1/);
  });
});

describe('TLS modes in schedctl words', () => {
  it(
    'sslmode=require: one note of what it verifies and what to set, no SECURITY WARNING of the driver',
    SLOW,
    async () => {
      const r = await machine(t.sb, as('schedctl_test', '?sslmode=require')).run(['state', 'status', '--json']);
      expect(r.stderr, show(r)).not.toContain('SECURITY WARNING');
      const notes = r.stderr.split('\n').filter((l) => l.startsWith('note: sslmode=require'));
      expect(notes, show(r)).toHaveLength(1);
      expect(notes[0]).toMatch(/verifies the server's certificate.*sslmode=verify-full/);
      // The test's server takes no TLS: said as such, not as a database that is down.
      refused(r, /takes no TLS connections.*sslmode=disable/);
    },
  );
});
