/**
 * Issue 52 finding 4: the ledger knows its age (Terraform's lineage and serial). A backup of
 * ledger.db taken before a booking, restored over it, used to route and book the lead again,
 * silently. The ledger counts its write steps and the config directory remembers the highest it
 * has seen: an older copy is refused naming the file, nothing sent, until `state accept-ledger`.
 */
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { show, tempDir } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const cli = (args: string[], dir = t.dir) => t.sb.cli(args, { configDir: dir });
const FILES = ['ledger.db', 'ledger.db-wal', 'ledger.db-shm'];

/** Copies the ledger's files (no schedctl process is running) from one folder to another, the missing ones removed. */
function copyLedger(from: string, to: string): void {
  for (const f of FILES) {
    rmSync(join(to, f), { force: true });
    if (existsSync(join(from, f))) copyFileSync(join(from, f), join(to, f));
  }
}

const meetingsOf = async (email: string) => (await t.sb.state()).meetings.filter((m) => m.personEmail === email);
/** What was sent that changes something: bookings, fires, moves. */
const changes = async () => (await t.sb.state()).requests.filter((r) => r.method === 'POST' || r.method === 'PATCH');
const bookings = async () => (await changes()).filter((r) => r.path === '/v1/scheduling/meetings').length;

describe('issue 52 finding 4: a restored older copy of ledger.db', () => {
  it('is refused naming the file before anything is booked; state accept-ledger takes it on purpose', async () => {
    const first = await cli([...demoRouteFirstArgs('kept@acme.example'), '--json']);
    expect(first.code, show(first)).toBe(0);
    const backup = tempDir();
    copyLedger(t.dir, backup);

    const booked = await cli([...demoRouteFirstArgs('ada-age@acme.example'), '--json']);
    expect(booked.code, show(booked)).toBe(0);
    copyLedger(backup, t.dir);

    const sentBefore = await bookings();
    const changedBefore = (await changes()).length;
    const again = await cli([...demoRouteFirstArgs('ada-age@acme.example'), '--json']);
    expect(again.code, show(again)).toBe(1);
    expect(again.json().error.code).toBe('STATE_FILE');
    expect(again.json().error.message).toContain(join(t.dir, 'ledger.db'));
    expect(again.json().error.message).toMatch(/older copy/);
    expect(again.json().error.message).toContain('schedctl state accept-ledger');
    expect(await bookings(), 'nothing was booked').toBe(sentBefore);
    expect((await changes()).length, 'nothing was fired either').toBe(changedBefore);
    expect(await meetingsOf('ada-age@acme.example')).toHaveLength(1);
    // Every command that reads the ledger says so, not only a booking.
    const ls = await cli(['meetings', 'ls', '--json']);
    expect(ls.code, show(ls)).toBe(1);

    const accepted = await cli(['state', 'accept-ledger', '--json']);
    expect(accepted.code, show(accepted)).toBe(0);
    expect(accepted.json()).toMatchObject({ ledger: join(t.dir, 'ledger.db'), was: { serial: expect.any(Number) } });
    expect(accepted.json().serial).toBeLessThan(accepted.json().was.serial);
    // Accepted: the ledger is used as it is, by the rule: the lead it knows is not booked again.
    const kept = await cli([...demoRouteFirstArgs('kept@acme.example'), '--json']);
    expect(kept.code, show(kept)).toBe(0);
    expect(kept.json().status).toBe('already_booked');
    expect(await meetingsOf('kept@acme.example')).toHaveLength(1);
    // The timeline is the accepted copy's: the lead it forgot has no record in it (said, not hidden).
    const forgot = await cli(['meetings', 'history', 'ada-age@acme.example', '--json']);
    expect(forgot.code, show(forgot)).toBe(0);
    expect(forgot.json().entries).toEqual([]);
    const known = await cli(['meetings', 'history', 'kept@acme.example', '--json']);
    expect(known.json().entries.map((e: { kind: string }) => e.kind)).toContain('meeting');
  });

  it('a ledger copied from another config directory is refused too; the first use of a config directory accepts silently', async () => {
    const other = tempDir();
    const there = await cli([...demoRouteFirstArgs('elsewhere@acme.example'), '--json'], other);
    expect(there.code, show(there)).toBe(0);
    const here = await cli([...demoRouteFirstArgs('here@acme.example'), '--json']);
    expect(here.code, show(here)).toBe(0);
    copyLedger(other, t.dir);
    const refused = await cli(['meetings', 'ls', '--json']);
    expect(refused.code, show(refused)).toBe(1);
    expect(refused.json().error.message).toContain('another ledger');
    expect(refused.json().error.message).toContain('schedctl state accept-ledger');
    expect((await cli(['state', 'accept-ledger'])).code).toBe(0);
    const ls = await cli(['meetings', 'ls', '--json']);
    expect(ls.code, show(ls)).toBe(0);
    expect(ls.json().map((m: { personEmail: string }) => m.personEmail)).toEqual(['elsewhere@acme.example']);
    // A fresh config directory given a copy (nothing remembered): accepted silently.
    const fresh = tempDir();
    copyLedger(other, fresh);
    const first = await cli(['meetings', 'ls', '--json'], fresh);
    expect(first.code, show(first)).toBe(0);
  });
});
