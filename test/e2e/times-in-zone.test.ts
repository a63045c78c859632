/**
 * Every time a person reads is in their zone (issue 43, finding 6): smoke's reservation line,
 * a bulk reschedule's warning quoting the API's message, an MCP tool's error text; and a TZ
 * that names no zone is said once on stderr, never shown as `undefined`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { show, tempDir, type RunResult } from '../helpers/cli.js';
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
  t.sb.cli(args, { configDir: t.dir, env: { SCHEDCTL_RATE: '0', ...env } });
/** An ISO 8601 instant in UTC, as the API writes them. */
const RAW_ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z/;

/** 03:00 UTC the day after tomorrow: a time no seeded host works (they work in daytime hours). */
const nightTime = () => {
  const d = new Date(Date.now() + 2 * 86_400_000);
  d.setUTCHours(3, 0, 0, 0);
  return d.toISOString();
};

describe('a TZ that is not a time zone', () => {
  it('is named once on stderr, and the times are in UTC, never "undefined"', async () => {
    const booked = await cli([...demoRouteArgs('ada@acme.example', 'emea'), '--slot', 'first', '--yes']);
    expect(booked.code, show(booked)).toBe(0);
    const r = await cli(['meetings', 'ls', '--all'], { TZ: 'America/New York' });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toMatch(/^TIME \(UTC\)/);
    const notes = r.stderr.split('\n').filter((l) => l.includes('is not a time zone'));
    expect(notes).toEqual(["warning: TZ 'America/New York' is not a time zone; using UTC"]);
    expect(r.stdout + r.stderr).not.toContain('undefined');

    const listed = await cli(['slots', 'intro-call', '--days', '2'], { TZ: 'America/New York' });
    expect(listed.code, show(listed)).toBe(0);
    expect(listed.stdout + listed.stderr).not.toContain('undefined');
  });
});

describe('a zone as the user named it (issue 54, finding 6)', () => {
  it("TZ=Asia/Kolkata and --tz asia/kolkata are labelled Asia/Kolkata, never ICU's older Asia/Calcutta", async () => {
    const booked = await cli([...demoRouteArgs('ada@acme.example', 'emea'), '--slot', 'first', '--yes']);
    expect(booked.code, show(booked)).toBe(0);
    const byTz = await cli(['meetings', 'ls', '--all'], { TZ: 'Asia/Kolkata' });
    expect(byTz.code, show(byTz)).toBe(0);
    expect(byTz.stdout).toMatch(/^TIME \(Asia\/Kolkata\)/);
    const byFlag = await cli(['meetings', 'ls', '--all', '--tz', 'asia/kolkata']);
    expect(byFlag.stdout, show(byFlag)).toMatch(/^TIME \(Asia\/Kolkata\)/);
    expect(byTz.stdout + byTz.stderr + byFlag.stdout + byFlag.stderr).not.toContain('Calcutta');
  });
});

describe('times in the user zone', () => {
  it("smoke's reservation line", async () => {
    const r = await cli(['smoke', '--event', 'intro-call'], { TZ: 'Asia/Kolkata' });
    expect(r.code, show(r)).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.includes('reservation'));
    expect(line, show(r)).toBeDefined();
    expect(line).not.toMatch(RAW_ISO);
    expect(line).toMatch(/until \d{4}-\d{2}-\d{2} \d{2}:\d{2} GMT\+5:30/);
  });

  it("a bulk reschedule's warning quoting the API's refusal", async () => {
    const page = await t.sb.slots('intro-call', 7);
    const booked = await cli([
      'book',
      'intro-call',
      '--start',
      page.slots[0]!,
      '--reservation',
      page.reservationId,
      '--email',
      'kim@acme.example',
      '--json',
    ]);
    expect(booked.code, show(booked)).toBe(0);
    const id = (booked.json() as { meeting: { id: string } }).meeting.id;
    const file = join(tempDir(), 'moves.csv');
    writeFileSync(file, `meeting,start\n${id},${nightTime()}\n`);
    const r = await cli(['reschedule', '--file', file], { TZ: 'America/New_York' });
    expect(r.code, show(r)).toBe(8);
    const warning = r.stderr.split('\n').find((l) => l.includes('line 2'));
    expect(warning, show(r)).toContain('CONFLICT');
    expect(warning).not.toMatch(RAW_ISO);
    expect(warning).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} E[SD]T/);
  });

  it("an MCP tool's error text, in the tool's tz", async () => {
    session = await startMcp({
      configDir: t.dir,
      env: { SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: t.sb.baseUrl },
    });
    const found = await session.call('find_slots', { event: 'intro-call', days: 3 });
    expect(found.isError, found.text).toBe(false);
    const r = await session.call('book_meeting', {
      event: 'intro-call',
      start: nightTime(),
      reservation_id: found.doc.reservationId,
      email: 'lee@acme.example',
      tz: 'Asia/Kolkata',
    });
    expect(r.isError, r.text).toBe(true);
    const first = r.text.split('\n')[0]!;
    expect(first).not.toMatch(RAW_ISO);
    expect(first).toMatch(/GMT\+5:30/);
  });
});
