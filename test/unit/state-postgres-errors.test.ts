/**
 * The team connection's pure parts (postgres/connect.ts, client-config.ts): what a failure says
 * in one line and never with the password, which failures are the database's (and so may be kept
 * after a send) and which are a refusal, the guard's own failures, `?` as `$n`, and the settings
 * a state URL becomes.
 */
import { parse } from 'pg-connection-string';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CONNECT_TIMEOUT_MS,
  clientConfigWith,
  QUERY_TIMEOUT_MS,
  TLS_CURVES,
  tlsNote,
} from '../../src/state/postgres/client-config.js';
import { describePgError, isConnectionFailure, isGuardFailure, toPg } from '../../src/state/postgres/connect.js';

const saved = process.env.PGPASSWORD;
afterEach(() => {
  if (saved === undefined) delete process.env.PGPASSWORD;
  else process.env.PGPASSWORD = saved;
});

describe('describePgError: one line, never the password', () => {
  it('says the common failures in words', () => {
    expect(
      describePgError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })),
    ).toBe('connection refused');
    expect(describePgError(Object.assign(new Error('getaddrinfo ENOTFOUND db'), { code: 'ENOTFOUND' }))).toBe(
      'unknown host',
    );
    expect(describePgError(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'))).toBe(
      'the server asks for a password and none was given (the URL, PGPASSWORD or ~/.pgpass)',
    );
    for (const m of ['Query read timeout', 'timeout expired', 'the query timed out'])
      expect(describePgError(new Error(m))).toBe('no answer in time');
    expect(describePgError({ code: 'ENOENT', path: '/etc/ca.pem', message: 'ENOENT: no such file' })).toBe(
      'the TLS file /etc/ca.pem named in the state URL cannot be read: no such file',
    );
  });

  it("keeps the database's own words on one line, the secret masked wherever it stands", () => {
    expect(describePgError(new Error('relation "x"\n   does not exist'))).toBe('relation "x" does not exist');
    expect(describePgError(new Error('password authentication failed for "hunter2", hunter2'), 'hunter2')).toBe(
      'password authentication failed for "***", ***',
    );
    expect(describePgError('plain words')).toBe('plain words');
    expect(describePgError(null)).toBe('null');
    expect(describePgError({ message: '' })).toBe('[object Object]');
    expect(describePgError({ message: 42 })).toBe('[object Object]');
  });
});

describe('isConnectionFailure: the database (or the way to it) failed, rather than refused', () => {
  it('by SQLSTATE class 08 or 57P, or a system error code', () => {
    for (const code of ['08006', '08001', '57P01', '57P03', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED'])
      expect(isConnectionFailure({ code }), code).toBe(true);
    for (const code of ['23505', '42501', '23080', 'XEPIPE', 'EPIPE1', 'E1', 'e', ''])
      expect(isConnectionFailure({ code }), code).toBe(false);
    expect(isConnectionFailure({ code: 8006 })).toBe(false);
  });

  it("by the driver's words for a lost connection", () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'connection timeout expired',
      'timeout expired',
      'Query read timeout',
      'Client has encountered a connection error and is not queryable',
    ])
      expect(isConnectionFailure(new Error(message)), message).toBe(true);
    expect(isConnectionFailure(new Error('duplicate key value violates unique constraint'))).toBe(false);
    expect(isConnectionFailure({ message: 5 })).toBe(false);
    expect(isConnectionFailure(null)).toBe(false);
  });
});

describe('the schema guard and placeholders', () => {
  it("counts the guard's division by zero and a missing table as its failures, nothing else", () => {
    expect(isGuardFailure({ code: '22012' })).toBe(true);
    expect(isGuardFailure({ code: '42P01' })).toBe(true);
    expect(isGuardFailure({ code: '23505' })).toBe(false);
    expect(isGuardFailure(null)).toBe(false);
  });

  it('numbers each ? in order, the same text each time', () => {
    expect(toPg('SELECT ? AS a, ? AS b WHERE c = ?')).toBe('SELECT $1 AS a, $2 AS b WHERE c = $3');
    expect(toPg('SELECT ? AS a, ? AS b WHERE c = ?')).toBe('SELECT $1 AS a, $2 AS b WHERE c = $3');
    expect(toPg('SELECT 1')).toBe('SELECT 1');
  });
});

describe('clientConfigWith: a state URL as the driver settings', () => {
  const config = (url: string) => clientConfigWith(parse, url) as Record<string, unknown>;

  it("takes the URL's parts, leaves what it leaves empty to libpq's variables, and adds schedctl's own", () => {
    const c = config('postgres://ann:pw@db.example:6543/team');
    expect(c).toMatchObject({ user: 'ann', password: 'pw', host: 'db.example', port: '6543', database: 'team' });
    expect(c).toMatchObject({
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      keepAlive: true,
      application_name: 'schedctl',
    });
    for (const bare of ['postgres://', 'postgresql://']) {
      const b = config(bare);
      expect(b).not.toHaveProperty('host');
      expect(b).not.toHaveProperty('database');
      expect(b.application_name).toBe('schedctl');
    }
    // An empty part is no value: the environment's applies (as in libpq).
    const empty = config('postgres://db.example/');
    expect(empty.host).toBe('db.example');
    expect(empty).not.toHaveProperty('database');
    expect(empty).not.toHaveProperty('user');
  });

  it('without a password in the URL, asks PGPASSWORD (then ~/.pgpass) when connecting', async () => {
    const c = config('postgres://ann@db.example/team');
    expect(typeof c.password).toBe('function');
    process.env.PGPASSWORD = 'from-env';
    await expect((c.password as (p: object) => Promise<string>)({ host: 'db.example', user: 'ann' })).resolves.toBe(
      'from-env',
    );
  });

  it('with TLS, offers P-256 first and keeps what the URL set; without, leaves ssl alone', () => {
    expect(config('postgres://db.example/team?sslmode=verify-full').ssl).toMatchObject({ ecdhCurve: TLS_CURVES });
    expect(config('postgres://db.example/team?ssl=true').ssl).toEqual({ ecdhCurve: TLS_CURVES });
    expect(config('postgres://db.example/team?sslmode=disable').ssl).toBe(false);
    expect(config('postgres://db.example/team')).not.toHaveProperty('ssl');
  });
});

describe('tlsNote: where the mode was said', () => {
  it("names the URL's mode, else PGSSLMODE's; nothing when the URL names a mode of its own", () => {
    expect(tlsNote('postgres://h/d?sslmode=prefer', {})).toMatch(/^note: sslmode=prefer in the state URL:/);
    expect(tlsNote('postgres://h/d', { PGSSLMODE: 'require' })).toMatch(/^note: PGSSLMODE=require:/);
    expect(tlsNote('postgres://h/d?sslmode=disable', { PGSSLMODE: 'require' })).toBeUndefined();
    expect(tlsNote('postgres://h/d?a=1&sslmode=verify-full', { PGSSLMODE: 'require' })).toBeUndefined();
    expect(tlsNote('postgres://h/d?sslmode=require&uselibpqcompat=true', {})).toBeUndefined();
    expect(tlsNote('postgres://h/d', { PGSSLMODE: 'disable' })).toBeUndefined();
    expect(tlsNote('postgres://h/d', {})).toBeUndefined();
  });
});
