import { describe, expect, it } from 'vitest';
import { setHolderCommand, holderCommand } from '../../src/state/holder-command.js';
import { clientConfigWith, TLS_CURVES, tlsNote } from '../../src/state/postgres/client-config.js';
import { refusalHint, tlsFileReason } from '../../src/state/postgres/refusals.js';
import { parse } from 'pg-connection-string';

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('refusalHint: what the database refused, and what to grant or set', () => {
  it('names the right on the tables, on the schema, or to end a session, and the role to give it to', () => {
    expect(refusalHint(pgError('42501', 'permission denied for table schedctl_meta'), 'ana')).toContain(
      'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ana',
    );
    expect(refusalHint(pgError('42501', 'permission denied for schema public'), 'ana')).toContain(
      'GRANT CREATE ON SCHEMA public TO ana',
    );
    expect(
      refusalHint(
        pgError(
          '42501',
          'must be a member of the role whose process is being terminated or member of pg_signal_backend',
        ),
        'ana',
      ),
    ).toContain('GRANT pg_signal_backend TO ana');
  });

  it('a read-only database or role; a server without TLS; a TLS file that cannot be read', () => {
    expect(refusalHint(pgError('25006', 'cannot execute INSERT in a read-only transaction'), 'ana')).toContain(
      'ALTER ROLE ana SET default_transaction_read_only = off',
    );
    expect(refusalHint(new Error('The server does not support SSL connections'), 'ana')).toContain('sslmode=disable');
    const missing = Object.assign(new Error("ENOENT: no such file or directory, open '/x/ca.pem'"), {
      code: 'ENOENT',
      path: '/x/ca.pem',
    });
    expect(refusalHint(missing, 'ana')).toContain('sslrootcert, sslcert or sslkey');
    expect(tlsFileReason(missing)).toBe('the TLS file /x/ca.pem named in the state URL cannot be read: no such file');
  });

  it('leaves what is not a refusal to the caller (a database that is down is said as such)', () => {
    expect(refusalHint(pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'ana')).toBeUndefined();
    expect(refusalHint(pgError('57P01', 'terminating connection due to administrator command'), 'ana')).toBeUndefined();
    expect(tlsFileReason(pgError('ECONNREFUSED', 'x'))).toBeUndefined();
  });
});

describe('tlsNote: the TLS mode in schedctl words', () => {
  it('says once what prefer, require and verify-ca verify, and what to write; nothing for what says itself', () => {
    for (const mode of ['prefer', 'require', 'verify-ca'])
      expect(tlsNote(`postgres://h/db?sslmode=${mode}`, {})).toMatch(
        new RegExp(`^note: sslmode=${mode} in the state URL: .*verifies the server's certificate.*sslmode=verify-full`),
      );
    expect(tlsNote('postgres://h/db', { PGSSLMODE: 'require' })).toMatch(/^note: PGSSLMODE=require: /);
    for (const url of ['postgres://h/db?sslmode=verify-full', 'postgres://h/db?sslmode=disable', 'postgres://h/db'])
      expect(tlsNote(url, {})).toBeUndefined();
    expect(tlsNote('postgres://h/db?sslmode=require&uselibpqcompat=true', {})).toBeUndefined();
  });

  it('parses an aliased mode as verify-full, so the driver has nothing to warn about', () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const config = clientConfigWith(parse, 'postgres://u@h/db?sslmode=require');
      expect(config.ssl).toEqual({ ecdhCurve: TLS_CURVES });
      expect(config.host).toBe('h');
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.includes('SECURITY WARNING'))).toEqual([]);
  });

  it("offers P-256 first with TLS (PostgreSQL's default curve: no HelloRetryRequest), and leaves a URL without TLS alone", () => {
    expect(TLS_CURVES.split(':')[0]).toBe('P-256');
    const ca = clientConfigWith(parse, 'postgres://u@h/db?sslmode=verify-full&ssl=true');
    expect(ca.ssl).toMatchObject({ ecdhCurve: TLS_CURVES });
    expect(clientConfigWith(parse, 'postgres://u@h/db?ssl=true').ssl).toEqual({ ecdhCurve: TLS_CURVES });
    expect(clientConfigWith(parse, 'postgres://u@h/db?sslmode=disable').ssl).toBe(false);
    // No sslmode in the URL: pg reads PGSSLMODE itself (ssl left undefined).
    expect(clientConfigWith(parse, 'postgres://u@h/db').ssl).toBeUndefined();
  });
});

describe("holderCommand: a lock holder's command, never its values", () => {
  it('keeps the command path and the option names it declares; drops every value and argument', () => {
    const known = new Set(['--trigger', '--email', '--field', '--json', '-p', '--profile']);
    setHolderCommand(
      ['route'],
      [
        'route',
        '--trigger',
        'Inbound',
        '--email=ada@acme.example',
        '--field',
        'notes=--json',
        '-p',
        'prod',
        '--',
        '--field',
      ],
      known,
    );
    expect(holderCommand()).toBe('schedctl route --trigger --email --field -p');
    setHolderCommand(['state', 'unlock'], ['state', 'unlock', 'ada@acme.example', '--force'], new Set(['--force']));
    expect(holderCommand()).toBe('schedctl state unlock --force');
    // Back to what a process outside a command says (the workers run test files one after another).
    setHolderCommand([], [], new Set());
    expect(holderCommand()).toBe('schedctl');
  });
});
