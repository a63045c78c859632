/**
 * Issue 54: `--jq <expression>` on every command that prints --json, as gh's `--jq`. Table-driven:
 * each command of docs/json-output.md's table runs with --json, then with --jq, and the filter's
 * results are those of jq over the --json document (strings raw, the rest compact JSON, one a
 * line). A bad expression is exit 2 naming it, before any request; a bulk run filters each line.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_TRIGGER, demoFireArgs, demoRouteFirstArgs } from '../helpers/args.js';
import { show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const cli = (args: string[], opts: { input?: string } = {}) =>
  t.sb.cli(args, { configDir: t.dir, env: { TZ: 'UTC' }, ...opts });

/** What `--jq 'if type == "object" then keys else length end'` prints for a document. */
const KEYS_OR_LENGTH = 'if type == "object" then keys else length end';
const expected = (doc: unknown) => JSON.stringify(Array.isArray(doc) ? doc.length : Object.keys(doc as object).sort());

interface Row {
  /** The docs table's command cell. */
  documented: string;
  /** The command line (its setup done by `before`), without --json or --jq. */
  args: () => Promise<string[]> | string[];
  /** It changes something: the --json and --jq runs are two runs, each on its own fresh state. */
  writes?: boolean;
}

const futureSlot = async (n: number) => (await t.sb.slots('intro-call', 14)).slots[n]!;
const bookedId = async (email: string, at?: string) => {
  const r = await cli(['book', 'intro-call', '--email', email, '--start', at ?? (await futureSlot(1)), '--json']);
  expect(r.code, show(r)).toBe(0);
  return r.json<{ meeting: { id: string } }>().meeting.id;
};
const triggerId = async () =>
  (await cli(['triggers', 'ls', '--json']))
    .json<{ triggers: Array<{ id: string; name: string }> }>()
    .triggers.find((x) => x.name === DEMO_TRIGGER)!.id;

const ROWS: Row[] = [
  { documented: 'route', args: () => demoRouteFirstArgs('ada@acme.example'), writes: true },
  { documented: 'triggers ls', args: () => ['triggers', 'ls'] },
  { documented: 'triggers show <trigger>', args: async () => ['triggers', 'show', await triggerId()] },
  { documented: 'trigger fire <trigger>', args: () => demoFireArgs('bo@acme.example'), writes: true },
  { documented: 'events ls', args: () => ['events', 'ls'] },
  { documented: 'events show <event>', args: () => ['events', 'show', 'intro-call'] },
  { documented: 'slots <event-or-link>', args: () => ['slots', 'intro-call'] },
  {
    documented: 'book <event-or-link>',
    args: async () => ['book', 'intro-call', '--email', 'cy@acme.example', '--start', await futureSlot(2)],
    writes: true,
  },
  {
    documented: 'reschedule <meeting-id>',
    args: async () => {
      // A later day at the meeting's time of day: its host works then (the event's other free
      // times may be another host's, which a move of this meeting is refused: CONFLICT).
      const at = await futureSlot(1);
      const id = await bookedId('di@acme.example', at);
      const { slots } = await t.sb.slots('intro-call', 14);
      return ['reschedule', id, '--start', slots.find((x) => x > at && x.slice(11, 16) === at.slice(11, 16))!];
    },
    writes: true,
  },
  { documented: 'meetings ls', args: async () => (await bookedId('ed@acme.example'), ['meetings', 'ls']) },
  {
    documented: 'meetings show <meeting-id>',
    args: async () => ['meetings', 'show', await bookedId('fa@acme.example')],
  },
  {
    documented: 'meetings history <email>',
    args: async () => (await bookedId('gi@acme.example'), ['meetings', 'history', 'gi@acme.example']),
  },
  { documented: 'api <METHOD> <path>', args: () => ['api', 'GET', '/v1/triggers'] },
  { documented: 'smoke', args: () => ['smoke'], writes: true },
  {
    documented: 'profile add <name>',
    args: () => ['profile', 'add', 'p1', '--key-stdin', '--no-verify', '--force'],
    writes: true,
  },
  { documented: 'profile show [name]', args: () => ['profile', 'show'] },
  { documented: 'profile ls', args: () => ['profile', 'ls'] },
  { documented: 'profile use <name>', args: () => ['profile', 'use', 'p1'] },
  { documented: 'profile rm <name>', args: () => ['profile', 'rm', 'p1'], writes: true },
  { documented: 'state status', args: () => ['state', 'status'] },
  { documented: 'state reset-ledger --yes', args: () => ['state', 'reset-ledger', '--yes'] },
  {
    documented: 'state accept-ledger',
    args: async () => (await bookedId('ha@acme.example'), ['state', 'accept-ledger']),
  },
  { documented: 'completion <shell>', args: () => ['completion', 'bash'] },
  { documented: 'help <topic>', args: () => ['help', 'formatting'] },
];

/**
 * Documented commands not run here, and why: the filter is the same one place (run/jq-output.ts)
 * for them. state push/pull/unlock need a team state (PostgreSQL: test/e2e/team-state*.test.ts);
 * `sandbox` runs until stopped (its one line is filtered as it is written); `--version` is a flag.
 */
const NOT_RUN = new Set(['state push', 'state pull', 'state unlock <email>', 'sandbox', '--version', 'route --file']);

describe('--jq on every --json command', () => {
  it('covers every command of docs/json-output.md', () => {
    const table = readFileSync(join(import.meta.dirname, '../../docs/json-output.md'), 'utf8');
    const documented = [...table.matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1]!);
    const covered = new Set([...ROWS.map((r) => r.documented), ...NOT_RUN]);
    expect(documented.filter((d) => !covered.has(d))).toEqual([]);
  });

  it.each(ROWS)("$documented: --jq prints jq's results over the --json document", async (row) => {
    const key = { input: `${t.sb.keys.full}\n` };
    const addP1 = ['profile', 'add', 'p1', '--key-stdin', '--no-verify', '--force'];
    if (/^profile (show|use|rm)/.test(row.documented)) expect((await cli(addP1, key)).code).toBe(0);
    const args = await row.args();
    const opts = row.documented.startsWith('profile add') ? key : {};
    if (row.writes) {
      // A write runs once (a second run is another booking, another fire): the filter gets the
      // document and the keys it computed from it, both, and they must agree.
      const r = await cli([...args, '--jq', `[${KEYS_OR_LENGTH}, .] | tojson`], opts);
      expect(r.code, show(r)).toBe(0);
      const [computed, doc] = JSON.parse(r.stdout) as [unknown, unknown];
      expect(JSON.stringify(computed)).toBe(expected(doc));
      expect(Object.keys(doc as object).length).toBeGreaterThan(0);
      return;
    }
    const json = await cli([...args, '--json'], opts);
    expect(json.code, show(json)).toBe(0);
    const filtered = await cli([...args, '--jq', KEYS_OR_LENGTH], opts);
    expect(filtered.code, show(filtered)).toBe(0);
    expect(filtered.stdout).toBe(`${expected(json.json())}\n`);
  });

  it('strings print raw, several results one a line, and --jq implies --json', async () => {
    const r = await cli(['triggers', 'ls', '--jq', '.triggers[].name']);
    expect(r.code, show(r)).toBe(0);
    const names = (await cli(['triggers', 'ls', '--json'])).json<{ triggers: Array<{ name: string }> }>();
    expect(r.stdout).toBe(names.triggers.map((x) => `${x.name}\n`).join(''));
  });

  it('a bad expression: exit 2 naming it, nothing sent', async () => {
    const r = await cli(['triggers', 'ls', '--jq', '.triggers |||']);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('invalid --jq expression ".triggers |||": syntax error');
    expect(r.json()).toMatchObject({ error: { code: 'USAGE' } });
    expect((await t.sb.state()).requests).toEqual([]);
  });

  it('an error document is printed as it is, unfiltered; a filter failing on the data is exit 1', async () => {
    const missing = await cli(['events', 'show', 'no-such-event', '--jq', '.id']);
    expect(missing.code, show(missing)).toBe(4);
    expect(missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const bad = await cli(['triggers', 'ls', '--jq', '.triggers[0].name[0]']);
    expect(bad.code, show(bad)).toBe(1);
    expect(bad.stderr).toContain('--jq ".triggers[0].name[0]" failed on the output: Cannot index string with number');
  });

  it('a bulk run: each JSON Lines line goes through the filter', async () => {
    const file = join(t.dir, 'leads.csv');
    writeFileSync(file, 'email,company,region\na@acme.example,Acme,emea\nb@acme.example,Acme,emea\n');
    const r = await cli([
      'route',
      '--file',
      file,
      '--trigger',
      DEMO_TRIGGER,
      '--slot',
      'first',
      '--jq',
      '.status // .summary.rows',
    ]);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toBe('booked\nbooked\n2\n');
  });
});
