/**
 * The route wizard through the real @inquirer prompts, in-process (a subprocess has no TTY):
 * keys are typed once each question is on screen. The recovery paths are covered cheaply by
 * the flow tests (test/unit/route-flow.test.ts); these check the prompts themselves.
 */
import { describe, expect, it } from 'vitest';
import { demoRouteFlags } from '../helpers/args.js';
import { useSandbox } from '../helpers/sandbox.js';
import { CTRL_C, DOWN, ENTER, onTerminal, plainScreen, type Answer } from '../helpers/terminal.js';

const t = useSandbox();

/** Runs `schedctl route <args>` on a fake terminal; each answer is typed once its text appears after the previous one. */
const wizard = (args: string[], answers: Answer[]) =>
  onTerminal(['route', ...args], answers, { sb: t.sb, configDir: t.dir, env: { TZ: 'UTC' } });

/** The demo trigger's optional fields, answered: no question of the form is left to ask. */
const OPTIONAL_ANSWERS = ['--field', 'team_size=1-10', '--field', 'notes='];
/** Every answer up to the times as flags, and `--yes`: the wizard starts at "Pick a time". */
const ANSWERED = [...demoRouteFlags(), ...OPTIONAL_ANSWERS, '--yes'];

const DEMO_FORM: Answer[] = [
  ['Trigger', `demo`],
  ['Inbound demo request', ENTER],
  ["Lead's email", `ada@acme.example${ENTER}`],
  ['Company', `Acme${ENTER}`],
  ['Region', ENTER],
  // Optional selects start on "(leave empty)": two steps down is the second option.
  ['Team size (optional)', `${DOWN}${DOWN}${ENTER}`],
  ['Anything else? (optional)', `call me${ENTER}`],
  ['Fire "Inbound demo request" for ada@acme.example', ENTER],
];

describe('route wizard (real prompts)', () => {
  it('walks from the trigger to a booked meeting: 4 requests, stdout only the result', async () => {
    const r = await wizard(
      ['--tz', 'UTC', '--lead-tz', 'America/New_York'],
      [
        ...DEMO_FORM,
        // A day (Enter: the soonest), then a time of it (Enter: its first).
        ['hold expires in 10 min', ENTER],
        ['← other days', ENTER],
        ['Add guest details', `y${ENTER}`],
        ['First name', `Ada${ENTER}`],
        ['Last name', `Lovelace${ENTER}`],
        ['Phone', ENTER],
        ['Extra guest email 1', `bob@acme.example${ENTER}`],
        ['Extra guest email 2', ENTER],
        ['Book ', ENTER],
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.unanswered).toEqual([]);
    const state = await t.sb.state();
    expect(state.requests.map((q) => q.method)).toEqual(['GET', 'POST', 'POST', 'POST']);
    expect(state.meetings).toHaveLength(1);
    const m = state.meetings[0]!;
    expect(m).toMatchObject({ personEmail: 'ada@acme.example', workflowExecutionId: state.executions[0]!.id });
    expect(r.stderr).toMatch(/team_size\s+11 to 50 \(11-50\)/);
    // The confirmation says where it fires: a sandbox session never surprises anyone in production.
    const plain = plainScreen(r.stderr);
    expect(plain).toContain('Fire "Inbound demo request" for ada@acme.example with SCHEDCTL_API_KEY at');
    expect(plain).toContain(`${t.sb.baseUrl}? (starts a workflow run)`);
    expect(r.stderr).toContain(
      `Firing "Inbound demo request" for ada@acme.example with SCHEDCTL_API_KEY at ${t.sb.baseUrl}`,
    );
    expect(r.stdout).toContain(`Booked meeting ${m.id}`);
    expect(r.stdout).toMatch(/^ {2}lead +ada@acme\.example \+ bob@acme\.example$/m);
    expect(r.stdout).toContain(
      "schedctl route --trigger 'Inbound demo request' --email ada@acme.example --field company=Acme --field region=emea --field team_size=11-50 --field 'notes=call me'",
    );
    expect(r.stdout).toContain(
      '--first-name Ada --last-name Lovelace --guest bob@acme.example --lead-tz America/New_York --yes',
    );
    expect(r.stdout).not.toContain('Pick a time');
  });

  it("shows later times with the same reservation, and the lead's zone on request", async () => {
    const r = await wizard(
      ['--tz', 'UTC', '--lead-tz', 'Asia/Tokyo', ...ANSWERED],
      [
        // The ways on follow the days; typing finds them: the other zone, then later times.
        ['Pick a time (UTC)', 'zone'],
        ['❯ Show times in', ENTER],
        ['Pick a time (Asia/Tokyo)', 'later'],
        ['❯ Show later times', ENTER],
        // The next page's days ("… free times"): the answered question's echo repeats its message.
        ['free time', ENTER],
        ['← other days', ENTER],
        ['Add guest details', ENTER],
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.unanswered).toEqual([]);
    const state = await t.sb.state();
    const slots = state.requests.filter((q) => q.path.endsWith('/slots'));
    expect(slots).toHaveLength(2);
    expect(state.reservations).toHaveLength(1);
    expect(state.meetings).toHaveLength(1);
  });

  it('WORK_EMAIL_REQUIRED asks for the email again and keeps every other answer', async () => {
    const r = await wizard(
      ['--tz', 'UTC'],
      [
        ['Trigger', 'demo'],
        ['Inbound demo request', ENTER],
        ["Lead's email", `ada@gmail.com${ENTER}`],
        ['Company', `Acme${ENTER}`],
        ['Region', ENTER],
        ['Team size (optional)', ENTER],
        ['Anything else? (optional)', ENTER],
        ['Fire "Inbound demo request" for ada@gmail.com', ENTER],
        ["Lead's work email", `ada@acme.example${ENTER}`],
        ['Fire "Inbound demo request" for ada@acme.example', ENTER],
        ['Pick a time', ENTER],
        ['← other days', ENTER],
        ['Add guest details', ENTER],
        ['Book ', ENTER],
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.unanswered).toEqual([]);
    expect(r.stderr).toContain('refused ada@gmail.com');
    // The form was asked once (a second "Company" prompt would have gone unanswered): its answers
    // came along to the second fire, and the trigger list was not fetched again.
    const state = await t.sb.state();
    expect(state.requests.filter((q) => q.path === '/v1/triggers')).toHaveLength(1);
    expect(state.requests.filter((q) => q.method === 'POST' && q.path.startsWith('/v1/triggers/'))).toHaveLength(2);
    expect(state.meetings).toHaveLength(1);
    expect(state.meetings[0]).toMatchObject({ personEmail: 'ada@acme.example' });
  });

  it('pages to later times and back to earlier ones (same reservation)', async () => {
    const flags = ['--tz', 'UTC', ...ANSWERED];
    const r = await wizard(flags, [
      // Typing finds the ways on: "later", then on the next page "earlier".
      ['Pick a time (UTC)', 'later'],
      ['❯ Show later times', ENTER],
      ['Show earlier times', 'earlier'],
      ['❯ Show earlier times', ENTER],
      ['free time', ENTER],
      ['← other days', ENTER],
      ['Add guest details', ENTER],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.unanswered).toEqual([]);
    const state = await t.sb.state();
    const slots = state.requests.filter((q) => q.path.endsWith('/slots'));
    expect(slots).toHaveLength(3);
    expect(state.reservations).toHaveLength(1);
    // Back on the first page: the meeting is within the first 7 days.
    const [m] = state.meetings;
    expect(Date.parse(m!.date) - Date.now()).toBeLessThan(7 * 86_400_000);
  });

  it('redirect: shows the URL and stops (exit 0)', async () => {
    const r = await wizard(
      [],
      [
        ['Trigger', 'partner'],
        ['Partner application', ENTER],
        ["Lead's email", `p@partner.example${ENTER}`],
        ['Company', `P${ENTER}`],
        ['Partner type', `${DOWN}${ENTER}`],
        ['Website (optional)', ENTER],
        ['Fire "Partner application"', ENTER],
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('https://partners.example.com/apply?type=referral');
  });

  it('offers a remembered outcome for reuse: no new fire (3 requests)', async () => {
    const fire = await wizard(ANSWERED, [['Pick a time', CTRL_C]]);
    expect(fire.code).toBe(130);
    await t.sb.reset();
    // The sandbox forgot the run; the local memory did not: the same answers reuse it and book through its link.
    const before = (await t.sb.state()).requests.length;
    // The same answers, without --yes: the wizard asks whether to reuse the remembered outcome.
    const r = await wizard(
      [...demoRouteFlags(), ...OPTIONAL_ANSWERS],
      [
        ['Reuse it instead of firing again?', ENTER],
        ['Pick a time', ENTER],
        ['← other days', ENTER],
        ['Add guest details', ENTER],
        ['Book ', ENTER],
      ],
    );
    // The reset sandbox no longer knows the run: booking answers 404, but no fire was sent.
    const state = await t.sb.state();
    expect(state.requests.slice(before).map((q) => `${q.method} ${q.path.split('/')[2]}`)).toEqual([
      'GET triggers',
      'POST scheduling',
      'POST scheduling',
    ]);
    expect(state.executions).toHaveLength(0);
    expect(r.stderr).toContain('is already held');
  });

  it('Ctrl-C at the slot picker exits 130 and sends nothing after it', async () => {
    const r = await wizard(['--tz', 'UTC'], [...DEMO_FORM, ['Pick a time', CTRL_C]]);
    expect(r.code).toBe(130);
    expect(r.stderr).not.toContain('    at ');
    const state = await t.sb.state();
    expect(state.requests.map((q) => q.method)).toEqual(['GET', 'POST', 'POST']);
    expect(state.meetings).toHaveLength(0);
  });
});
