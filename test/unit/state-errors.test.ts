/**
 * The state store's failures as a user (or a script reading `--json`) sees them: code, exit
 * code, one-line message, hint. Each constructor is called directly with what its callers pass.
 */
import { describe, expect, it } from 'vitest';
import { CliError, EXIT } from '../../src/errors.js';
import {
  describeHolder,
  describeOsError,
  errnoCode,
  LeadBusyError,
  LeadLockLostError,
  StateFileError,
  StateLockError,
  StateTooNewError,
  StateUnavailableError,
  StateWriteError,
} from '../../src/state/errors.js';

/** An error as node:fs throws it: `code`, and the path at the end of the message. */
const osError = (code: string, text: string, syscall = 'open', path = '/cfg/ledger.db') =>
  Object.assign(new Error(`${code}: ${text}, ${syscall} '${path}'`), { code, syscall, path });

const holder = {
  pid: 4242,
  host: 'host-a',
  user: 'bob',
  command: 'schedctl route\n  leads.csv',
  since: '2031-03-01T18:40:01.000Z',
};

const DEFAULT_WRITE_HINT = 'check the permissions and free space of the configuration directory';
const DEFAULT_TEAM_HINT =
  "check that the database is up and reachable (psql with the same settings); to work with this machine's state only, set SCHEDCTL_STATE_URL=local (a --profile with a team state of its own still uses that)";

describe('StateFileError: a state file that exists but does not read', () => {
  it('names the file and the kind, says it is never overwritten, exit 1', () => {
    const e = new StateFileError('/cfg/config.json', 'profile', 'Unexpected end of JSON input');
    expect(e).toBeInstanceOf(CliError);
    expect(e.name).toBe('StateFileError');
    expect(e.code).toBe('STATE_FILE');
    expect(e.exitCode).toBe(EXIT.error);
    expect(e.path).toBe('/cfg/config.json');
    expect(e.message).toBe(
      '/cfg/config.json is not a readable schedctl profile file (Unexpected end of JSON input): move it aside and schedctl recreates it; nothing else was touched',
    );
    expect(e.hint).toBeUndefined();
  });

  it('puts a reason of several lines (a validation report) on one line, each run of blanks as one space', () => {
    const e = new StateFileError(
      '/cfg/fires.json',
      'fires',
      '\n  fires.0.id: Required\n\tfires.1.state:   Invalid  \n',
    );
    expect(e.message).toBe(
      '/cfg/fires.json is not a readable schedctl fires file (fires.0.id: Required fires.1.state: Invalid): move it aside and schedctl recreates it; nothing else was touched',
    );
  });
});

describe('StateWriteError: nothing could be saved', () => {
  it('names the path and the OS error once (the path is not repeated), keeps the cause, exit 1', () => {
    const cause = osError('EACCES', 'permission denied', 'open', '/cfg/config.json');
    const e = new StateWriteError('/cfg/config.json', cause);
    expect(e.code).toBe('STATE_WRITE');
    expect(e.exitCode).toBe(EXIT.error);
    expect(e.path).toBe('/cfg/config.json');
    expect(e.osCode).toBe('EACCES');
    expect(e.cause).toBe(cause);
    expect(e.message).toBe('cannot write /cfg/config.json (EACCES: permission denied): nothing was saved');
  });

  it.each([
    ['EACCES', 'make the directory writable by you, or point SCHEDCTL_CONFIG_DIR at one that is'],
    ['EPERM', 'make the directory writable by you, or point SCHEDCTL_CONFIG_DIR at one that is'],
    ['EROFS', 'the file system is read-only: point SCHEDCTL_CONFIG_DIR at a writable directory'],
    ['ENOSPC', 'the disk is full: free some space and run the command again'],
    ['EDQUOT', 'the disk quota is exhausted: free some space and run the command again'],
    ['ENOTDIR', 'a part of the path is a file, not a directory: point SCHEDCTL_CONFIG_DIR elsewhere'],
  ])('gives the hint that fits %s', (code, hint) => {
    const e = new StateWriteError('/cfg', osError(code, 'failed'));
    expect(e.osCode).toBe(code);
    expect(e.hint).toBe(hint);
    expect(e.toDocument().error.hint).toBe(hint);
  });

  it('falls back on a general hint for an OS error it has no advice for, and for an error without a code', () => {
    const eio = new StateWriteError('/cfg/ledger.db', osError('EIO', 'i/o error', 'write'));
    expect(eio.osCode).toBe('EIO');
    expect(eio.hint).toBe(DEFAULT_WRITE_HINT);
    expect(eio.message).toBe('cannot write /cfg/ledger.db (EIO: i/o error): nothing was saved');

    const plain = new StateWriteError('/cfg/ledger.db', new Error('the migration failed'));
    expect(plain.osCode).toBeUndefined();
    expect(plain.hint).toBe(DEFAULT_WRITE_HINT);
    expect(plain.message).toBe('cannot write /cfg/ledger.db (the migration failed): nothing was saved');
  });
});

describe('StateLockError: another process kept the lock past the wait', () => {
  it('for a lock file: says which, and the lock to remove if no schedctl runs', () => {
    const e = new StateLockError('/cfg/config.json');
    expect(e.code).toBe('STATE_LOCK');
    expect(e.exitCode).toBe(EXIT.error);
    expect(e.path).toBe('/cfg/config.json');
    expect(e.message).toBe(
      'another schedctl process holds /cfg/config.json for too long; if none is running, remove /cfg/config.json.lock',
    );
  });

  it("for a database's own lock: names the database, says nothing was written, and no lock file to remove", () => {
    const e = new StateLockError('/cfg/ledger.db', 'ledger database');
    expect(e.code).toBe('STATE_LOCK');
    expect(e.exitCode).toBe(EXIT.error);
    expect(e.message).toBe(
      'another process has held ledger database /cfg/ledger.db in a write for too long (a schedctl that hangs?): nothing was written; end it, or run this again once it has finished',
    );
    expect(e.message).not.toContain('.lock');
  });
});

describe('StateTooNewError: a file of a newer schedctl', () => {
  it('says both schema versions, that nothing was read or changed, and how to go on', () => {
    const e = new StateTooNewError('/cfg/ledger.db', 4, 1);
    expect(e.code).toBe('STATE_FILE');
    expect(e.exitCode).toBe(EXIT.error);
    expect(e.path).toBe('/cfg/ledger.db');
    expect(e.message).toBe(
      '/cfg/ledger.db was written by a newer schedctl (ledger schema 4; this one knows 1): nothing was read or changed',
    );
    expect(e.hint).toBe(
      'use the newer schedctl (npm install -g schedctl@latest), or point SCHEDCTL_CONFIG_DIR elsewhere',
    );
  });
});

describe('describeHolder', () => {
  it('names pid, host, user, since and the command (on one line)', () => {
    expect(describeHolder(holder)).toBe(
      'pid 4242 on host-a (bob, since 2031-03-01T18:40:01.000Z: schedctl route leads.csv)',
    );
  });

  it('says so when the holder wrote nothing about itself', () => {
    expect(describeHolder(undefined)).toBe('a schedctl run that has not said who it is');
  });
});

describe('LeadBusyError: another run kept booking the same lead', () => {
  it('names the lead, the wait and the holder; the hint says how to end it and which lock to remove (exit 5)', () => {
    const e = new LeadBusyError('Ada@Acme.example', '/cfg/leads/0a1b.lock', 120_000, holder);
    expect(e.code).toBe('LEAD_BUSY');
    expect(e.exitCode).toBe(EXIT.conflict);
    expect(e.message).toBe(
      'another schedctl run has been booking Ada@Acme.example for over 120 s: pid 4242 on host-a (bob, since 2031-03-01T18:40:01.000Z: schedctl route leads.csv); nothing was sent',
    );
    expect(e.hint).toBe(
      'run this again once it has finished (it will find that booking on record); if that run is stuck, end it (kill 4242 on host-a): its lock is taken over at once on its own machine, and from another once its heartbeat has stopped for a few seconds; if it is gone for good, remove /cfg/leads/0a1b.lock',
    );
  });

  it('with the team state: the command that releases the lock; with no holder known, no pid to kill', () => {
    const e = new LeadBusyError('meeting m-7', { command: 'schedctl state unlock meeting m-7' }, 1_500);
    expect(e.message).toBe(
      'another schedctl run has been booking meeting m-7 for over 2 s: a schedctl run that has not said who it is; nothing was sent',
    );
    // A wait under a second (test timings) is said in ms, not "over 0 s".
    expect(new LeadBusyError('x', '/l', 400).message).toMatch(/ for over 400 ms: /);
    expect(e.hint).toBe(
      'run this again once it has finished (it will find that booking on record); if that run is stuck, end it: its lock ends with its connection to the team database; if it is gone for good, run schedctl state unlock meeting m-7',
    );
  });
});

describe('LeadLockLostError: the lock was taken over while this run waited', () => {
  it('names the new holder, says nothing was sent, exit 5', () => {
    const e = new LeadLockLostError('Ada@Acme.example', holder);
    expect(e.code).toBe('LEAD_LOCK_LOST');
    expect(e.exitCode).toBe(EXIT.conflict);
    expect(e.message).toBe(
      'this run lost its lock on Ada@Acme.example before sending (now held by pid 4242 on host-a (bob, since 2031-03-01T18:40:01.000Z: schedctl route leads.csv)); nothing was sent',
    );
    expect(e.hint).toBe('run the command again: it will find what the other run did on record');
  });

  it('says the lock was removed when nobody holds it now', () => {
    const e = new LeadLockLostError('meeting m-7', undefined);
    expect(e.message).toBe('this run lost its lock on meeting m-7 before sending (it was removed); nothing was sent');
    expect(e.hint).toBe('run the command again: it will find what the other run did on record');
  });
});

describe('StateUnavailableError: the team state cannot be used', () => {
  const where = 'postgres://sched@db.example:5432/ledger';

  it('by default: nothing was sent, the general hint, exit 9', () => {
    const e = new StateUnavailableError(where, 'connect ECONNREFUSED 10.0.0.5:5432');
    expect(e).toBeInstanceOf(CliError);
    expect(e.code).toBe('STATE_UNAVAILABLE');
    expect(e.exitCode).toBe(EXIT.stateUnavailable);
    expect(e.exitCode).toBe(9);
    expect(e.message).toBe(
      `the team state at ${where} cannot be used (connect ECONNREFUSED 10.0.0.5:5432); nothing was sent`,
    );
    expect(e.hint).toBe(DEFAULT_TEAM_HINT);
  });

  it("keeps the caller's hint, and puts a reason of several lines on one", () => {
    const e = new StateUnavailableError(
      where,
      'the schema is version 4\n   this schedctl knows 3',
      'use the newer schedctl',
      false,
    );
    expect(e.message).toBe(
      `the team state at ${where} cannot be used (the schema is version 4 this schedctl knows 3); nothing was sent`,
    );
    expect(e.hint).toBe('use the newer schedctl');
  });

  it('after a request that cannot be repeated was sent: does not claim that nothing was sent', () => {
    const e = new StateUnavailableError(where, 'Connection terminated unexpectedly', undefined, true);
    expect(e.message).toBe(`the team state at ${where} cannot be used (Connection terminated unexpectedly)`);
    expect(e.message).not.toContain('sent');
    expect(e.hint).toBe(DEFAULT_TEAM_HINT);
  });

  it('names what was not sent when something else already was', () => {
    const e = new StateUnavailableError(where, 'timeout', undefined, { notSent: 'the booking of row 3' });
    expect(e.message).toBe(`the team state at ${where} cannot be used (timeout); the booking of row 3 was not sent`);
  });
});

describe('errnoCode', () => {
  it("reads an OS error's string code", () => {
    expect(errnoCode(osError('ENOSPC', 'no space left on device', 'write'))).toBe('ENOSPC');
  });

  it('is undefined for anything else: no code, a numeric code, null, a string', () => {
    expect(errnoCode(new Error('plain'))).toBeUndefined();
    expect(errnoCode(Object.assign(new Error('sqlite'), { code: 5 }))).toBeUndefined();
    expect(errnoCode(null)).toBeUndefined();
    expect(errnoCode(undefined)).toBeUndefined();
    expect(errnoCode('EACCES')).toBeUndefined();
  });
});

describe('describeOsError', () => {
  it("says the code and the OS's words, without the path the message already names", () => {
    expect(describeOsError(osError('EACCES', 'permission denied'))).toBe('EACCES: permission denied');
    expect(
      describeOsError(
        Object.assign(new Error("EXDEV: cross-device link not permitted, rename '/a/x.tmp' -> '/b/x'"), {
          code: 'EXDEV',
        }),
      ),
    ).toBe('EXDEV: cross-device link not permitted');
  });

  it('puts the code first when the message does not start with it', () => {
    expect(
      describeOsError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })),
    ).toBe('ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432');
  });

  it('removes only a leading code and a path clause at the very end: the rest of the message is kept', () => {
    expect(
      describeOsError(Object.assign(new Error('fsync failed (NFS: server not responding)'), { code: 'EIO' })),
    ).toBe('EIO: fsync failed (NFS: server not responding)');
    expect(
      describeOsError(Object.assign(new Error("EIO: i/o error, open '/cfg/a' (then retried)"), { code: 'EIO' })),
    ).toBe("EIO: i/o error, open '/cfg/a' (then retried)");
  });

  it('gives the message of an error without a code as it is, on one line, and a thrown non-error as text', () => {
    expect(describeOsError(new Error('  database disk image\n  is malformed  '))).toBe(
      'database disk image is malformed',
    );
    expect(describeOsError('disk gone')).toBe('disk gone');
    expect(describeOsError(undefined)).toBe('undefined');
  });
});
