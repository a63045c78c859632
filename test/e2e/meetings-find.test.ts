/**
 * Meetings found by what people remember (issue 43, finding 4): a routed meeting by its link's
 * slug, its event's slug and words of its title or trigger; a TITLE column on a wide terminal;
 * the MCP tool `list_meetings` with the same filters.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { show, type RunResult } from '../helpers/cli.js';
import { demoRouteArgs } from '../helpers/args.js';
import { type McpSession, startMcp } from '../helpers/mcp-client.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
let session: McpSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const cli = (args: string[], env: Record<string, string> = {}): Promise<RunResult> =>
  t.sb.cli(args, { configDir: t.dir, env: { SCHEDCTL_RATE: '0', TZ: 'UTC', ...env } });
const ids = (r: RunResult) => (r.json() as Array<{ id: string }>).map((m) => m.id);

async function routeAda(): Promise<string> {
  const r = await cli([...demoRouteArgs('ada@acme.example', 'emea'), '--slot', 'first', '--yes', '--json']);
  expect(r.code, show(r)).toBe(0);
  return (r.json() as { meeting: { id: string } }).meeting.id;
}

describe('meetings ls finds a routed meeting', () => {
  it("by its link's slug, its event's slug, words of its title or trigger; not by other words", async () => {
    const id = await routeAda();
    for (const event of ['sales-emea', 'product-demo']) {
      const r = await cli(['meetings', 'ls', '--event', event, '--json']);
      expect(r.code, show(r)).toBe(0);
      expect(ids(r), `--event ${event}`).toEqual([id]);
    }
    // The slug learnt once costs no request the next time.
    const before = await t.sb.requestCount();
    expect(ids(await cli(['meetings', 'ls', '--event', 'sales-emea', '--json']))).toEqual([id]);
    expect(await t.sb.requestCount()).toBe(before);

    for (const words of [['Product Demo'], ['product', 'demo'], ['inbound', 'request'], ['ADA@acme']]) {
      const r = await cli(['meetings', 'ls', ...words, '--json']);
      expect(r.code, show(r)).toBe(0);
      expect(ids(r), words.join(' ')).toEqual([id]);
    }
    const none = await cli(['meetings', 'ls', 'product', 'strategy', '--json']);
    expect(none.json()).toEqual([]);
    const otherEvent = await cli(['meetings', 'ls', '--event', 'intro-call', '--json']);
    expect(otherEvent.json()).toEqual([]);
  });

  it('shows a TITLE column when the terminal is wide enough, not otherwise', async () => {
    await routeAda();
    const wide = await cli(['meetings', 'ls'], { COLUMNS: '250' });
    expect(wide.code, show(wide)).toBe(0);
    expect(wide.stdout).toMatch(/LEAD\s+TITLE\s+EVENT/);
    expect(wide.stdout).toContain('Product Demo with');
    const narrow = await cli(['meetings', 'ls'], { COLUMNS: '60' });
    expect(narrow.stdout).not.toContain('TITLE');
    const piped = await cli(['meetings', 'ls']);
    expect(piped.stdout).not.toContain('TITLE');
  });

  it('list_meetings takes the same filters (event, text)', async () => {
    const id = await routeAda();
    session = await startMcp({
      configDir: t.dir,
      env: { SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: t.sb.baseUrl },
    });
    const byEvent = await session.call('list_meetings', { event: 'sales-emea', tz: 'UTC' });
    expect(byEvent.isError, byEvent.text).toBe(false);
    expect(byEvent.doc.meetings.map((m: { id: string }) => m.id)).toEqual([id]);
    const byText = await session.call('list_meetings', { text: 'product demo' });
    expect(byText.doc.meetings.map((m: { id: string }) => m.id)).toEqual([id]);
    const none = await session.call('list_meetings', { text: 'quarterly' });
    expect(none.doc.meetings).toEqual([]);
  });
});
