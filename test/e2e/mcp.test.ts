/**
 * `schedctl mcp`: the same safe operations for AI assistants. The built CLI is driven by the MCP
 * SDK's own Client over stdio against a sandbox, as Claude Desktop, Claude Code or Cursor would:
 * each tool's structuredContent is the CLI's --json document, errors come back as results
 * (code, message, hint), a lost booking answer never becomes a second meeting, repeated routed
 * bookings book once, nothing but protocol messages reach stdout, and server text is inert in
 * the text content.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renameFlags, safeText } from '../../src/mcp/call.js';
import { triggersText } from '../../src/mcp/format.js';
import { registerSecret, runCli, show, tempDir } from '../helpers/cli.js';
import { h, HOSTILE, HOSTILE_SHOWN, REFUSED, startHostileTextServer } from '../helpers/hostile-text-server.js';
import { type McpSession, shown, startMcp, useSharedMcp } from '../helpers/mcp-client.js';
import { useSandbox } from '../helpers/sandbox.js';
import { sendJson, startTestServer, TRIGGERS_BODY } from '../helpers/server.js';

const t = useSandbox();
const BOOK = '/v1/scheduling/meetings';
const TRIGGER = 'Inbound demo request';
const FIELDS = { company: 'Acme', region: 'emea' };
/** What must never reach a terminal: ESC, BEL, a carriage return, a C1 control (CSI), a bidi override. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point.
const RAW = /[\x1b\x07\r\x9b\u202e]/;

let session: McpSession | undefined;
afterEach(async () => {
  const s = session;
  session = undefined;
  if (!s) return;
  await s.close();
  expect(s.protocolErrors, `client errors (something not JSON-RPC on stdout?)\nstderr:\n${s.stderr()}`).toEqual([]);
});

async function mcp(opts: { env?: Record<string, string | undefined>; args?: string[] } = {}): Promise<McpSession> {
  session = await startMcp({
    configDir: t.dir,
    args: opts.args,
    env: { SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: t.sb.baseUrl, ...opts.env },
  });
  return session;
}

/** One server for the tests that only list and read (nothing booked, nothing kept). */
const shared = useSharedMcp(t);

const cliJson = async (args: string[]) => {
  const r = await t.sb.cli([...args, '--json'], { configDir: t.dir });
  expect(r.code, show(r)).toBe(0);
  return r.json();
};
const bookRequests = async () => (await t.sb.state()).requests.filter((r) => r.method === 'POST' && r.path === BOOK);

describe('mcp: tools', () => {
  it('lists the nine tools, each with a description naming its cost and a JSON schema of its input', async () => {
    const s = await shared();
    const { tools } = await s.client.listTools();
    expect(tools.map((x) => x.name)).toEqual([
      'list_triggers',
      'list_events',
      'show_event',
      'fire_trigger',
      'find_slots',
      'book_meeting',
      'route_lead',
      'list_meetings',
      'reschedule_meeting',
    ]);
    for (const tool of tools) {
      expect(tool.description, tool.name).toMatch(/request/);
      expect(tool.inputSchema.type, tool.name).toBe('object');
    }
    const book = tools.find((x) => x.name === 'book_meeting')!;
    expect(book.inputSchema.required).toEqual(expect.arrayContaining(['event', 'start', 'reservation_id', 'email']));
    expect(book.description).toMatch(/same arguments/);
    expect(tools.find((x) => x.name === 'fire_trigger')!.description).toMatch(/CRM writes/);
    expect(tools.find((x) => x.name === 'route_lead')!.inputSchema.properties).toHaveProperty('refire_on_conflict');
    expect((await s.client.getInstructions()) ?? '').toMatch(/Never a second meeting/);
  });

  it('reads triggers and events: structuredContent is the CLI --json document, the text a short summary', async () => {
    const s = await shared();
    const triggers = await s.call('list_triggers');
    expect(triggers.isError, shown(triggers)).toBe(false);
    expect(triggers.doc).toEqual(await cliJson(['triggers', 'ls']));
    expect(triggers.text).toContain(`«${TRIGGER}»`);
    expect(triggers.text).toContain('region* (emea|americas|apac)');

    const events = await s.call('list_events', { limit: 3 });
    expect(events.doc).toEqual(await cliJson(['events', 'ls', '--limit', '3']));
    expect(events.text).toMatch(/cursor/);

    const event = await s.call('show_event', { event: 'product-demo' });
    expect(event.doc).toEqual(await cliJson(['events', 'show', 'product-demo']));
    expect(event.text).toContain('work email required');
  });
});

describe('mcp: fire, slots, book, reschedule', () => {
  it('fires once, reuses the remembered outcome for the same answers, and fires again only with force', async () => {
    const s = await mcp();
    const first = await s.call('fire_trigger', { trigger: TRIGGER, email: 'ada@acme.example', fields: FIELDS });
    expect(first.isError, shown(first)).toBe(false);
    expect(first.doc).toEqual({
      executionId: expect.any(String),
      outcome: expect.objectContaining({ type: 'scheduler', schedulingLinkId: expect.any(String) }),
    });
    expect(first.text).toContain('find_slots');

    const again = await s.call('fire_trigger', { trigger: TRIGGER, email: 'ada@acme.example', fields: FIELDS });
    expect(again.doc).toMatchObject({ status: 'reused', executionId: first.doc.executionId });
    expect(again.text).toMatch(/nothing was fired/);
    expect((await t.sb.state()).executions).toHaveLength(1);

    const forced = await s.call('fire_trigger', {
      trigger: TRIGGER,
      email: 'ada@acme.example',
      fields: FIELDS,
      force: true,
    });
    expect(forced.doc.executionId).not.toBe(first.doc.executionId);
    expect((await t.sb.state()).executions).toHaveLength(2);
  });

  it('finds slots, books one, and moves it by the lead email with a time as people say it', async () => {
    const s = await mcp();
    const found = await s.call('find_slots', { event: 'sales-emea', days: 14, tz: 'Europe/London' });
    expect(found.isError, shown(found)).toBe(false);
    expect(found.doc).toMatchObject({ reservationId: expect.any(String), expiresAt: expect.any(String) });
    const slots = found.doc.slots as string[];
    expect(slots.length).toBeGreaterThan(4);
    expect(found.text).toContain(slots[0]);

    const booked = await s.call('book_meeting', {
      event: 'sales-emea',
      start: slots[0],
      reservation_id: found.doc.reservationId,
      email: 'ada@acme.example',
    });
    expect(booked.isError, shown(booked)).toBe(false);
    const [meeting] = (await t.sb.state()).meetings;
    expect(booked.doc.meeting).toMatchObject({ id: meeting!.id, date: slots[0], personEmail: 'ada@acme.example' });
    expect(booked.text).toContain(`Booked meeting ${meeting!.id}`);

    const listed = await s.call('list_meetings', { email: 'ada@acme.example' });
    expect(listed.doc.meetings).toEqual(await cliJson(['meetings', 'ls', '--email', 'ada@acme.example']));
    expect(listed.doc.meetings.map((m: { id: string }) => m.id)).toEqual([meeting!.id]);

    // "nov 24 14:30" in New York: a time as people say it, read in tz.
    const zone = 'America/New_York';
    const target = slots[4]!;
    const said = DateTime.fromISO(target, { zone }).toFormat('LLL d HH:mm').toLowerCase();
    const before = (await t.sb.state()).requests.length;
    const moved = await s.call('reschedule_meeting', { email: 'ada@acme.example', start: said, tz: zone });
    expect(moved.isError, `${said}\n${shown(moved)}`).toBe(false);
    expect(moved.doc.meeting).toMatchObject({ id: meeting!.id, date: target });
    expect(moved.text).toContain('Rescheduled');
    expect((await t.sb.state()).requests.length).toBe(before + 1);
    expect((await t.sb.state()).meetings.map((m) => m.date)).toEqual([target]);
  });
});

describe('mcp: never a second meeting', () => {
  it('a booking whose answer is lost says the outcome is unknown; the same call again answers already_booked; one meeting', async () => {
    const s = await mcp();
    const found = await s.call('find_slots', { event: 'intro-call' });
    const args = {
      event: 'intro-call',
      start: found.doc.slots[0],
      reservation_id: found.doc.reservationId,
      email: 'ada@acme.example',
    };
    await t.sb.fault({ method: 'POST', path: BOOK, fault: 'drop-after-commit' });

    const lost = await s.call('book_meeting', args);
    expect(lost.isError, shown(lost)).toBe(true);
    expect(lost.doc.error.code).toBe('OUTCOME_UNKNOWN');
    expect(lost.text).toMatch(/outcome is unknown/);
    expect(lost.doc.error.hint).toMatch(/call book_meeting again with exactly the same arguments/);
    expect((await t.sb.state()).meetings).toHaveLength(1);

    const again = await s.call('book_meeting', args);
    expect(again.isError, shown(again)).toBe(false);
    expect(again.doc).toMatchObject({
      status: 'already_booked',
      alreadyBookedCode: expect.stringMatching(/^(RESERVATION_USED|RESERVATION_EXPIRED|CONFLICT)$/),
      reservationId: args.reservation_id,
    });
    expect(again.text).toMatch(/No second meeting/);
    expect((await t.sb.state()).meetings).toHaveLength(1);
    expect(await bookRequests()).toHaveLength(2);
  });

  it('route_lead books the routed lead in one call (4 requests); the same call again books nothing', async () => {
    const s = await mcp();
    const args = {
      trigger: TRIGGER,
      email: 'grace@acme.example',
      fields: { company: 'Acme', region: 'americas' },
      slot: 'first',
      tz: 'UTC',
    };
    const first = await s.call('route_lead', args);
    expect(first.isError, shown(first)).toBe(false);
    const state = await t.sb.state();
    expect(state.meetings).toHaveLength(1);
    expect(first.doc).toMatchObject({
      status: 'booked',
      requests: 4,
      email: 'grace@acme.example',
      trigger: { name: TRIGGER },
      meeting: { id: state.meetings[0]!.id },
    });
    expect(first.doc.meeting.workflowExecutionId ?? state.meetings[0]!.workflowExecutionId).toBe(first.doc.executionId);

    const again = await s.call('route_lead', args);
    expect(again.doc).toMatchObject({ status: 'already_booked', alreadyBookedCode: 'ON_RECORD', requests: 1 });
    const third = await s.call('route_lead', args);
    expect(third.doc.status).toBe('already_booked');
    const after = await t.sb.state();
    expect(after.meetings).toHaveLength(1);
    expect(after.executions).toHaveLength(1);
  });

  it('route_lead after a lost booking answer: outcome unknown, then already_booked, and one meeting', async () => {
    const s = await mcp();
    const args = { trigger: TRIGGER, email: 'alan@acme.example', fields: FIELDS, slot: 'first' };
    await t.sb.fault({ method: 'POST', path: BOOK, fault: 'drop-after-commit' });
    const lost = await s.call('route_lead', args);
    expect(lost.doc.error?.code, shown(lost)).toBe('OUTCOME_UNKNOWN');
    expect(lost.doc.error.hint).toMatch(/call route_lead again with exactly the same arguments/);

    const again = await s.call('route_lead', args);
    expect(again.isError, shown(again)).toBe(false);
    expect(again.doc.status).toBe('already_booked');
    const state = await t.sb.state();
    expect(state.meetings).toHaveLength(1);
    expect(state.executions).toHaveLength(1);
  });
});

describe('mcp: errors are results, and nothing is booked unless asked', () => {
  it('answers refusals with isError, the code, message and hint; bad input names the argument; the server keeps serving', async () => {
    const s = await mcp();
    const missing = await s.call('show_event', { event: 'no-such-event' });
    expect(missing.isError).toBe(true);
    expect(missing.doc.error).toMatchObject({ code: 'NOT_FOUND', status: 404, message: expect.any(String) });

    const badEmail = await s.call('book_meeting', {
      event: 'intro-call',
      start: 'tomorrow 10:00',
      reservation_id: '3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b',
      email: 'not-an-email',
    });
    expect(badEmail.doc.error.code, shown(badEmail)).toBe('USAGE');
    expect(badEmail.doc.error.message).toMatch(/^invalid email "not-an-email"/);

    const both = await s.call('reschedule_meeting', {
      meeting_id: '3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b',
      email: 'ada@acme.example',
      start: 'tomorrow 10:00',
    });
    expect(both.doc.error.message, shown(both)).toBe('pass either meeting_id or email, not both');

    const unknownField = await s.call('fire_trigger', {
      trigger: TRIGGER,
      email: 'ada@acme.example',
      fields: { compnay: 'Acme', region: 'emea' },
    });
    expect(unknownField.doc.error.code).toBe('USAGE');
    expect(unknownField.doc.error.details.join('\n')).toMatch(/did you mean "company"/);
    expect(unknownField.doc.error.hint).toBeTruthy();

    const taken = await s.call('route_lead', { trigger: 'No such trigger', email: 'ada@acme.example', slot: 'first' });
    expect(taken.doc.error.code).toBe('NOT_FOUND');
    expect(taken.text).toMatch(/^hint: /m);

    expect((await s.call('list_triggers')).isError).toBe(false);
    const state = await t.sb.state();
    expect(state.meetings).toEqual([]);
    expect(state.executions).toEqual([]);
    expect(await bookRequests()).toEqual([]);
  });

  it('reading tools book nothing, and list_meetings costs no request', async () => {
    const s = await shared();
    for (const [name, args] of [
      ['list_triggers', {}],
      ['list_events', {}],
      ['show_event', { event: 'intro-call' }],
      ['find_slots', { event: 'intro-call', days: 2 }],
    ] as const) {
      expect((await s.call(name, args)).isError, name).toBe(false);
    }
    const before = (await t.sb.state()).requests.length;
    const listed = await s.call('list_meetings', { all: true });
    expect(listed.doc).toEqual({ meetings: [], total: 0, offset: 0, nextOffset: null });
    expect((await t.sb.state()).requests.length).toBe(before);
    expect((await t.sb.state()).meetings).toEqual([]);
  });
});

describe('mcp: configuration', () => {
  it('--print-config prints a command and args with --profile, never the key; the server then runs on the profile', async () => {
    const add = await runCli(['profile', 'add', 'sandbox', '--key-stdin', '--base-url', t.sb.baseUrl], {
      configDir: t.dir,
      input: t.sb.keys.full,
    });
    expect(add.code, show(add)).toBe(0);
    const r = await runCli(['mcp', '--print-config', '--profile', 'sandbox'], { configDir: t.dir });
    expect(r.code, show(r)).toBe(0);
    const entry = r.json().mcpServers.schedctl;
    expect(entry.command).toBe(process.execPath);
    expect(entry.args.slice(1)).toEqual(['mcp', '--profile', 'sandbox']);
    expect(entry.args[0]).toMatch(/schedctl\.js$/);
    expect(r.stdout + r.stderr).not.toContain(t.sb.keys.full);
    expect(r.stderr).toMatch(/Claude Desktop/);

    const unknown = await runCli(['mcp', '--print-config', '--profile', 'nope'], { configDir: t.dir });
    expect(unknown.code, show(unknown)).toBe(2);

    // What the client runs: the args of the snippet, with no key in the environment.
    const s = await mcp({
      args: ['--profile', 'sandbox'],
      env: { SCHEDCTL_API_KEY: undefined, SCHEDCTL_BASE_URL: undefined },
    });
    const triggers = await s.call('list_triggers');
    expect(triggers.isError, shown(triggers)).toBe(false);
    expect(s.stderr()).toContain('profile "sandbox"');
  });

  it('mcp --profile X uses profile X even with SCHEDCTL_API_KEY / SCHEDCTL_BASE_URL exported in the shell', async () => {
    const decoy = await startTestServer((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
    try {
      const add = await runCli(['profile', 'add', 'picked', '--key-stdin', '--base-url', t.sb.baseUrl, '--force'], {
        configDir: t.dir,
        input: t.sb.keys.full,
      });
      expect(add.code, show(add)).toBe(0);
      const s = await mcp({
        args: ['--profile', 'picked'],
        env: { SCHEDCTL_API_KEY: 'sk_test_shell_key_0000111122223333', SCHEDCTL_BASE_URL: decoy.baseUrl },
      });
      const before = (await t.sb.state()).requests.length;
      const triggers = await s.call('list_triggers');
      expect(triggers.isError, shown(triggers)).toBe(false);
      expect(decoy.seen).toEqual([]);
      const sent = (await t.sb.state()).requests.slice(before);
      // The sandbox logs which of its keys was used: the profile's (full), not the shell's.
      expect(sent.map((q) => `${q.method} ${q.path} ${q.key}`)).toEqual(['GET /v1/triggers full']);
      expect(s.stderr()).toContain('profile "picked"');
    } finally {
      await decoy.close();
    }
  });

  it('without a key every tool call answers NO_API_KEY, and the server stays up', async () => {
    const s = await mcp({ env: { SCHEDCTL_API_KEY: undefined } });
    const r = await s.call('list_triggers');
    expect(r.isError).toBe(true);
    expect(r.doc.error.code).toBe('NO_API_KEY');
    expect((await s.call('list_meetings')).doc.error.code).toBe('NO_API_KEY');
  });
});

describe('mcp: server text is data', () => {
  const KEY = 'sk_test_mcp_hostile_5d4c3b2a1f0e';
  registerSecret(KEY);
  let server: Awaited<ReturnType<typeof startHostileTextServer>> | undefined;
  beforeAll(async () => {
    server = await startHostileTextServer();
  });
  afterAll(async () => server?.close());

  it('shows hostile strings escaped in the text content and unchanged in structuredContent', async () => {
    session = await startMcp({
      configDir: tempDir(),
      env: { SCHEDCTL_API_KEY: KEY, SCHEDCTL_BASE_URL: server!.baseUrl },
    });
    const s = session;
    const triggers = await s.call('list_triggers');
    expect(triggers.doc.triggers[0].name).toBe(h('Demo request'));
    expect(triggers.text).not.toMatch(RAW);
    expect(triggers.text).toContain(`Demo request${HOSTILE_SHOWN}`);

    const event = await s.call('show_event', { event: 'intro-call' });
    expect(event.doc.hosts[0].name).toBe(h('Amelia Hart'));
    expect(event.text).not.toMatch(RAW);

    const refused = await s.call('show_event', { event: REFUSED.event });
    expect(refused.isError).toBe(true);
    expect(refused.doc.error.message).toBe(h('no such event'));
    expect(refused.text).not.toMatch(RAW);
    expect(refused.text).toContain(HOSTILE_SHOWN);
  });

  it('formats text with every control and bidi character escaped (unit)', () => {
    const text = safeText(
      triggersText({ triggers: [{ id: h('id'), name: h('Evil'), description: HOSTILE, fields: [] }] }),
    );
    expect(text).not.toMatch(RAW);
    expect(text).toContain(`Evil${HOSTILE_SHOWN}`);
  });

  it('names tool arguments in refusals, whole flags only (unit)', () => {
    const flags = { tz: '--tz', lead_tz: '--lead-tz', meeting_id: '<meeting-id>', email: '--email' };
    expect(
      renameFlags('unknown time zone "x" for --lead-tz; --tz is fine; pass either <meeting-id> or --email', flags),
    ).toBe('unknown time zone "x" for lead_tz; tz is fine; pass either meeting_id or email');
  });
});

describe('mcp: only `schedctl mcp` pays for the SDK', () => {
  it('bundles the SDK and the zod it needs into one file that only the mcp run module reaches', () => {
    interface Meta {
      outputs: Record<string, { inputs: Record<string, unknown>; imports?: Array<{ path: string; kind: string }> }>;
    }
    const meta = JSON.parse(readFileSync(join(import.meta.dirname, '../../dist/meta.json'), 'utf8')) as Meta;
    // The SDK, and classic zod in either copy (the build gives the SDK its own, zod-mcp).
    const isHeavy = (input: string) => /@modelcontextprotocol\/sdk|zod-mcp\/|zod\/v4\/classic/.test(input);
    const heavy = Object.entries(meta.outputs).filter(
      ([file, o]) => file.endsWith('.mjs') && Object.keys(o.inputs).some(isHeavy),
    );
    expect(heavy.map(([file]) => file)).toHaveLength(1);
    const [chunk, out] = heavy[0]!;
    expect(Object.keys(out.inputs)).toContain('src/mcp/server.ts');
    // The run module itself, or a chunk only it imports (lazily or not: both keep it off every other command).
    const importers = Object.entries(meta.outputs).flatMap(([file, o]) =>
      (o.imports ?? []).filter((i) => i.path === chunk).map(() => file),
    );
    if (chunk === 'dist/esm/run/mcp.mjs') expect(importers).toEqual([]);
    else expect(importers).toEqual(['dist/esm/run/mcp.mjs']);
    // zod's JSON Schema side serves the SDK only: in a chunk the API commands share, it would be
    // loaded by every one of them (scripts/build.mjs, mcp-own-zod).
    const jsonSchemaZod = Object.entries(meta.outputs)
      .filter(
        ([file, o]) =>
          file !== chunk && Object.keys(o.inputs).some((i) => /to-json-schema|json-schema-processors/.test(i)),
      )
      .map(([file]) => file);
    expect(jsonSchemaZod).toEqual([]);
  });
});
