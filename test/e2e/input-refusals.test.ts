/**
 * Issue 46 items 1 and 2, end to end: free text with control characters (booking names, a
 * phone, form answers and their keys, booking responses, bulk rows) and ids of `.`, `..` or
 * nothing are refused with exit 2 / USAGE naming the input, in the CLI and in MCP alike, and the
 * sandbox's request log shows that nothing was sent.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bookSlotArgs, demoFireArgs, demoRouteFirstArgs, DEMO_TRIGGER } from '../helpers/args.js';
import { writeCsv } from '../helpers/bulk-run.js';
import { show } from '../helpers/cli.js';
import { shown, useMcpSessions } from '../helpers/mcp-client.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const UUID = '9b2d7c1e-4f3a-4e5b-8c6d-7e8f9a0b1c2d';
const future = () => new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 26 * 3_600_000).toISOString();
const cli = (args: string[]) => t.sb.cli(args, { configDir: t.dir });
const sent = async () => (await t.sb.state()).requests.map((q) => `${q.method} ${q.path}`);
const changes = async () => (await sent()).filter((s) => !s.startsWith('GET '));

const mcp = useMcpSessions(t);

describe('control characters in free text are refused before anything is sent (CLI)', () => {
  it.each([
    ['--first-name', 'Ann\r\nBcc: evil@x.example', '\\r'],
    // (argv cannot carry a NUL: MCP and files can, below)
    ['--last-name', 'Lee\u0001\u001b[2J', '\\x01'],
    ['--phone', '+1 555\n0100', '\\n'],
    ['--first-name', 'Eve\u202etxt.exe', '\\u202e'],
  ])('book %s %j: exit 2 naming the flag and the character, no request', async (flag, value, char) => {
    const r = await cli([...bookSlotArgs('intro-call', future(), UUID, 'lead@acme.example'), flag, value, '--json']);
    expect(r.code, show(r)).toBe(2);
    const { error } = r.json<{ error: { code: string; message: string } }>();
    expect(error.code).toBe('USAGE');
    expect(error.message).toContain(`invalid ${flag} "`);
    expect(error.message).toContain(`the control character ${char}`);
    expect(await sent()).toEqual([]);
  });

  it('book --response: a key or a value with a control character names it; no request', async () => {
    const args = bookSlotArgs('intro-call', future(), UUID, 'lead@acme.example');
    const value = await cli([...args, '--response', 'notes=hi\u0007there']);
    expect(value.code, show(value)).toBe(2);
    expect(value.stderr).toContain('invalid --response notes "hi\\x07there": it holds the control character \\x07');
    const key = await cli([...args, '--response', 'no\rtes=x']);
    expect(key.code, show(key)).toBe(2);
    expect(key.stderr).toContain('invalid --response key "no\\rtes"');
    expect(await sent()).toEqual([]);
  });

  it('route --first-name: exit 2, no request; route and trigger fire --field: named after the trigger list, nothing fired', async () => {
    const route = await cli([...demoRouteFirstArgs('ada@acme.example'), '--first-name', 'Ada\u001b]0;x\u0007']);
    expect(route.code, show(route)).toBe(2);
    expect(route.stderr).toContain('invalid --first-name "Ada\\x1b]0;x\\x07"');
    expect(await sent()).toEqual([]);
    // A field's name and a select's options are the server's words: answers are checked against the form.
    const field = await cli([...demoRouteFirstArgs('ada@acme.example'), '--field', 'notes=a\r\nb']);
    expect(field.code, show(field)).toBe(2);
    expect(field.stderr).toContain('notes: the answer holds the control character \\r');
    const fire = await cli([...demoFireArgs('ada@acme.example'), '--field', 'company=Acme\u0008']);
    expect(fire.code, show(fire)).toBe(2);
    expect(fire.stderr).toContain('company: the answer holds the control character \\x08');
    const key = await cli([...demoFireArgs('ada@acme.example'), '--field', 'note\u001bs=x']);
    expect(key.code, show(key)).toBe(2);
    expect(key.stderr).toContain('note\\x1bs: the field name holds the control character \\x1b');
    expect(await changes()).toEqual([]);
  });

  it('trigger fire --responses file: the answer is named; only the trigger list was read, nothing fired', async () => {
    const file = join(t.dir, 'answers.json');
    writeFileSync(file, JSON.stringify({ company: 'Acme', region: 'emea', notes: 'line one\nline two' }));
    const r = await cli(['trigger', 'fire', DEMO_TRIGGER, '--email', 'ada@acme.example', '--responses', file]);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('notes: the answer holds the control character \\n');
    expect(await changes()).toEqual([]);
  });

  it('route --from: a row whose first_name or form answer holds one is invalid, naming the column; nothing sent', async () => {
    const file = writeCsv(t.dir, 'leads.csv', 'email,company,region,first_name', [
      'a@acme.example,Acme,emea,Ann',
      'b@acme.example,Acme,emea,Bo\u001b[31m',
      'c@acme.example,Ac\u0007me,emea,Cy',
    ]);
    const r = await cli(['route', '--from', file, '--trigger', DEMO_TRIGGER]);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toMatch(/2 of 3 rows of .*leads\.csv are invalid: nothing was sent/);
    expect(r.stderr).toContain('line 3: first_name: holds the control character \\x1b');
    expect(r.stderr).toContain('line 4: company: the answer holds the control character \\x07');
    expect(await sent()).toEqual(['GET /v1/triggers']);
  });
});

describe('ids of ".", ".." or nothing are refused before anything is sent (CLI)', () => {
  it.each([[['events', 'show', '..']], [['events', 'show', '.']], [['slots', '..']], [['slots', '.', '--json']]])(
    '%j: exit 2 naming the event, no request',
    async (args) => {
      const r = await cli(args);
      expect(r.code, show(r)).toBe(2);
      expect(r.stdout + r.stderr).toMatch(
        /invalid event "\.\.?": an id of "\.\.?" would name another endpoint of the API; nothing was sent/,
      );
      expect(await sent()).toEqual([]);
    },
  );
});

describe('the same rules in MCP', () => {
  it('book_meeting, route_lead and fire_trigger: a name or an answer with a control character is a USAGE result naming it; nothing sent', async () => {
    const s = await mcp();
    const book = await s.call('book_meeting', {
      event: 'intro-call',
      start: future(),
      reservation_id: UUID,
      email: 'lead@acme.example',
      first_name: 'Ann\r\nBcc: evil@x.example',
    });
    expect(book.isError, shown(book)).toBe(true);
    expect(book.doc.error.code).toBe('USAGE');
    expect(book.text).toContain('first_name: holds the control character \\r');
    const responses = await s.call('book_meeting', {
      event: 'intro-call',
      start: future(),
      reservation_id: UUID,
      email: 'lead@acme.example',
      responses: { notes: 'x\u001b[2J' },
    });
    expect(responses.doc.error.code, shown(responses)).toBe('USAGE');
    expect(responses.text).toContain('responses.notes: holds the control character \\x1b');
    const route = await s.call('route_lead', {
      trigger: DEMO_TRIGGER,
      email: 'ada@acme.example',
      fields: { company: 'Acme', region: 'emea', 'no\u0000tes': 'x' },
      slot: 'first',
    });
    expect(route.doc.error.code, shown(route)).toBe('USAGE');
    expect(route.text).toContain('the field name holds the control character \\x00');
    const fire = await s.call('fire_trigger', {
      trigger: DEMO_TRIGGER,
      email: 'ada@acme.example',
      fields: { company: 'Acme\u2028', region: 'emea' },
    });
    expect(fire.doc.error.code, shown(fire)).toBe('USAGE');
    expect(fire.text).toContain('company: the answer holds the control character \\u2028');
    // route_lead and fire_trigger check their fields against the trigger's form: one read, nothing fired.
    expect(await changes()).toEqual([]);
  });

  it('show_event and find_slots with event ".." are USAGE results; nothing sent', async () => {
    const s = await mcp();
    for (const [tool, args] of [
      ['show_event', { event: '..' }],
      ['find_slots', { event: '.' }],
    ] as const) {
      const r = await s.call(tool, args);
      expect(r.isError, shown(r)).toBe(true);
      expect(r.doc.error.code).toBe('USAGE');
      expect(r.text).toMatch(/invalid event "\.\.?": an id of "\.\.?" would name another endpoint/);
    }
    expect(await sent()).toEqual([]);
  });
});
