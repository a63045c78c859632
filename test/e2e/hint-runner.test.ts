/**
 * Issue 54, finding 4: every command a message suggests runs as written. Each hint-bearing failure
 * below is provoked through the built CLI; every `schedctl …` command its hint names is taken from
 * the hint line people read, its placeholders (<time>, <field>) filled with real values, and run
 * against the same sandbox: none may exit 2 (a usage error), and each does what it says (exit 0).
 * The commands carry the failing command line's --profile, so they reach the same API.
 */
import { describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { runCli, show, type RunResult } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const cli = (args: string[]) => t.sb.cli(args, { configDir: t.dir, env: { TZ: 'UTC' } });

/** The `schedctl …` commands of the human `hint:` line, each up to where the sentence goes on. */
export function hintCommands(r: RunResult): string[] {
  const hint = r.stderr.split('\n').find((l) => l.startsWith('hint: '));
  if (!hint) return [];
  return [...hint.matchAll(/schedctl (?:[^`;,()]|, (?!or |and |then ))+/g)]
    .map((m) => m[0].trim().replace(/[.:]$/, ''))
    .filter((c) => /^schedctl (?:-|[a-z])/.test(c));
}

/** Shell words (bare, 'single' or "double" quoted), as the shell the hint is pasted into reads them. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3] ?? '');
  return words;
}

/** Runs a hint's command with its placeholders filled: <time> a free time, <field> the demo lead's answer. */
async function runHint(command: string, fill: Record<string, string>, env: Record<string, string | undefined>) {
  const words = shellWords(command).map((w) => w.replace(/<([a-z-]+)>/g, (all, name: string) => fill[name] ?? all));
  expect(words[0]).toBe('schedctl');
  for (const w of words) expect(w, `${command}: a placeholder left unfilled`).not.toMatch(/<[a-z-]+>/);
  return runCli(words.slice(1), { configDir: t.dir, env });
}

const ENV = () => ({ SCHEDCTL_BASE_URL: t.sb.baseUrl, SCHEDCTL_API_KEY: t.sb.keys.full, TZ: 'UTC' });
const freeTime = async (n = 5) => (await t.sb.slots('intro-call', 14)).slots[n]!;
/**
 * Free times of the event for a move of the meeting at `at`, whose host may not take each (the hint
 * says so): first those at its time of day on later days (its host works then), then the rest.
 */
const freeTimes = async (at: string) => {
  const { slots } = await t.sb.slots('intro-call', 14);
  const clock = (iso: string) => new Date(iso).toISOString().slice(11, 16);
  const later = slots.filter((x) => x > at);
  return [...later.filter((x) => clock(x) === clock(at)), ...later.filter((x) => clock(x) !== clock(at))].slice(0, 12);
};
const FIELDS = { company: 'Acme', region: 'emea' };

/**
 * Every command of the failure's hint runs as written (never exit 2) and does what it says (exit
 * 0). `times`: candidates for <time>, tried in turn where the hint says the meeting's host may not
 * take every free time of the event (CONFLICT, exit 5, until one it takes).
 */
async function expectRunsAsWritten(
  failure: RunResult,
  fill: { times?: string[]; [name: string]: string | string[] | undefined },
  env: Record<string, string | undefined> = ENV(),
) {
  const commands = hintCommands(failure);
  expect(commands.length, `a command in the hint: ${show(failure)}`).toBeGreaterThan(0);
  const { times = [], ...rest } = fill;
  const values = rest as Record<string, string>;
  for (const command of commands) {
    let r = await runHint(command, { ...values, ...(times[0] ? { time: times[0] } : {}) }, env);
    for (const time of times.slice(1)) {
      if (!(
        r.code === 5 &&
        /this meeting's hosts/.test(r.stderr) &&
        /may not take all of them/.test(failure.stderr + r.stderr)
      ))
        break;
      r = await runHint(command, { ...values, time }, env);
    }
    expect(r.code, `${command}\n${show(r)}`).not.toBe(2);
    expect(r.code, `${command}\n${show(r)}`).toBe(0);
  }
  return commands;
}

describe('the commands hints suggest run as written', () => {
  it('a gone meeting booked on its event: `schedctl book <event> --email … --start <time>`', async () => {
    const start = await freeTime(2);
    const booked = await cli(['book', 'intro-call', '--email', 'kim@acme.example', '--start', start, '--json']);
    expect(booked.code, show(booked)).toBe(0);
    await t.sb.reset();
    const move = await cli([
      'reschedule',
      booked.json<{ meeting: { id: string } }>().meeting.id,
      '--start',
      await freeTime(4),
    ]);
    expect(move.code, show(move)).toBe(4);
    const commands = await expectRunsAsWritten(move, { time: await freeTime(6) });
    expect(commands[0]).toMatch(/^schedctl book intro-call --email kim@acme\.example --start/);
  });

  it("a gone routed meeting: its route, with the trigger's required fields to fill in", async () => {
    const routed = await cli([...demoRouteFirstArgs('ada@acme.example'), '--json']);
    expect(routed.code, show(routed)).toBe(0);
    await t.sb.reset();
    const move = await cli(['reschedule', '--email', 'ada@acme.example', '--start', 'tomorrow 10:00']);
    expect(move.code, show(move)).toBe(4);
    await expectRunsAsWritten(move, FIELDS);
  });

  it('a lead with a meeting: the reschedule and the book --rebook it names', async () => {
    const at = await freeTime(1);
    const first = await cli(['book', 'intro-call', '--email', 'bo@acme.example', '--start', at]);
    expect(first.code, show(first)).toBe(0);
    const second = await cli(['book', 'intro-call', '--email', 'bo@acme.example', '--start', await freeTime(3)]);
    expect(second.code, show(second)).not.toBe(0);
    const commands = await expectRunsAsWritten(second, { times: await freeTimes(at) });
    expect(commands.some((c) => c.startsWith('schedctl reschedule '))).toBe(true);
    expect(commands.some((c) => c.endsWith('--rebook'))).toBe(true);
  });

  it('a taken slot: the nearest free time, as a command', async () => {
    const held = await t.sb.slots('intro-call', 14);
    const ok = await cli([
      'book',
      'intro-call',
      '--email',
      'cy@acme.example',
      '--start',
      held.slots[0]!,
      '--reservation',
      held.reservationId,
    ]);
    expect(ok.code, show(ok)).toBe(0);
    const taken = await cli([
      'book',
      'intro-call',
      '--email',
      'di@acme.example',
      '--start',
      held.slots[0]!,
      '--reservation',
      held.reservationId,
    ]);
    expect(taken.code, show(taken)).toBe(5);
    await expectRunsAsWritten(taken, {});
  });

  it('reschedule without --start, and an unknown event: `schedctl reschedule <id> --start <time>`, `schedctl events ls`', async () => {
    const at = await freeTime(2);
    const booked = await cli(['book', 'intro-call', '--email', 'ed@acme.example', '--start', at, '--json']);
    const missing = await cli(['reschedule', booked.json<{ meeting: { id: string } }>().meeting.id]);
    expect(missing.code, show(missing)).toBe(2);
    await expectRunsAsWritten(missing, { times: await freeTimes(at), event: 'intro-call' });
    const unknown = await cli(['events', 'show', 'intro-cal']);
    expect(unknown.code, show(unknown)).toBe(4);
    await expectRunsAsWritten(unknown, {});
  });

  it("with --profile: the hint's commands name it, and run against that profile's API", async () => {
    // The default profile's key is revoked: a command without --profile work would be refused (exit 3).
    const input = { configDir: t.dir, env: { SCHEDCTL_API_KEY: undefined, SCHEDCTL_BASE_URL: undefined } };
    const add = (name: string, key: string) =>
      runCli(['profile', 'add', name, '--key-stdin', '--no-verify', '--base-url', t.sb.baseUrl], {
        ...input,
        input: `${key}\n`,
      });
    expect((await add('stale', t.sb.keys.revoked)).code).toBe(0);
    expect((await add('work', t.sb.keys.full)).code).toBe(0);
    const env = { TZ: 'UTC' };
    const at = await freeTime(2);
    const booked = await runCli(
      ['book', 'intro-call', '--profile', 'work', '--email', 'fa@acme.example', '--start', at, '--json'],
      { configDir: t.dir, env },
    );
    expect(booked.code, show(booked)).toBe(0);
    const missing = await runCli(
      ['reschedule', booked.json<{ meeting: { id: string } }>().meeting.id, '--profile', 'work'],
      {
        configDir: t.dir,
        env,
      },
    );
    expect(missing.code, show(missing)).toBe(2);
    const commands = await expectRunsAsWritten(missing, { times: await freeTimes(at), event: 'intro-call' }, env);
    expect(commands[0]).toMatch(/^schedctl --profile work reschedule /);
  });

  it('the time forms a refusal names are accepted as typed (the ISO example is not shown converted)', async () => {
    const r = await cli(['book', 'intro-call', '--email', 'gu@acme.example', '--start', '2026-12-01 14:00 UTC']);
    expect(r.code, show(r)).toBe(2);
    const hint = r.stderr.split('\n').find((l) => l.startsWith('hint: '))!;
    expect(hint).toContain('ISO 8601 with an offset (2026-12-01T14:00Z,');
    expect(hint).not.toContain('2026-12-01 14:00 UTC');
    // That form, typed for a free time, books it.
    const free = new Date(await freeTime(3)).toISOString().slice(0, 16) + 'Z';
    const typed = await cli(['book', 'intro-call', '--email', 'gu@acme.example', '--start', free]);
    expect(typed.code, show(typed)).toBe(0);
  });
});
