/**
 * One lead, one meeting, whichever way the second attempt comes (issue: the lead ledger). Each
 * path that booked twice before the ledger, end to end against the sandbox, checked against
 * the sandbox's own meetings per lead, not exit codes alone.
 */
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bookSlotArgs, demoFireArgs, demoRouteFirstArgs } from '../helpers/args.js';
import { runCli, show, tempDir, type RunResult } from '../helpers/cli.js';
import { startMcp, shown } from '../helpers/mcp-client.js';
import { describeRun, jsonOf, sleep, startCli } from '../helpers/parallel-run.js';
import { useSandbox } from '../helpers/sandbox.js';
import { readOwner } from '../../src/state/lead-lock.js';

const HOLD_SECONDS = 60;
const t = useSandbox({ holdSeconds: HOLD_SECONDS });
const BOOK_PATH = '/v1/scheduling/meetings';

const cli = (args: string[], env: Record<string, string> = {}): Promise<RunResult> =>
  t.sb.cli(args, { configDir: t.dir, env: { SCHEDCTL_RATE: '0', ...env } });

/** The sandbox's meetings of one lead: what the promise is about. */
async function meetingsOf(email: string) {
  return (await t.sb.state()).meetings.filter((m) => m.personEmail === email);
}

/** Free times from now on; tests book from the second one, never seconds away (it could slip into the past). */
async function freshSlots(event: string): Promise<{ reservationId: string; eventId: string; slots: string[] }> {
  return t.sb.slots(event, 14);
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(20)) if (await check()) return true;
  return false;
}

const book = (event: string, slot: string, reservationId: string, email: string, extra: string[] = []) =>
  cli([...bookSlotArgs(event, slot, reservationId, email), '--json', ...extra]);

describe('1. the two-step flow (trigger fire, slots, book --execution), then route', () => {
  it('route for the same lead, trigger and answers answers already_booked; other answers are refused', async () => {
    const email = 'two-step@acme.example';
    const fired = await cli([...demoFireArgs(email, 'emea'), '--json']);
    expect(fired.code, show(fired)).toBe(0);
    const { executionId, outcome } = fired.json();
    const s = await freshSlots(outcome.schedulingLinkId);
    const booked = await book(outcome.schedulingLinkId, s.slots[1]!, s.reservationId, email, [
      '--execution',
      executionId,
    ]);
    expect(booked.code, show(booked)).toBe(0);

    const again = await cli([...demoRouteFirstArgs(email, 'emea'), '--json']);
    expect(again.code, show(again)).toBe(0);
    expect(again.json()).toMatchObject({ status: 'already_booked', alreadyBookedCode: 'ON_RECORD' });

    const other = await cli([...demoRouteFirstArgs(email, 'apac'), '--json']);
    expect(other.code, show(other)).toBe(5);
    expect(other.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
    expect(other.json().error.hint).toContain('--rebook');
    expect(await meetingsOf(email)).toHaveLength(1);
  });
});

describe('2. a lost answer, then anything that is not the identical command', () => {
  it('a fresh slots + book, route with other answers, a bulk row and the MCP tool are refused (LEAD_OUTCOME_UNKNOWN); the identical command resolves it', async () => {
    const email = 'lost@acme.example';
    await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'drop-after-commit' });
    const s = await freshSlots('intro-call');
    const first = await book('intro-call', s.slots[1]!, s.reservationId, email);
    expect(first.code, show(first)).toBe(7);
    expect(await meetingsOf(email)).toHaveLength(1);

    const s2 = await freshSlots('intro-call');
    const other = await book('intro-call', s2.slots[3]!, s2.reservationId, email);
    expect(other.code, show(other)).toBe(5);
    expect(other.json().error).toMatchObject({ code: 'LEAD_OUTCOME_UNKNOWN' });
    expect(other.json().error.message).toContain('unknown outcome');
    expect(other.json().error.hint).toContain(`--reservation ${s.reservationId}`);

    const routed = await cli([...demoRouteFirstArgs(email, 'apac'), '--json']);
    expect(routed.code, show(routed)).toBe(5);
    expect(routed.json().error).toMatchObject({ code: 'LEAD_OUTCOME_UNKNOWN' });

    const csv = join(tempDir(), 'leads.csv');
    writeFileSync(csv, `email,trigger,company,region,slot\n${email},Inbound demo request,Acme,emea,first\n`);
    const bulk = await cli(['route', '--from', csv, '--json']);
    expect(bulk.code, show(bulk)).toBe(8);
    expect(bulk.stdout + bulk.stderr).toContain('LEAD_OUTCOME_UNKNOWN');

    const mcp = await startMcp({
      configDir: t.dir,
      env: { SCHEDCTL_BASE_URL: t.sb.baseUrl, SCHEDCTL_API_KEY: t.sb.keys.full },
    });
    try {
      const r = await mcp.call('route_lead', {
        trigger: 'Inbound demo request',
        email,
        fields: { company: 'Acme', region: 'americas' },
        slot: 'first',
      });
      expect(r.isError, shown(r)).toBe(true);
      expect(r.text).toContain('LEAD_OUTCOME_UNKNOWN');
    } finally {
      await mcp.close();
    }
    expect(await meetingsOf(email)).toHaveLength(1);

    // The identical command again resolves it (the reservation is spent: the meeting exists).
    const same = await book('intro-call', s.slots[1]!, s.reservationId, email);
    expect(same.code, show(same)).toBe(0);
    expect(same.json()).toMatchObject({ status: 'already_booked', alreadyBookedCode: 'RESERVATION_USED' });
    // Known to exist now: another booking is refused as a meeting, and --rebook books a second one.
    const after = await book('intro-call', s2.slots[3]!, s2.reservationId, email);
    expect(after.code, show(after)).toBe(5);
    expect(after.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
    const rebooked = await book('intro-call', s2.slots[3]!, s2.reservationId, email, ['--rebook']);
    expect(rebooked.code, show(rebooked)).toBe(0);
    expect(await meetingsOf(email)).toHaveLength(2);
  });
});

describe('3. the same event under another name', () => {
  it("book intro-call, then book <intro-call's uuid> at the same time answers already_booked; another time is refused", async () => {
    const email = 'alias@acme.example';
    const s = await freshSlots('intro-call');
    expect((await book('intro-call', s.slots[1]!, s.reservationId, email)).code).toBe(0);
    const s2 = await freshSlots(s.eventId);
    const byId = await book(s.eventId, s.slots[1]!, s2.reservationId, email);
    expect(byId.code, show(byId)).toBe(0);
    expect(byId.json()).toMatchObject({ status: 'already_booked', alreadyBookedCode: 'ON_RECORD' });
    const later = await book(s.eventId, s2.slots[2]!, s2.reservationId, email);
    expect(later.code, show(later)).toBe(5);
    expect(later.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
    // The MCP tool: the same rule, by the same identities.
    const mcp = await startMcp({
      configDir: t.dir,
      env: { SCHEDCTL_BASE_URL: t.sb.baseUrl, SCHEDCTL_API_KEY: t.sb.keys.full },
    });
    try {
      const s3 = await freshSlots('intro-call');
      const same = await mcp.call('book_meeting', {
        event: s.eventId.toUpperCase(),
        start: s.slots[1]!,
        reservation_id: s3.reservationId,
        email: email.toUpperCase(),
      });
      expect(same.isError, shown(same)).toBe(false);
      expect(same.doc).toMatchObject({ status: 'already_booked', alreadyBookedCode: 'ON_RECORD' });
      const other = await mcp.call('book_meeting', {
        event: 'intro-call',
        start: s3.slots[3]!,
        reservation_id: s3.reservationId,
        email,
      });
      expect(other.isError, shown(other)).toBe(true);
      expect(other.text).toContain('LEAD_HAS_MEETING');
      expect(other.text).toContain('rebook: true');
    } finally {
      await mcp.close();
    }
    expect(await meetingsOf(email)).toHaveLength(1);
  });

  it('a meeting booked through a scheduling link belongs to its event: book of the event is refused', async () => {
    const email = 'link@acme.example';
    const routed = await cli([...demoRouteFirstArgs(email, 'emea'), '--json']);
    expect(routed.code, show(routed)).toBe(0);
    const s = await freshSlots('product-demo');
    const direct = await book('product-demo', s.slots[5]!, s.reservationId, email);
    expect(direct.code, show(direct)).toBe(5);
    expect(direct.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
    expect(await meetingsOf(email)).toHaveLength(1);
  });
});

describe('4. the same workspace under another name', () => {
  it('two profiles of one key, the URL spelled two ways, share one ledger', async () => {
    const dir = tempDir();
    const port = new URL(t.sb.baseUrl).port;
    const env = { SCHEDCTL_RATE: '0', SCHEDCTL_API_KEY: undefined, SCHEDCTL_BASE_URL: undefined };
    for (const [name, url] of [
      ['alpha', `http://127.0.0.1:${port}`],
      ['beta', `http://LOCALHOST:${port}/`],
    ] as const) {
      const added = await runCli(['profile', 'add', name, '--key-stdin', '--no-verify', '--base-url', url], {
        configDir: dir,
        env,
        input: `${t.sb.keys.full}\n`,
      });
      expect(added.code, show(added)).toBe(0);
    }
    const email = 'profiles@acme.example';
    const s = await freshSlots('intro-call');
    const a = await runCli(
      [...bookSlotArgs('intro-call', s.slots[1]!, s.reservationId, email), '--json', '-p', 'alpha'],
      {
        configDir: dir,
        env,
      },
    );
    expect(a.code, show(a)).toBe(0);
    const s2 = await freshSlots('intro-call');
    const b = await runCli(
      [...bookSlotArgs('intro-call', s2.slots[4]!, s2.reservationId, email), '--json', '-p', 'beta'],
      {
        configDir: dir,
        env,
      },
    );
    expect(b.code, show(b)).toBe(5);
    expect(b.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
    const listed = await runCli(['meetings', 'ls', '--json', '-p', 'beta'], { configDir: dir, env });
    expect(listed.code, show(listed)).toBe(0);
    expect(JSON.stringify(listed.json())).toContain(a.json().meeting.id);
    expect(await meetingsOf(email)).toHaveLength(1);
  });
});

describe('5. a run stopped while it holds the lead', () => {
  it('keeps its lock while stopped (the other run waits and says who holds it); once its lock is taken from it, it sends nothing', async () => {
    const email = 'stopped@acme.example';
    // The first run's slots answer comes late: it is stopped after its guard, before its booking.
    await t.sb.fault({ method: 'POST', path: '/v1/scheduling/events/*/slots', fault: 'delay', delayMs: 1500 });
    const first = startCli([...demoRouteFirstArgs(email, 'emea'), '--json'], {
      configDir: t.dir,
      env: { SCHEDCTL_BASE_URL: t.sb.baseUrl, SCHEDCTL_API_KEY: t.sb.keys.full },
      timeoutMs: 60_000,
    });
    const leads = join(t.dir, 'leads');
    const holder = () =>
      existsSync(leads)
        ? readdirSync(leads)
            .map((l) => readOwner(join(leads, l))?.pid)
            .find(Boolean)
        : undefined;
    expect(
      await until(
        async () =>
          holder() === first.child.pid && (await t.sb.state()).requests.some((q) => q.path.endsWith('/slots')),
      ),
    ).toBe(true);
    first.child.kill('SIGSTOP');
    try {
      const second = startCli([...demoRouteFirstArgs(email, 'emea'), '--json'], {
        configDir: t.dir,
        env: { SCHEDCTL_BASE_URL: t.sb.baseUrl, SCHEDCTL_API_KEY: t.sb.keys.full },
        timeoutMs: 60_000,
      });
      // Past the lock's stale age (10 s default is long; what matters: it is not taken over while the holder lives).
      await sleep(2500);
      expect(await meetingsOf(email)).toHaveLength(0);
      // Forced: the lock is removed by hand (as `rm` of the lock directory would), the waiting run takes it.
      for (const entry of readdirSync(leads)) rmSync(join(leads, entry), { recursive: true, force: true });
      const r2 = await second.done;
      expect(r2.code, describeRun(r2)).toBe(0);
      expect(r2.stderr).toMatch(
        new RegExp(`waiting for another schedctl run booking ${email}: pid ${first.child.pid} on `),
      );
    } finally {
      first.child.kill('SIGCONT');
    }
    const r1 = await first.done;
    expect(r1.code, describeRun(r1)).toBe(5);
    expect(jsonOf(r1).error).toMatchObject({ code: 'LEAD_LOCK_LOST' });
    expect(r1.stdout).toContain('nothing was sent');
    expect(await meetingsOf(email)).toHaveLength(1);
    const bookings = (await t.sb.state()).requests.filter((q) => q.method === 'POST' && q.path === BOOK_PATH);
    expect(bookings).toHaveLength(1);
  });
});

describe('6. a 500, later read as a booking', () => {
  it('after an explicit error answer, RESERVATION_EXPIRED on the retry stays unknown (exit 7), never already_booked', async () => {
    const email = 'five-hundred@acme.example';
    await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'status', status: 500 });
    const s = await freshSlots('intro-call');
    const first = await book('intro-call', s.slots[1]!, s.reservationId, email);
    expect(first.code, show(first)).toBe(7);
    await t.sb.advance(HOLD_SECONDS + 5);
    const retry = await book('intro-call', s.slots[1]!, s.reservationId, email);
    expect(retry.code, show(retry)).toBe(7);
    expect(retry.stdout + retry.stderr).not.toMatch(/already.booked/i);
    expect(retry.json().error.message).toContain('whether it booked a meeting is unknown');
    expect(await meetingsOf(email)).toHaveLength(0);
    // Still blocking: a new booking of the lead is refused until rebook says otherwise (with a warning).
    const s2 = await freshSlots('intro-call');
    const other = await book('intro-call', s2.slots[2]!, s2.reservationId, email);
    expect(other.code, show(other)).toBe(5);
    expect(other.json().error).toMatchObject({ code: 'LEAD_OUTCOME_UNKNOWN' });
    const rebooked = await book('intro-call', s2.slots[2]!, s2.reservationId, email, ['--rebook']);
    expect(rebooked.code, show(rebooked)).toBe(0);
    expect(rebooked.stderr).toContain('a meeting may already exist');
    expect(await meetingsOf(email)).toHaveLength(1);
  });
});

describe('7. parallel reschedules of one meeting', () => {
  it('the record ends at the server’s last answer, its history in order', async () => {
    const email = 'moves@acme.example';
    // One host (the event's only one): every time it offers is free for the meeting's host.
    const s = await freshSlots('quarterly-review');
    const booked = await book('quarterly-review', s.slots[1]!, s.reservationId, email);
    expect(booked.code, show(booked)).toBe(0);
    const id = booked.json().meeting.id as string;
    const targets = [s.slots[3]!, s.slots[6]!, s.slots[9]!, s.slots[12]!];
    const runs = await Promise.all(targets.map((start) => cli(['reschedule', id, '--start', start, '--json'])));
    for (const r of runs) expect(r.code, show(r)).toBe(0);
    const server = (await t.sb.state()).meetings.find((m) => m.id === id)!;
    const local = await cli(['meetings', 'show', id, '--json']);
    expect(local.code, show(local)).toBe(0);
    const record = local.json();
    expect(Date.parse(record.date ?? record.meeting?.date)).toBe(Date.parse(server.date));
    const history = (record.history ?? record.meeting?.history) as { from?: string; to: string; at: string }[];
    expect(history).toHaveLength(4);
    for (let i = 1; i < history.length; i++) expect(history[i]!.from).toBe(history[i - 1]!.to);
    expect(Date.parse(history.at(-1)!.to)).toBe(Date.parse(server.date));
  });
});

describe('fires are journaled', () => {
  it('a fire whose answer was lost is told to the next fire of that lead and trigger (--json: unansweredFires)', async () => {
    const email = 'fire-lost@acme.example';
    await t.sb.fault({ method: 'POST', path: '/v1/triggers/*', fault: 'drop-after-commit' });
    const first = await cli([...demoFireArgs(email, 'emea'), '--json']);
    expect(first.code, show(first)).toBe(7);
    const again = await cli([...demoFireArgs(email, 'emea'), '--json']);
    expect(again.code, show(again)).toBe(0);
    expect(again.stderr).toMatch(
      /an earlier fire of "Inbound demo request" for fire-lost@acme\.example .*got no answer/,
    );
    expect(again.json().unansweredFires).toHaveLength(1);
    // Told once: the answered fire settles it.
    const third = await cli([...demoFireArgs(email, 'apac'), '--json']);
    expect(third.code, show(third)).toBe(0);
    expect(third.json().unansweredFires).toBeUndefined();
  });
});

describe('schedctl api, the raw escape hatch', () => {
  it('says that a booking or a move it sends is outside the lead ledger; a read says nothing', async () => {
    const post = await cli(['api', 'POST', '/v1/scheduling/meetings', '--data', '{}', '--json']);
    expect(post.code, show(post)).not.toBe(0);
    expect(post.stderr).toContain('the lead ledger does not see it');
    const get = await cli(['api', 'GET', '/v1/triggers', '--json']);
    expect(get.code, show(get)).toBe(0);
    expect(get.stderr).not.toContain('lead ledger');
  });
});
