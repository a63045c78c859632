/**
 * `schedctl reschedule --email …` in a real pseudo-terminal (tmux): the support engineer moves a
 * meeting to a named day ("Tuesday") in at most 5 keystrokes after the command: a day first
 * (typing "tu" jumps to it), then a time of that day, then the confirmation. The answer is echoed
 * with its full date and zone.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { hasTmux, useTerminalSandbox } from '../helpers/tmux.js';

const terminal = useTerminalSandbox();

describe.skipIf(!hasTmux)('reschedule in a real terminal (tmux)', () => {
  it('moves a meeting to the next Tuesday in 5 keystrokes: t, u, Enter (day), Enter (time), Enter (confirm)', async () => {
    const sb = terminal.sandbox();
    const configDir = tempDir();
    const cli = (args: string[]) => sb.cli(args, { configDir });
    const { reservationId, slots } = await sb.slots('quarterly-review', 14);
    // Book on a day that is not a Tuesday, so the move is to another day.
    const start = slots.find((x) => DateTime.fromISO(x, { zone: 'UTC' }).weekday !== 2)!;
    const b = await cli([
      'book',
      'quarterly-review',
      '--start',
      start,
      '--reservation',
      reservationId,
      '--email',
      'ada@acme.example',
      '--json',
    ]);
    expect(b.code, b.stderr).toBe(0);

    const pane = terminal.start('reschedule', ['reschedule', '--email', 'ada@acme.example', '--tz', 'UTC'], {
      TZ: 'UTC',
      SCHEDCTL_CONFIG_DIR: configDir,
    });
    const keys: string[] = [];
    const press = async (key: string) => {
      keys.push(key);
      await pane.type(key.length === 1 ? ['-l', key] : [key]);
    };
    await pane.waitFor('pick a day');
    await press('t');
    await press('u');
    await pane.waitFor('Tue ');
    await press('Enter');
    await pane.waitFor('← other days');
    await press('Enter');
    await pane.waitFor('Move "');
    await press('Enter');
    await pane.waitFor('EXIT=0', 20_000);
    expect(keys.length).toBeLessThanOrEqual(5);

    const moved = (await sb.state()).meetings.find((m) => m.id === b.json().meeting.id)!;
    const at = DateTime.fromISO(moved.date, { zone: 'UTC' });
    expect(at.weekday).toBe(2); // Tuesday
    expect(moved.date).not.toBe(start);
    const screen = pane.screen();
    // The answer is echoed with its full date and zone, not a bare 15:00.
    expect(screen).toContain(`Tue ${at.toFormat('yyyy-MM-dd HH:mm')} UTC`);
    expect(screen).not.toContain('UTC (UTC)');
    expect(screen).toContain(`Rescheduled meeting ${moved.id}`);
  }, 60_000);

  it('--yes: the time picked is moved to without the "Move …?" confirmation (issue 54)', async () => {
    const sb = terminal.sandbox();
    const configDir = tempDir();
    const cli = (args: string[]) => sb.cli(args, { configDir });
    const { reservationId, slots } = await sb.slots('quarterly-review', 14);
    const start = slots.find((x) => DateTime.fromISO(x, { zone: 'UTC' }).weekday !== 2)!;
    const b = await cli([
      'book',
      'quarterly-review',
      '--start',
      start,
      '--reservation',
      reservationId,
      '--email',
      'ada@acme.example',
      '--json',
    ]);
    expect(b.code, b.stderr).toBe(0);
    const pane = terminal.start(
      'reschedule-yes',
      ['reschedule', '--email', 'ada@acme.example', '--tz', 'UTC', '--yes'],
      {
        TZ: 'UTC',
        SCHEDCTL_CONFIG_DIR: configDir,
      },
    );
    await pane.waitFor('pick a day');
    await pane.type(['-l', 't']);
    await pane.type(['-l', 'u']);
    await pane.waitFor('Tue ');
    await pane.type(['Enter']);
    await pane.waitFor('← other days');
    await pane.type(['Enter']);
    await pane.waitFor('EXIT=0', 20_000);
    expect(pane.screen()).not.toContain('Move "');
    const moved = (await sb.state()).meetings.find((m) => m.id === b.json().meeting.id)!;
    expect(DateTime.fromISO(moved.date, { zone: 'UTC' }).weekday).toBe(2);
  }, 60_000);

  it('--start tues (a day without a time) opens the picker on that Tuesday, never moving to its midnight', async () => {
    const sb = terminal.sandbox();
    const configDir = tempDir();
    const cli = (args: string[]) => sb.cli(args, { configDir });
    const { reservationId, slots } = await sb.slots('quarterly-review', 14);
    const start = slots.find((x) => DateTime.fromISO(x, { zone: 'UTC' }).weekday !== 2)!;
    const b = await cli([
      'book',
      'quarterly-review',
      '--start',
      start,
      '--reservation',
      reservationId,
      '--email',
      'ada@acme.example',
      '--json',
    ]);
    expect(b.code, b.stderr).toBe(0);

    const pane = terminal.start(
      'reschedule-day',
      ['reschedule', '--email', 'ada@acme.example', '--start', 'tues', '--tz', 'UTC'],
      { TZ: 'UTC', SCHEDCTL_CONFIG_DIR: configDir },
    );
    // The times of that Tuesday, at once: no day question, no move to 00:00.
    await pane.waitFor('Tuesday');
    expect(pane.screen()).not.toContain('pick a day');
    expect(pane.screen()).not.toContain('Rescheduled');
    await pane.type(['Enter']);
    await pane.waitFor('Move "');
    await pane.type(['Enter']);
    await pane.waitFor('EXIT=0', 20_000);
    const moved = (await sb.state()).meetings.find((m) => m.id === b.json().meeting.id)!;
    const at = DateTime.fromISO(moved.date, { zone: 'UTC' });
    expect(at.weekday).toBe(2);
    expect(at.toFormat('HH:mm')).not.toBe('00:00');
  }, 60_000);

  it('names the meeting by title, date and host, lists days without free times as such, and typing a time jumps to it', async () => {
    const sb = terminal.sandbox();
    const configDir = tempDir();
    const cli = (args: string[]) => sb.cli(args, { configDir });
    const { reservationId, slots } = await sb.slots('quarterly-review', 14);
    const b = await cli([
      'book',
      'quarterly-review',
      '--start',
      slots[0]!,
      '--reservation',
      reservationId,
      '--email',
      'cy@acme.example',
      '--json',
    ]);
    expect(b.code, b.stderr).toBe(0);
    // The picker's first day with free times, and a time of it that is not the first: typed, not counted to.
    const fresh = await sb.slots('quarterly-review', 7);
    const firstDay = fresh.slots[0]!.slice(0, 10);
    const ofDay = fresh.slots.filter((x) => x.startsWith(firstDay));
    const wanted = ofDay[ofDay.length - 1]!;
    const typed = DateTime.fromISO(wanted, { zone: 'UTC' }).toFormat('HH:mm');

    const pane = terminal.start('reschedule-names', ['reschedule', '--email', 'cy@acme.example', '--tz', 'UTC'], {
      TZ: 'UTC',
      SCHEDCTL_CONFIG_DIR: configDir,
    });
    await pane.waitFor('pick a day');
    // The day list is drawn after the question's line: waited for too (under load it came later).
    await pane.waitFor('no free times');
    const screen = pane.screen().replace(/\s+/g, ' ');
    const booked = DateTime.fromISO(slots[0]!, { zone: 'UTC' }).toFormat('ccc d LLL HH:mm');
    expect(screen).toContain(`New time for "Quarterly Business Review with cy@acme.example" (${booked}, host `);
    expect(screen).not.toContain(b.json().meeting.id);
    // A weekend (or any day without a free time) is listed, said to have none.
    expect(screen).toMatch(/(Sat|Sun) \d+ \w+ · no free times/);
    await pane.type(['Enter']);
    await pane.waitFor('← other days');
    await pane.type(['-l', typed]);
    await pane.waitFor(`❯ ${DateTime.fromISO(wanted, { zone: 'UTC' }).toFormat('ccc d LLL')}  ${typed}`);
    await pane.type(['Enter']);
    await pane.waitFor('Move "');
    await pane.type(['Enter']);
    await pane.waitFor('EXIT=0', 20_000);
    const moved = (await sb.state()).meetings.find((m) => m.id === b.json().meeting.id)!;
    expect(moved.date).toBe(wanted);
  }, 60_000);
});
