/**
 * `schedctl route` in a real pseudo-terminal (tmux, on its own server socket), typed like a
 * person, against a sandbox this test starts; the booking is checked through /_sandbox/state.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
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
    // A day (Enter: the soonest), then a time of it (Down: its second), echoed with date and zone.
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
});
