/**
 * A ledger that was there stays there, and versions cannot pass each other (issue 44, 1 and 2),
 * through the built CLI against the sandbox: an emptied ledger.db is refused (never taken for a
 * new ledger), a ledger missing a table is STATE_FILE, `state reset-ledger --yes` is the deliberate
 * way to a new one, and ledger documents of the previous format that appear beside a ledger this
 * version made first (`profile add`) are moved in: the lead keeps one meeting.
 */
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { show, type RunResult } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const cli = (args: string[], env: Record<string, string> = {}): Promise<RunResult> =>
  t.sb.cli(args, { configDir: t.dir, env });
const meetingsOf = async (email: string) => (await t.sb.state()).meetings.filter((m) => m.personEmail === email);

async function routed(email: string, region = 'emea') {
  const r = await cli([...demoRouteFirstArgs(email, region), '--json']);
  expect(r.code, show(r)).toBe(0);
  expect(r.json()).toMatchObject({ status: 'booked' });
  return r.json().meeting as Record<string, unknown> & { id: string; date: string; eventId: string };
}

describe('an emptied ledger.db', () => {
  it('is refused by route, meetings ls and state status (STATE_FILE naming it), and the lead keeps one meeting', async () => {
    const email = 'emptied@acme.example';
    const meeting = await routed(email);
    // A failed copy, a sync tool, an empty backup restored.
    writeFileSync(join(t.dir, 'ledger.db'), '');
    const db = join(t.dir, 'ledger.db');
    for (const args of [
      [...demoRouteFirstArgs(email, 'apac'), '--json'],
      ['meetings', 'ls', '--json'],
      ['state', 'status', '--json'],
    ]) {
      const r = await cli(args);
      expect(r.code, show(r)).toBe(1);
      expect(r.json().error.code).toBe('STATE_FILE');
      expect(r.json().error.message).toContain(`${db} is not a readable schedctl ledger database file (it is empty`);
      expect(r.json().error.message).toContain('schedctl state reset-ledger --yes');
    }
    expect(statSync(db).size).toBe(0);
    expect((await meetingsOf(email)).map((m) => m.id)).toEqual([meeting.id]);

    // The deliberate way past: asked for by name, the former file kept aside.
    const no = await cli(['state', 'reset-ledger']);
    expect(no.code, show(no)).toBe(2);
    expect(no.stderr).toContain('pass --yes');
    const yes = await cli(['state', 'reset-ledger', '--yes', '--json']);
    expect(yes.code, show(yes)).toBe(0);
    expect(yes.json()).toMatchObject({ ledger: db, ledgerId: expect.stringMatching(/^[0-9a-f]{12}$/) });
    expect(yes.json().setAside).toEqual([expect.stringMatching(/ledger\.db\.before-reset-/)]);
    const ls = await cli(['meetings', 'ls', '--json']);
    expect(ls.code, show(ls)).toBe(0);
    expect(ls.json()).toEqual([]);
  });

  it('a brand-new config directory still makes its ledger silently', async () => {
    const r = await routed('fresh@acme.example');
    expect(r.id).toBeTruthy();
    expect(readdirSync(t.dir)).toContain('ledger-id.json');
  });
});

describe('a ledger missing a table', () => {
  it('is STATE_FILE naming the file and the table, not UNEXPECTED', async () => {
    await routed('dropped@acme.example');
    const db = new DatabaseSync(join(t.dir, 'ledger.db'));
    db.exec('DROP TABLE schedctl_meetings');
    db.close();
    const r = await cli(['meetings', 'ls', '--json']);
    expect(r.code, show(r)).toBe(1);
    expect(r.json().error.code).toBe('STATE_FILE');
    expect(r.json().error.message).toContain('its table schedctl_meetings is missing');
  });
});

describe('documents of the previous format beside a ledger this version made first', () => {
  it('profile add makes ledger.db; the documents an older schedctl writes later are moved in: one meeting for the lead', async () => {
    const email = 'versions@acme.example';
    // The older schedctl's booking (another config directory: the meeting exists at the server).
    const other = t.dir;
    const meeting = await routed(email);
    t.dir = `${other}-second`;
    const add = await t.sb.cli(['profile', 'add', 'sb', '--key-stdin', '--base-url', t.sb.baseUrl, '--json'], {
      configDir: t.dir,
      input: `${t.sb.keys.full}\n`,
      env: { SCHEDCTL_API_KEY: '', SCHEDCTL_BASE_URL: '' },
    });
    expect(add.code, show(add)).toBe(0);
    expect(readdirSync(t.dir)).toContain('ledger.db');
    // What the last schedctl before the SQLite ledger wrote for that booking, over the stand-ins.
    const scope = `sb@${t.sb.baseUrl}`;
    const now = new Date().toISOString();
    writeFileSync(
      join(t.dir, 'meetings.json'),
      JSON.stringify({
        meetings: {
          [`${scope} ${meeting.id}`]: {
            ...meeting,
            scope,
            source: 'booked',
            recordedAt: now,
            event: meeting.eventId,
            history: [],
          },
        },
      }),
    );
    rmSync(join(t.dir, 'journal.json'));
    const again = await t.sb.cli([...demoRouteFirstArgs(email, 'apac'), '--json'], {
      configDir: t.dir,
      env: { SCHEDCTL_API_KEY: '', SCHEDCTL_BASE_URL: '', SCHEDCTL_PROFILE: 'sb' },
    });
    expect(again.code, show(again)).toBe(5);
    expect(again.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
    expect(again.json().error.message).toContain(meeting.id);
    expect(again.stderr).toContain('were moved into it');
    expect(await meetingsOf(email)).toHaveLength(1);
  });
});
