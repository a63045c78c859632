/**
 * `schedctl mcp`, second pass (issue 38), driven by the SDK's Client and by raw JSON-RPC lines
 * against a sandbox: times as people say them on a fresh server for every tool that takes one,
 * cancellation at each step of route_lead and book_meeting (meetings and requests counted at the
 * sandbox), bounded inputs and error texts, argument refusals as tool results, schemas every
 * client takes, claims that hold, and the protocol's edges.
 */
import { DateTime } from 'luxon';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { show } from '../helpers/cli.js';
import {
  type McpSession,
  rawMcp,
  shown,
  type ToolResult,
  useMcpSessions,
  useSharedMcp,
} from '../helpers/mcp-client.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const BOOK = '/v1/scheduling/meetings';
const SLOTS = '/v1/scheduling/events/*/slots';
const FIRE = '/v1/triggers/*';
const TRIGGER = 'Inbound demo request';
const FIELDS = { company: 'Acme', region: 'emea' };

const mcp = useMcpSessions(t);
/** One server for the tests that only list, read prompts or are refused before any request. */
const shared = useSharedMcp(t);

const ok = (r: ToolResult, what = '') => {
  expect(r.isError, `${what}\n${shown(r)}`).toBe(false);
  return r;
};

const requests = async () => (await t.sb.state()).requests;
const bookPosts = async () => (await requests()).filter((r) => r.method === 'POST' && r.path === BOOK);

/** Polls until `check` holds (the sandbox's view of a request that is delayed on purpose). */
async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const matches = (pattern: string, path: string) =>
  new RegExp(`^${pattern.replaceAll('*', '[^/]+')}$`).test(path) && !path.endsWith('/slots');
const sent = async (method: string, pattern: string) =>
  (await requests()).filter(
    (r) => r.method === method && (pattern === SLOTS ? /\/slots$/.test(r.path) : matches(pattern, r.path)),
  );

/** Free times of an event over HTTP (no MCP session involved). */
const cliSlots = (event: string) => t.sb.slots(event, 14);

/** "dec 3 14:00": a time as people say it (docs/time.md), read in UTC. */
const said = (iso: string) => DateTime.fromISO(iso, { zone: 'UTC' }).toFormat('LLL d HH:mm').toLowerCase();

describe('mcp: one reader of times, on a fresh server', () => {
  it.each(['next tuesday afternoon', 'tomorrow 15:00', 'tues 3pm', 'next tues 3pm', 'noon tomorrow', 'in 2 hours'])(
    'find_slots reads from %j as its first call',
    async (phrase) => {
      const s = await mcp();
      const r = ok(await s.call('find_slots', { event: 'sales-emea', from: phrase, days: 3, tz: 'UTC' }), phrase);
      expect(r.doc.reservationId).toEqual(expect.any(String));
    },
  );

  it.each([{ from: 'next monday' }, { to: 'tomorrow 3pm' }, { from: 'thursday 15:00', to: 'next tuesday' }])(
    'list_meetings reads %j as its first call',
    async (args) => {
      const s = await mcp();
      ok(await s.call('list_meetings', { ...args, all: true, tz: 'UTC' }), JSON.stringify(args));
    },
  );

  it('book_meeting reads start "dec 3 14:00" as its first call', async () => {
    const { reservationId, slots } = await cliSlots('sales-emea');
    const target = slots[2]!;
    const s = await mcp();
    const r = ok(
      await s.call('book_meeting', {
        event: 'sales-emea',
        start: said(target),
        reservation_id: reservationId,
        email: 'ada@acme.example',
        tz: 'UTC',
      }),
    );
    expect(r.doc.meeting.date).toBe(target);
  });

  it('reschedule_meeting reads start as people say it as its first call', async () => {
    const { reservationId, slots } = await cliSlots('sales-emea');
    const booked = await t.sb.cli(
      ['book', 'sales-emea', '--start', slots[0]!, '--reservation', reservationId, '--email', 'ada@acme.example'],
      { configDir: t.dir },
    );
    expect(booked.code, show(booked)).toBe(0);
    const s = await mcp();
    const r = ok(await s.call('reschedule_meeting', { email: 'ada@acme.example', start: said(slots[5]!), tz: 'UTC' }));
    expect(r.doc.meeting.date).toBe(slots[5]);
  });

  it('route_lead reads slot "first next tuesday" as its first call', async () => {
    const s = await mcp();
    const r = ok(
      await s.call('route_lead', {
        trigger: TRIGGER,
        email: 'grace@acme.example',
        fields: FIELDS,
        slot: 'first next tuesday',
        tz: 'UTC',
      }),
    );
    expect(r.doc.status).toBe('booked');
    expect(DateTime.fromISO(r.doc.startTime as string, { zone: 'UTC' }).weekday).toBe(2);
  });
});

describe('mcp: a cancelled call', () => {
  /** Starts a call, cancels it once `ready` holds (notifications/cancelled), and expects the client's rejection. */
  async function cancelled(s: McpSession, name: string, args: Record<string, unknown>, ready: () => Promise<boolean>) {
    const ac = new AbortController();
    const call = s.client.callTool({ name, arguments: args }, undefined, { signal: ac.signal });
    const outcome = call.then(
      () => 'answered',
      (error: unknown) => (error instanceof Error ? error.name : 'rejected'),
    );
    await until(`${name} to reach the step`, ready);
    ac.abort('the person changed their mind');
    expect(await outcome).not.toBe('answered');
  }

  const routeArgs = { trigger: TRIGGER, email: 'grace@acme.example', fields: FIELDS, slot: 'first', tz: 'UTC' };

  it('route_lead cancelled while it fires: the fire completes and is remembered; no slots, no booking', async () => {
    const s = await mcp();
    await t.sb.fault({ method: 'POST', path: FIRE, fault: 'delay', delayMs: 2000 });
    await cancelled(s, 'route_lead', routeArgs, async () => (await sent('POST', FIRE)).length === 1);
    await until('the fire to finish', async () => (await sent('POST', FIRE))[0]!.status !== null);
    await new Promise((r) => setTimeout(r, 800));
    expect(await sent('POST', SLOTS)).toHaveLength(0);
    expect(await bookPosts()).toHaveLength(0);
    const state = await t.sb.state();
    expect(state.executions).toHaveLength(1);
    expect(state.meetings).toHaveLength(0);

    // The fire was recorded: the next call reuses its outcome (no second workflow run) and books.
    const next = ok(await s.call('route_lead', routeArgs));
    expect(next.doc).toMatchObject({ status: 'booked', reused: true });
    expect((await t.sb.state()).executions).toHaveLength(1);
  });

  it('route_lead cancelled while it fetches slots: no booking is sent', async () => {
    const s = await mcp();
    await t.sb.fault({ method: 'POST', path: SLOTS, fault: 'delay', delayMs: 2000 });
    await cancelled(s, 'route_lead', routeArgs, async () => (await sent('POST', SLOTS)).length === 1);
    await until('the slots to be answered', async () => (await sent('POST', SLOTS))[0]!.status !== null);
    await new Promise((r) => setTimeout(r, 800));
    expect(await bookPosts()).toHaveLength(0);
    expect((await t.sb.state()).meetings).toHaveLength(0);
    ok(await s.call('list_meetings', { email: routeArgs.email }));
  });

  it('route_lead cancelled during its booking POST: booked once and recorded; the next call answers from the record', async () => {
    const s = await mcp();
    await t.sb.fault({ method: 'POST', path: BOOK, fault: 'delay', delayMs: 2000 });
    await cancelled(s, 'route_lead', routeArgs, async () => (await bookPosts()).length === 1);
    // The same call again waits for the lead (the cancelled call still holds it), then finds its meeting.
    const again = ok(await s.call('route_lead', routeArgs));
    expect(again.doc).toMatchObject({ status: 'already_booked', alreadyBookedCode: 'ON_RECORD' });
    const listed = ok(await s.call('list_meetings', { email: routeArgs.email }));
    const state = await t.sb.state();
    expect(state.meetings).toHaveLength(1);
    expect(listed.doc.meetings.map((m: { id: string }) => m.id)).toEqual([state.meetings[0]!.id]);
    expect(await bookPosts()).toHaveLength(1);
  });

  it('book_meeting cancelled during its POST: booked once and recorded; the same call again sends nothing', async () => {
    const { reservationId, slots } = await cliSlots('intro-call');
    const args = { event: 'intro-call', start: slots[0], reservation_id: reservationId, email: 'ada@acme.example' };
    const s = await mcp();
    await t.sb.fault({ method: 'POST', path: BOOK, fault: 'delay', delayMs: 2000 });
    await cancelled(s, 'book_meeting', args, async () => (await bookPosts()).length === 1);
    await until('the booking to be answered', async () => (await bookPosts())[0]!.status !== null);
    await until('the meeting to be on record', async () => {
      const r = await s.call('list_meetings', { email: args.email });
      return r.doc.meetings.length === 1;
    });
    const before = (await requests()).length;
    const again = ok(await s.call('book_meeting', args));
    expect(again.doc).toMatchObject({ status: 'already_booked', alreadyBookedCode: 'ON_RECORD' });
    expect((await requests()).length).toBe(before);
    expect((await t.sb.state()).meetings).toHaveLength(1);
  });

  it('book_meeting cancelled before its POST: nothing is sent, no result is sent for it, and the same call books later', async () => {
    const { reservationId, slots } = await cliSlots('intro-call');
    const args = { event: 'intro-call', start: slots[0], reservation_id: reservationId, email: 'ada@acme.example' };
    const raw = rawMcp({
      configDir: t.dir,
      env: { SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: t.sb.baseUrl },
    });
    await raw.initialize();
    const before = (await requests()).length;
    // The call and its cancellation in one write: the cancellation lands before the call's first await ends.
    raw.send(
      [
        JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'book_meeting', arguments: args },
        }),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'no' } }),
      ].join('\n'),
    );
    await new Promise((r) => setTimeout(r, 1000));
    raw.send(
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'list_meetings', arguments: {} } }),
    );
    const listed = await raw.answer(8);
    expect(listed.result.structuredContent.meetings).toEqual([]);
    expect(raw.seen().filter((m) => m.id === 7)).toEqual([]);
    expect((await requests()).length).toBe(before);

    raw.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'book_meeting', arguments: args },
      }),
    );
    const booked = await raw.answer(9);
    expect(booked.result.isError ?? false, JSON.stringify(booked)).toBe(false);
    expect(booked.result.structuredContent.meeting.date).toBe(slots[0]);
    expect(await bookPosts()).toHaveLength(1);
    await raw.close();
  });
});

/** The inputSchema of every tool, from tools/list. */
async function listTools(s: McpSession): Promise<Tool[]> {
  return (await s.client.listTools()).tools;
}

/** Every node of a schema tree with the path to it. */
function nodes(schema: unknown, path = '$'): Array<[string, Record<string, unknown>]> {
  if (Array.isArray(schema)) return schema.flatMap((x, i) => nodes(x, `${path}[${i}]`));
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Record<string, unknown>;
  return [[path, s], ...Object.entries(s).flatMap(([k, v]) => nodes(v, `${path}.${k}`))];
}

describe('mcp: bounded inputs', () => {
  it('declares maxLength on every string, maxItems on every array and maxProperties on every map of every input', async () => {
    const s = await shared();
    const missing: string[] = [];
    for (const tool of await listTools(s))
      for (const [path, n] of nodes(tool.inputSchema, tool.name)) {
        if (n.type === 'string' && typeof n.maxLength !== 'number' && !path.endsWith('.propertyNames'))
          missing.push(`${path}: maxLength`);
        if (n.type === 'array' && typeof n.maxItems !== 'number') missing.push(`${path}: maxItems`);
        if (n.type === 'object' && path !== tool.name && typeof n.maxProperties !== 'number')
          missing.push(`${path}: maxProperties`);
      }
    expect(missing).toEqual([]);
    const email = (await listTools(s)).find((x) => x.name === 'book_meeting')!.inputSchema.properties!.email as {
      maxLength: number;
    };
    expect(email.maxLength).toBe(254);
  });

  it.each([
    ['find_slots', { event: 'e'.repeat(1_000_000) }],
    [
      'fire_trigger',
      {
        trigger: TRIGGER,
        email: 'a@acme.example',
        fields: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`f${i}`, 'x'])),
      },
    ],
    [
      'book_meeting',
      {
        event: 'intro-call',
        start: '2030-01-01T10:00:00Z',
        reservation_id: 'r',
        email: `${'a'.repeat(5_000_000)}@acme.example`,
      },
    ],
    ['route_lead', { trigger: TRIGGER, email: 'a@acme.example', slot: 'first', fields: { company: 'x'.repeat(3000) } }],
    ['list_meetings', { ['x'.repeat(1_000_000)]: 1 }],
    ['reschedule_meeting', { meeting_id: 'm', start: 'tomorrow 15:00'.repeat(100) }],
  ])('%s: a value over its bound is refused before any request, in a short error', async (tool, args) => {
    const s = await shared();
    const before = (await requests()).length;
    const r = await s.call(tool, args);
    expect(r.isError, shown(r)).toBe(true);
    expect(r.doc.error.code).toBe('USAGE');
    expect(r.text.length).toBeLessThan(2000);
    expect(JSON.stringify(r.raw._meta).length).toBeLessThan(2500);
    expect((await requests()).length).toBe(before);
  });
});

describe('mcp: argument refusals are tool results', () => {
  it('a misspelt argument: isError, the error document in _meta, the suggestion kept; nothing sent', async () => {
    const s = await shared();
    const r = await s.call('book_meeting', {
      event: 'intro-call',
      start: '2030-01-01T10:00:00Z',
      reservationId: 'r',
      email: 'a@acme.example',
    });
    expect(r.isError).toBe(true);
    expect(r.text).not.toMatch(/MCP error|-32602|Input validation error/);
    expect(r.doc.error).toMatchObject({ code: 'USAGE' });
    expect(r.doc.error.message).toMatch(/reservationId.*did you mean reservation_id/);
    expect(r.text).toMatch(/did you mean reservation_id/);
    expect(await requests()).toEqual([]);
  });

  it('a wrong type or a missing argument: a tool result naming the argument', async () => {
    const s = await shared();
    const r = await s.call('find_slots', { event: 'intro-call', days: 'seven' });
    expect(r.isError).toBe(true);
    expect(r.doc.error.code).toBe('USAGE');
    expect(r.doc.error.message).toMatch(/days/);
    const missing = await s.call('book_meeting', { event: 'intro-call' });
    expect(missing.isError).toBe(true);
    expect([missing.doc.error.message, ...(missing.doc.error.details ?? [])].join('\n')).toMatch(/start/);
  });

  it('an unknown tool is a protocol error (-32602)', async () => {
    const s = await shared();
    const error = await s.client.callTool({ name: 'book_meetings', arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
  });
});

describe('mcp: schemas every client takes', () => {
  /** Inspector --strict's portability rules: no `type` arrays, no empty `{}` schema anywhere in the tree. */
  function strictWarnings(schema: unknown, path: string): string[] {
    return nodes(schema, path).flatMap(([p, n]) => [
      ...(Array.isArray(n.type) ? [`${p}: type array`] : []),
      ...(Object.keys(n).length === 0 ? [`${p}: empty schema`] : []),
    ]);
  }

  it('no type arrays and no empty schemas in any inputSchema or outputSchema; results still valid against them', async () => {
    const s = await mcp();
    const tools = await listTools(s);
    expect(tools).toHaveLength(9);
    expect(
      tools.flatMap((x) => [
        ...strictWarnings(x.inputSchema, `${x.name}.inputSchema`),
        ...strictWarnings(x.outputSchema, `${x.name}.outputSchema`),
      ]),
    ).toEqual([]);
    for (const x of tools) {
      expect(x.inputSchema.type).toBe('object');
      expect(x.outputSchema?.type).toBe('object');
    }

    const ajv = new AjvJsonSchemaValidator();
    const check = (name: string, r: ToolResult) => {
      const v = ajv.getValidator(tools.find((x) => x.name === name)!.outputSchema!)(r.raw.structuredContent);
      expect(v.valid, `${name}: ${v.errorMessage}\n${shown(r)}`).toBe(true);
    };
    const routed = ok(
      await s.call('route_lead', { trigger: TRIGGER, email: 'g@acme.example', fields: FIELDS, slot: 'first' }),
    );
    check('route_lead', routed);
    check(
      'route_lead',
      ok(await s.call('route_lead', { trigger: TRIGGER, email: 'g@acme.example', fields: FIELDS, slot: 'first' })),
    );
    check('list_meetings', ok(await s.call('list_meetings', { all: true })));
    check('list_triggers', ok(await s.call('list_triggers')));
    check('show_event', ok(await s.call('show_event', { event: 'intro-call' })));
    const found = ok(await s.call('find_slots', { event: 'intro-call' }));
    check('find_slots', found);
    const args = {
      event: 'intro-call',
      start: found.doc.slots[0],
      reservation_id: found.doc.reservationId,
      email: 'b@acme.example',
    };
    check('book_meeting', ok(await s.call('book_meeting', args)));
    check('book_meeting', ok(await s.call('book_meeting', args)));
  });
});

describe('mcp: claims that hold', () => {
  it('a second identical book_meeting answers already_booked without a request', async () => {
    const s = await mcp();
    const found = ok(await s.call('find_slots', { event: 'intro-call' }));
    const args = {
      event: 'intro-call',
      start: found.doc.slots[0],
      reservation_id: found.doc.reservationId,
      email: 'ada@acme.example',
    };
    ok(await s.call('book_meeting', args));
    const before = (await requests()).length;
    const again = ok(await s.call('book_meeting', args));
    expect(again.doc).toMatchObject({ status: 'already_booked', alreadyBookedCode: 'ON_RECORD' });
    expect(again.text).toMatch(/nothing was sent/);
    expect((await requests()).length).toBe(before);
    expect(await bookPosts()).toHaveLength(1);
  });

  it("route_lead's already_booked says what it sent: the trigger list, and no booking", async () => {
    const s = await mcp();
    const args = { trigger: TRIGGER, email: 'grace@acme.example', fields: FIELDS, slot: 'first' };
    ok(await s.call('route_lead', args));
    const before = (await requests()).length;
    const again = ok(await s.call('route_lead', args));
    const sentNow = (await requests()).slice(before);
    expect(sentNow.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/triggers']);
    expect(again.doc.requests).toBe(1);
    expect(again.text).not.toMatch(/nothing was sent/);
    expect(again.text).toMatch(/1 read request/);
  });

  it('a booking answered by an HTML 502 (which did nothing): outcome unknown, never "almost certainly"; the retry books once', async () => {
    const s = await mcp();
    const found = ok(await s.call('find_slots', { event: 'intro-call' }));
    const args = {
      event: 'intro-call',
      start: found.doc.slots[0],
      reservation_id: found.doc.reservationId,
      email: 'ada@acme.example',
    };
    await t.sb.fault({ method: 'POST', path: BOOK, fault: 'html' });
    const failed = await s.call('book_meeting', args);
    expect(failed.doc.error?.code, shown(failed)).toBe('OUTCOME_UNKNOWN');
    expect(failed.text).not.toMatch(/almost certainly/);
    expect(failed.text).toMatch(/outcome is unknown/);
    expect(failed.text).toMatch(/502/);
    expect(failed.doc.error.hint).toMatch(/call book_meeting again with exactly the same arguments/);
    expect((await t.sb.state()).meetings).toHaveLength(0);
    const retry = ok(await s.call('book_meeting', args));
    expect(retry.doc.meeting.date).toBe(found.doc.slots[0]);
    expect((await t.sb.state()).meetings).toHaveLength(1);
  });
});

describe('mcp: route_lead after an error answer', () => {
  it('an HTML 502 to its booking: outcome unknown in route_lead words; the same call again books once', async () => {
    const s = await mcp();
    const args = { trigger: TRIGGER, email: 'alan@acme.example', fields: FIELDS, slot: 'first' };
    await t.sb.fault({ method: 'POST', path: BOOK, fault: 'html' });
    const failed = await s.call('route_lead', args);
    expect(failed.doc.error?.code, shown(failed)).toBe('OUTCOME_UNKNOWN');
    expect(failed.text).not.toMatch(/almost certainly/);
    expect(failed.doc.error.hint).toMatch(/call route_lead again with exactly the same arguments/);
    expect((await t.sb.state()).meetings).toHaveLength(0);
    const again = ok(await s.call('route_lead', args));
    expect(again.doc.status).toBe('booked');
    const state = await t.sb.state();
    expect(state.meetings).toHaveLength(1);
    expect(state.executions).toHaveLength(1);
  });
});

describe('mcp: protocol edges', () => {
  const env = () => ({ SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: t.sb.baseUrl });

  it('answers requests only after initialize (ping excepted)', async () => {
    const raw = rawMcp({ configDir: t.dir, env: env() });
    raw.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect((await raw.answer(1)).error).toMatchObject({ code: -32600, message: expect.stringMatching(/initialize/) });
    raw.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    expect((await raw.answer(2)).result).toEqual({});
    await raw.initialize();
    raw.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    expect((await raw.answer(3)).result.tools).toHaveLength(9);
    await raw.close();
  });

  it('one reply for one over-long line, and it keeps serving', async () => {
    const raw = rawMcp({ configDir: t.dir, env: env() });
    await raw.initialize();
    raw.send('x'.repeat(11 * 1024 * 1024));
    raw.send(JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'ping' }));
    expect((await raw.answer('after')).result).toEqual({});
    const errors = raw.seen().filter((m) => m.error);
    expect(errors).toHaveLength(1);
    expect(errors[0].error.code).toBe(-32600);
    await raw.close();
  });

  it('resources/read: a malformed URI is -32602, an unknown one -32002', async () => {
    const raw = rawMcp({ configDir: t.dir, env: env() });
    await raw.initialize();
    raw.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'schedctl' } }));
    expect((await raw.answer(1)).error.code).toBe(-32602);
    raw.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'schedctl://nope' } }));
    const unknown = await raw.answer(2);
    expect(unknown.error).toMatchObject({ code: -32002, data: { uri: 'schedctl://nope' } });
    raw.send(
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'schedctl://meetings/all' } }),
    );
    expect(JSON.parse((await raw.answer(3)).result.contents[0].text)).toEqual({
      meetings: [],
      total: 0,
      offset: 0,
      nextOffset: null,
    });
    await raw.close();
  });
});

describe('mcp: prompts', () => {
  it('lists move_meeting and book_lead; each leaves rebook, force and re-fires to the person', async () => {
    const s = await shared();
    const { prompts } = await s.client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['book_lead', 'move_meeting']);
    const book = await s.client.getPrompt({
      name: 'book_lead',
      arguments: { email: 'ada@acme.example', trigger: TRIGGER },
    });
    const text = book.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');
    expect(text).toMatch(/route_lead/);
    expect(text).toMatch(/ada@acme\.example/);
    expect(text).toMatch(/decisions are mine/);
    expect(text).toMatch(/ask whether I want it moved \(reschedule_meeting\) or a second meeting \(rebook: true\)/);
    const move = await s.client.getPrompt({
      name: 'move_meeting',
      arguments: { email: 'ada@acme.example', when: 'tue 3pm' },
    });
    const moveText = move.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');
    expect(moveText).toMatch(/reschedule_meeting/);
    expect(moveText).toMatch(/never set rebook, force, force_fire or refire_on_conflict/);
    const error = await s.client.getPrompt({ name: 'book_lead', arguments: {} }).catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32602);
  });
});
