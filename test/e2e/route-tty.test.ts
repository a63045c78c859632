/**
 * `schedctl route` in a real pseudo-terminal (tmux, on its own server socket), typed like a
 * person, against a sandbox this test starts; the booking is checked through /_sandbox/state.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { hasTmux, useTerminalSandbox } from '../helpers/tmux.js';

const terminal = useTerminalSandbox();

describe.skipIf(!hasTmux)('route in a real terminal (tmux)', () => {
  it('a person picks the trigger, fills the form, picks a time and books', async () => {
    const sb = terminal.sandbox();
    const pane = terminal.start('route', ['route', '--tz', 'UTC'], { TZ: 'UTC' });
    const { waitFor, type } = pane;

    await waitFor('Trigger (type to filter)');
    await type(['-l', 'demo']);
    await waitFor('Website demo form');
    await type(['Enter']);
    await waitFor("Lead's email");
    await type(['-l', 'ada@acme.example']);
    await type(['Enter']);
    await waitFor('Company');
    await type(['-l', 'Acme']);
    await type(['Enter']);
    await waitFor('Region');
    await type(['Enter']);
    await waitFor('Team size (optional)');
    await type(['Enter']);
    await waitFor('Anything else? (optional)');
    await type(['Enter']);
    await waitFor('Fire "Inbound demo request" for ada@acme.example');
    await type(['Enter']);
    await waitFor('hold expires in');
    // A day (the soonest with two free times or more: late in the UTC day the first may have
    // one), then a time of it (Down: its second), echoed with date and zone.
    for (let i = 0; i < 5 && /❯ .*·\s+1 free time\b/.test(pane.screen()); i++) {
      await type(['Down']);
      await new Promise((r) => setTimeout(r, 300));
    }
    await type(['Enter']);
    await waitFor('← other days');
    await type(['Down']);
    await type(['Enter']);
    await waitFor('Add guest details');
    await type(['Enter']);
    await waitFor('Book ');
    await type(['Enter']);
    await waitFor('EXIT=0');

    const screen = pane.screen();
    const state = await sb.state();
    expect(state.meetings).toHaveLength(1);
    const m = state.meetings[0]!;
    expect(m).toMatchObject({ personEmail: 'ada@acme.example', workflowExecutionId: state.executions[0]!.id });
    expect(screen).toContain(`Booked meeting ${m.id}`);
    expect(screen).toContain('As one command:');
    expect(screen).toContain(`${DateTime.fromISO(m.date, { zone: 'UTC' }).toFormat('ccc yyyy-MM-dd HH:mm')} UTC`);
    expect(screen).not.toContain(sb.keys.full.slice(-12));
    expect(state.requests.map((q) => `${q.method} ${q.status}`)).toEqual([
      'GET 200',
      'POST 200',
      'POST 200',
      'POST 201',
    ]);
  }, 60_000);

  it('a wizard and a script racing for one lead: the wizard re-reads the lead at its confirmation and asks, never booking a second meeting (issue 52 finding 1)', async () => {
    const sb = terminal.sandbox();
    const configDir = tempDir();
    const lead = 'race-lead@acme.example';
    const pane = terminal.start('route-race', ['route', '--tz', 'UTC'], { TZ: 'UTC', SCHEDCTL_CONFIG_DIR: configDir });
    const { waitFor, type } = pane;
    await waitFor('Trigger (type to filter)');
    await type(['-l', 'demo']);
    await waitFor('Website demo form');
    await type(['Enter']);
    await waitFor("Lead's email");
    await type(['-l', lead]);
    await type(['Enter']);
    await waitFor('Company');
    await type(['-l', 'Acme']);
    await type(['Enter']);
    await waitFor('Region');
    await type(['Enter']);
    await waitFor('Team size (optional)');
    await type(['Enter']);
    await waitFor('Anything else? (optional)');
    await type(['Enter']);
    await waitFor(`Fire "Inbound demo request" for ${lead}`);
    await type(['Enter']);
    await waitFor('hold expires in');
    await type(['Enter']);
    await waitFor('← other days');
    await type(['Enter']);
    await waitFor('Add guest details');
    await type(['Enter']);
    await waitFor(`for ${lead}?`);

    // Meanwhile a script routes the same lead (other answers: another link) and books.
    const script = await sb.cli(
      [
        'route',
        '--trigger',
        'Inbound demo request',
        '--email',
        lead,
        '--field',
        'company=Acme',
        '--field',
        'region=apac',
        '--slot',
        'first',
        '--yes',
        '--json',
      ],
      { configDir },
    );
    expect(script.code, script.stderr).toBe(0);
    expect(script.json()).toMatchObject({ status: 'booked' });
    const ofLead = async () => (await sb.state()).meetings.filter((m) => m.personEmail === lead);
    expect(await ofLead()).toHaveLength(1);

    // The wizard's "yes" now meets the script's meeting: said, and asked (default: no).
    await type(['Enter']);
    await waitFor('Book another one anyway?');
    expect(pane.screen().replace(/\s+/g, '')).toContain(`${lead}alreadyhasmeeting`);
    await type(['Enter']);
    await waitFor('EXIT=');
    expect(pane.screen()).not.toContain('EXIT=0');
    expect(await ofLead()).toHaveLength(1);
    // The lead's timeline: the script's one meeting; the wizard's booking never sent.
    const history = await sb.cli(['meetings', 'history', lead, '--json'], { configDir });
    const entries = history.json().entries as Array<{ kind: string; outcome?: string }>;
    expect(entries.filter((e) => e.kind === 'meeting')).toHaveLength(1);
    expect(entries.filter((e) => e.kind === 'booking').map((e) => e.outcome)).toEqual(['booked']);
  }, 60_000);

  it('Ctrl-C at the time picker, after the fire: exit 130 saying what was done and how to resume; resuming fires no second run', async () => {
    const sb = terminal.sandbox();
    const configDir = tempDir();
    const flags = ['--trigger', 'Inbound demo request', '--email', 'bo@acme.example', '--field', 'company=Acme'];
    const pane = terminal.start('route-stop', ['route', ...flags, '--field', 'region=emea', '--tz', 'UTC'], {
      TZ: 'UTC',
      SCHEDCTL_CONFIG_DIR: configDir,
    });
    await pane.waitFor('Team size (optional)');
    await pane.type(['Enter']);
    await pane.waitFor('Anything else? (optional)');
    await pane.type(['Enter']);
    await pane.waitFor('Fire "Inbound demo request" for bo@acme.example');
    await pane.type(['Enter']);
    await pane.waitFor('hold expires in');
    await pane.type(['C-c']);
    await pane.waitFor('EXIT=130');
    // The sandbox is shared by this file's tests: this lead's runs only.
    const runsOf = async () =>
      (await sb.state()).executions.filter((e) => JSON.stringify(e).includes('bo@acme.example'));
    const executions = await runsOf();
    expect(executions).toHaveLength(1);
    // The pane wraps long lines (and drops the space at a wrap): compared without whitespace.
    const screen = pane.screen().replace(/\s+/g, '');
    const says = (text: string) => expect(screen).toContain(text.replace(/\s+/g, ''));
    says(
      `Stopped: trigger "Inbound demo request" was already fired for bo@acme.example (workflow run ${executions[0]!.id}, outcome scheduler); nothing was booked.`,
    );
    says("To resume: run schedctl route --trigger 'Inbound demo request' --email bo@acme.example");
    says('the workflow run is reused, not fired again');

    // Resuming as it says: the run is reused, no second fire.
    const again = await sb.cli(['route', ...flags, '--field', 'region=emea', '--slot', 'first', '--yes', '--json'], {
      configDir,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ status: 'booked', reused: true, executionId: executions[0]!.id });
    expect(await runsOf()).toHaveLength(1);
  }, 60_000);

  it('--slot tues (a day without a time) opens the time picker on that Tuesday after the fire, never booking its midnight', async () => {
    const sb = terminal.sandbox();
    const pane = terminal.start(
      'route-day',
      [
        'route',
        '--trigger',
        'Inbound demo request',
        '--email',
        'di@acme.example',
        '--field',
        'company=Acme',
        '--field',
        'region=emea',
        '--slot',
        'tues',
        '--tz',
        'UTC',
      ],
      { TZ: 'UTC' },
    );
    await pane.waitFor('Team size (optional)');
    await pane.type(['Enter']);
    await pane.waitFor('Anything else? (optional)');
    await pane.type(['Enter']);
    await pane.waitFor('Fire "Inbound demo request" for di@acme.example');
    await pane.type(['Enter']);
    // Straight to that Tuesday's times: no day question, nothing booked yet.
    await pane.waitFor('← other days');
    expect(pane.screen()).toContain('Tuesday');
    expect(pane.screen()).not.toContain('pick a day');
    await pane.type(['Enter']);
    await pane.waitFor('Add guest details');
    await pane.type(['Enter']);
    await pane.waitFor('Book ');
    await pane.type(['Enter']);
    await pane.waitFor('EXIT=0', 20_000);
    const m = (await sb.state()).meetings.find((x) => x.personEmail === 'di@acme.example')!;
    const at = DateTime.fromISO(m.date, { zone: 'UTC' });
    expect(at.weekday).toBe(2);
    expect(at.toFormat('HH:mm')).not.toBe('00:00');
  }, 60_000);
});
