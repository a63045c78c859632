import { describe, expect, it } from 'vitest';
import { show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const api = async (path: string) =>
  (
    await fetch(`${t.sb.baseUrl}${path}`, { headers: { authorization: `Bearer ${t.sb.keys.full}` } })
  ).json() as Promise<any>;
const SLUGS_NEWEST_FIRST = [
  'intro-call',
  'product-demo',
  'strategy-session',
  'onboarding',
  'support-escalation',
  'partner-sync',
  'quarterly-review',
];

describe('events ls', () => {
  it('prints the first page as a table, newest first, and says how to get more', async () => {
    const r = await t.sb.cli(['events', 'ls']);
    expect(r.code, show(r)).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SLUG\s+DURATION \(min\)\s+INCREMENT\s+CONFERENCING\s+ID$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/)[1])).toEqual(SLUGS_NEWEST_FIRST.slice(0, 5));
    expect(lines[2]).toMatch(/^Product Demo\s+product-demo\s+30\s+30\s+calendar_default\s+[0-9a-f-]{36}$/);
    expect(r.stderr).toContain('more events: schedctl events ls --all');
    expect(await t.sb.requestCount()).toBe(1);
  });

  it('prints the page and its nextCursor with --json, and --cursor continues from it', async () => {
    const first = await t.sb.cli(['events', 'ls', '--json', '--limit', '4']);
    expect(first.code, show(first)).toBe(0);
    const page = first.json();
    expect(Object.keys(page).sort()).toEqual(['events', 'nextCursor']);
    expect(page.events.map((e: { slug: string }) => e.slug)).toEqual(SLUGS_NEWEST_FIRST.slice(0, 4));
    expect(page.events[0]).toEqual((await api('/v1/scheduling/events?limit=1')).events[0]);
    expect(page.nextCursor).not.toBe('');
    const second = await t.sb.cli(['events', 'ls', '--json', '--limit', '4', '--cursor', page.nextCursor]);
    expect(second.json()).toEqual({ events: expect.any(Array), nextCursor: '' });
    expect(second.json().events.map((e: { slug: string }) => e.slug)).toEqual(SLUGS_NEWEST_FIRST.slice(4));
  });

  it('follows every page with --all', async () => {
    const r = await t.sb.cli(['events', 'ls', '--all', '--limit', '3', '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json().events.map((e: { slug: string }) => e.slug)).toEqual(SLUGS_NEWEST_FIRST);
    expect(r.json().nextCursor).toBe('');
    expect(await t.sb.requestCount()).toBe(3);
    const human = await t.sb.cli(['events', 'ls', '--all']);
    expect(human.stdout.trim().split('\n')).toHaveLength(1 + 7);
    expect(human.stderr).not.toContain('more events');
  });

  it('rejects a --limit outside 1..50 before any request', async () => {
    for (const limit of ['0', '51', 'ten', '2.5']) {
      const r = await t.sb.cli(['events', 'ls', '--limit', limit, '--json']);
      expect(r.code, show(r)).toBe(2);
      expect(r.json().error.message).toContain(`invalid --limit "${limit}"`);
    }
    expect(await t.sb.requestCount()).toBe(0);
  });
});

describe('events show', () => {
  it('shows hosts and questions with required and work-email markers', async () => {
    const r = await t.sb.cli(['events', 'show', 'product-demo']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain('Product Demo  (product-demo)');
    expect(r.stdout).toMatch(/duration\s+30 min, a start every 30 min/);
    expect(r.stdout).toMatch(/Amelia Hart\s+primary/);
    expect(r.stdout).toMatch(/Chiyo Sato/);
    // Numbered from 1 for people (the API's `order` starts at 0).
    expect(r.stdout).toMatch(/1\s+Work email\s+email\s+yes\s+work email required/);
    expect(r.stdout).toMatch(
      /2\s+Team size\s+select\s+no\s+options: 1-10 \(1 to 10\), 11-50 \(11 to 50\), 51\+ \(More than 50\)/,
    );
    expect(r.stderr).toContain('schedctl slots product-demo');
  });

  it('prints the EventDetail with --json', async () => {
    const r = await t.sb.cli(['events', 'show', 'strategy-session', '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toEqual(await api('/v1/scheduling/events/strategy-session'));
    expect(r.json().hosts.map((h: { name: string }) => h.name)).toEqual(['Chiyo Sato', 'Diego Ramos']);
  });

  it("shows a scheduling link's own hosts", async () => {
    const r = await t.sb.cli(['events', 'show', 'sales-apac', '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json().slug).toBe('product-demo');
    expect(r.json().hosts).toEqual([expect.objectContaining({ name: 'Chiyo Sato', isPrimary: true })]);
  });

  it('answers exit 4 for an unknown event', async () => {
    const r = await t.sb.cli(['events', 'show', 'no-such-event', '--json']);
    expect(r.code, show(r)).toBe(4);
    expect(r.json().error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('a --json failure is printed once: the document (one line) on stdout, only its headline on stderr', async () => {
    const r = await t.sb.cli(['events', 'show', 'nope', '--json']);
    expect(r.code, show(r)).toBe(4);
    expect(r.stdout.split('\n')).toEqual([expect.stringMatching(/^\{"error":\{/), '']);
    const e = r.json().error;
    expect(e).toMatchObject({ code: 'NOT_FOUND', hint: expect.any(String) });
    expect(r.stderr).toBe(`error: ${e.message} (NOT_FOUND, HTTP 404)\n`);
    expect(r.stderr).not.toContain('hint:');
    // --quiet: the document alone.
    const quiet = await t.sb.cli(['events', 'show', 'nope', '--json', '--quiet']);
    expect(quiet.stderr).toBe('');
    // Without --json: the lines for people, hint included.
    const human = await t.sb.cli(['events', 'show', 'nope']);
    expect(human.stdout).toBe('');
    expect(human.stderr).toContain(`\nhint: ${e.hint}`);
  });
});
