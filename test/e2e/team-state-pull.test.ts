/**
 * `schedctl state pull` (issue 37, item 9): the team state's ledger into this machine's, the
 * other way from `state push`. Against the file's own PostgreSQL: a meeting booked by one
 * machine is pulled by another, which then knows it on its own files (SCHEDCTL_STATE_URL=local:
 * it refuses to book the lead twice); a second pull changes nothing and says so; an attempt
 * this machine had as unknown takes the outcome the team learnt.
 */
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { bookSlotArgs } from '../helpers/args.js';
import { show } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { useSandbox } from '../helpers/sandbox.js';
import { dbName, machine, type Machine } from '../helpers/team.js';

const fx = usePostgres();
const t = useSandbox({ holdSeconds: 60 });
const SLOW = { timeout: 90_000 };

let stateUrl = '';
beforeEach(async () => {
  stateUrl = await fx.pg.createDatabase();
});
const sql = (query: string) => fx.pg.psql(query, dbName(stateUrl));
const LOCAL = { SCHEDCTL_STATE_URL: 'local' };

/** A time and a reservation to book with, over HTTP (the sandbox is every machine's). */
const freshSlots = (_m: Machine, event: string) => t.sb.slots(event, 14);

describe('state pull', () => {
  it(
    "copies the team's ledger to this machine once, counted per table; a second pull changes nothing and says so",
    SLOW,
    async () => {
      const email = 'pulled@acme.example';
      const a = machine(t.sb, stateUrl);
      const s = await freshSlots(a, 'intro-call');
      const booked = await a.run([...bookSlotArgs('intro-call', s.slots[1]!, s.reservationId, email), '--json']);
      expect(booked.code, show(booked)).toBe(0);

      const b = machine(t.sb, stateUrl);
      const first = await b.run(['state', 'pull', '--json']);
      expect(first.code, show(first)).toBe(0);
      const one = first.json();
      expect(one).toMatchObject({ from: stateUrl, to: b.dir });
      expect(Object.keys(one.pulled).sort()).toEqual([
        'events',
        'fires',
        'journal',
        'meetings',
        'outcomes',
        'workspaceKeys',
      ]);
      // The key's workspace comes with the records (a key rotated elsewhere finds its leads here).
      expect(one.pulled.workspaceKeys).toBeGreaterThanOrEqual(1);
      expect(one.pulled).toMatchObject({ journal: 1, meetings: 1 });
      for (const n of Object.values<number>(one.alreadyHere)) expect(n).toBe(0);
      const total = Object.values<number>(one.pulled).reduce((x, y) => x + y, 0);

      // On its own files now, machine B knows the lead's meeting: it lists it and books the lead no second time.
      const listed = await b.run(['meetings', 'ls', '--json', '--email', email], LOCAL);
      expect(listed.code, show(listed)).toBe(0);
      expect(listed.json<Array<{ id: string }>>().map((m) => m.id)).toEqual([booked.json().meeting.id]);
      const s2 = await freshSlots(b, 'intro-call');
      const again = await b.run(
        [...bookSlotArgs('intro-call', s2.slots[3]!, s2.reservationId, email), '--json'],
        LOCAL,
      );
      expect(again.code, show(again)).toBe(5);
      expect(again.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });

      const second = await b.run(['state', 'pull', '--json']);
      expect(second.code, show(second)).toBe(0);
      for (const n of Object.values<number>(second.json().pulled)) expect(n).toBe(0);
      expect(Object.values<number>(second.json().alreadyHere).reduce((x, y) => x + y, 0)).toBe(total);
      const text = await b.run(['state', 'pull']);
      expect(text.code, show(text)).toBe(0);
      expect(text.stdout).toContain(`Nothing to copy: ${b.dir} already has all ${total} record(s)`);
      // The team state is left as it was.
      expect(await sql('SELECT count(*) FROM schedctl_meetings')).toBe('1');
    },
  );

  it(
    'an attempt this machine has as unknown takes the outcome the team learnt; other rows stay as they are',
    SLOW,
    async () => {
      const email = 'learnt@acme.example';
      const a = machine(t.sb, stateUrl);
      const s = await freshSlots(a, 'intro-call');
      const booked = await a.run([...bookSlotArgs('intro-call', s.slots[1]!, s.reservationId, email), '--json']);
      expect(booked.code, show(booked)).toBe(0);
      // Machine B pulled while the team had the attempt as unknown (its answer lost), then the team learnt it.
      await sql(`UPDATE schedctl_attempts SET outcome = 'unknown'`);
      const b = machine(t.sb, stateUrl);
      expect((await b.run(['state', 'pull', '--json'])).code).toBe(0);
      await sql(`UPDATE schedctl_attempts SET outcome = 'booked'`);
      const r = await b.run(['state', 'pull', '--json']);
      expect(r.code, show(r)).toBe(0);
      expect(r.json().pulled).toMatchObject({ journal: 1, meetings: 0 });
      const db = new DatabaseSync(join(b.dir, 'ledger.db'), { readOnly: true });
      try {
        expect(db.prepare('SELECT outcome FROM schedctl_attempts').all()).toEqual([{ outcome: 'booked' }]);
      } finally {
        db.close();
      }
    },
  );

  it('needs a team state (exit 2, saying how to name one)', async () => {
    const r = await machine(t.sb, undefined).run(['state', 'pull', '--json']);
    expect(r.code, show(r)).toBe(2);
    expect(r.json().error.message).toContain('`schedctl state pull` needs a team state');
  });
});
