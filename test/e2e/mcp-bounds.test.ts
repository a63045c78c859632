/**
 * Issue 46 items 3, 4 and 6 (MCP), through the SDK's Client: list_meetings and the meetings
 * resources are bounded in structuredContent as in text, with a way to page; resources/templates/list
 * answers; prompt arguments are checked (an email that is not one, an unknown zone) and "first"
 * reads as the earliest free time; a protocol error's message carries the code once.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { DEMO_TRIGGER } from '../helpers/args.js';
import { leadRows, writeCsv } from '../helpers/bulk-run.js';
import { show } from '../helpers/cli.js';
import { shown, useMcpSessions, useSharedMcp } from '../helpers/mcp-client.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();

const mcp = useMcpSessions(t);
/** One server for the tests that only read the protocol's answers and the prompts (nothing kept, nothing sent). */
const shared = useSharedMcp(t);

describe('list_meetings and the meetings resources are bounded, with a way to page', () => {
  it('60 meetings on record: 50 in structuredContent and text, total and nextOffset; offset pages; the resource is bounded alike', async () => {
    const file = writeCsv(t.dir, 'leads.csv', 'email,company,region', leadRows('page', 60));
    const routed = await t.sb.cli(['route', '--from', file, '--trigger', DEMO_TRIGGER, '--json'], {
      configDir: t.dir,
      timeoutMs: 240_000,
    });
    expect(routed.code, show(routed)).toBe(0);
    const s = await mcp();

    const first = await s.call('list_meetings', {});
    expect(first.isError, shown(first)).toBe(false);
    expect(first.doc.meetings).toHaveLength(50);
    expect(first.doc).toMatchObject({ total: 60, offset: 0, nextOffset: 50 });
    expect(first.text).toMatch(/^60 meetings on record \(.*\), 1 to 50 listed:/);
    expect(first.text).toContain('Left out: 10 later meetings: call list_meetings again with offset 50');
    expect(first.text.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(50);

    const rest = await s.call('list_meetings', { offset: first.doc.nextOffset });
    expect(rest.doc).toMatchObject({ total: 60, offset: 50, nextOffset: null });
    expect(rest.doc.meetings).toHaveLength(10);
    const ids = [...first.doc.meetings, ...rest.doc.meetings].map((m: { id: string }) => m.id);
    expect(new Set(ids).size).toBe(60);
    expect(rest.text).not.toContain('Left out');

    const small = await s.call('list_meetings', { limit: 7, offset: 3 });
    expect(small.doc.meetings.map((m: { id: string }) => m.id)).toEqual(ids.slice(3, 10));
    expect(small.doc.nextOffset).toBe(10);
    const over = await s.call('list_meetings', { limit: 101 });
    expect(over.isError, shown(over)).toBe(true);
    expect(over.doc.error.code).toBe('USAGE');

    for (const uri of ['schedctl://meetings/upcoming', 'schedctl://meetings/all']) {
      const read = await s.client.readResource({ uri });
      const doc = JSON.parse(String((read.contents[0] as { text: string }).text));
      expect(doc.meetings, uri).toHaveLength(50);
      expect(doc).toMatchObject({ total: 60, offset: 0, nextOffset: 50 });
    }
    const { resources } = await s.client.listResources();
    expect(resources.find((r) => r.uri === 'schedctl://meetings/upcoming')!.description).toMatch(
      /the first 50, earliest first, with total and nextOffset \(list_meetings with offset lists the rest\)/,
    );
  }, 300_000);
});

describe('protocol', () => {
  it('resources/templates/list answers an empty list', async () => {
    const s = await shared();
    expect(await s.client.listResourceTemplates()).toEqual({ resourceTemplates: [] });
  });

  it('a protocol error reads "MCP error <code>:" once in the client', async () => {
    const s = await shared();
    const error = (await s.client.readResource({ uri: 'schedctl://nope' }).catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(-32002);
    expect(error.message).toMatch(/^MCP error -32002: Resource not found: "schedctl:\/\/nope"/);
    expect(error.message.match(/MCP error/g)).toHaveLength(1);
    const prompt = (await s.client.getPrompt({ name: 'nope' }).catch((e: unknown) => e)) as McpError;
    expect(prompt.message).toMatch(/^MCP error -32602: unknown prompt "nope"/);
  });
});

describe('prompt arguments', () => {
  const text = (r: { messages: Array<{ content: { type: string; text?: string } }> }) =>
    r.messages.map((m) => m.content.text ?? '').join('\n');

  it('book_lead refuses an email that is not one and an unknown zone, naming each', async () => {
    const s = await shared();
    const error = (await s.client
      .getPrompt({ name: 'book_lead', arguments: { email: 'not an email', tz: 'Mars/Olympus' } })
      .catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('email "not an email" is not an email address');
    expect(error.message).toContain('tz "Mars/Olympus" is not an IANA time zone');
    const move = (await s.client
      .getPrompt({ name: 'move_meeting', arguments: { email: 'ada@acme.example', tz: 'Nowhere' } })
      .catch((e: unknown) => e)) as McpError;
    expect(move.message).toContain('tz "Nowhere" is not an IANA time zone');
  });

  it('book_lead with when "first" asks for the earliest free time, not a time called "first"', async () => {
    const s = await shared();
    const r = await s.client.getPrompt({
      name: 'book_lead',
      arguments: { email: 'ada@acme.example', trigger: DEMO_TRIGGER, when: 'first', tz: 'europe/berlin' },
    });
    expect(text(r)).toContain('at the earliest free time');
    expect(text(r)).not.toContain('at "first"');
    expect(text(r)).toContain("slot 'first' (the earliest free time)");
    const timed = await s.client.getPrompt({
      name: 'book_lead',
      arguments: { email: 'ada@acme.example', when: 'tomorrow 15:00' },
    });
    expect(text(timed)).toContain('at "tomorrow 15:00"');
  });
});
