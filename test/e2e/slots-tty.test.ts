/**
 * `schedctl slots` in a real pseudo-terminal (tmux): the free times as a week grid (days as
 * columns, times as rows, the lead's zone beside the display zone's when they differ), colored
 * only when colors are on, the list on a terminal too narrow for it; through a pipe and with
 * --json, the output of before, unchanged.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { hasTmux, startPane, useTerminalSandbox, type Pane } from '../helpers/tmux.js';

const terminal = useTerminalSandbox();
const ARGS = ['slots', 'intro-call', '--tz', 'Europe/London', '--lead-tz', 'Asia/Tokyo', '--days', '7'];
/** A day header of the grid: seven weekday names in a row. */
const WEEKDAYS = /(Mon|Tue|Wed|Thu|Fri|Sat|Sun)( +(Mon|Tue|Wed|Thu|Fri|Sat|Sun)){6}/;

describe.skipIf(!hasTmux)('slots in a real terminal (tmux)', () => {
  it("shows a week grid: days as columns, times as rows, the lead's times beside the host side's", async () => {
    const pane = terminal.start('slots-grid', ARGS, { TZ: 'UTC' });
    await pane.waitFor('EXIT=0', 20_000);
    const screen = pane.screen();
    expect(screen).toMatch(/London +Tokyo \(lead\) +(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/);
    expect(screen).toMatch(WEEKDAYS);
    // A row: a time (or a run of them) in London, the same instant in Tokyo, a mark per day.
    expect(screen).toMatch(/^ {2}\d\d:\d\d(–\d\d:\d\d)? +\d\d:\d\d(–\d\d:\d\d)?(\+1)? +([●·] +){6}[●·]$/m);
    expect(screen).toContain('Next: schedctl book intro-call --start');
    for (const line of screen.split('\n')) expect(line.length).toBeLessThanOrEqual(160);
  });

  it('colors on a terminal with colors on; none with NO_COLOR', async () => {
    const colored = terminal.start('slots-color', ARGS, { TZ: 'UTC', NO_COLOR: '', FORCE_COLOR: '1' });
    await colored.waitFor('EXIT=0', 20_000);
    expect(withEscapes('slots-color')).toContain('\u001b[32m●');
    const plain = terminal.start('slots-plain', ARGS, { TZ: 'UTC' });
    await plain.waitFor('EXIT=0', 20_000);
    expect(withEscapes('slots-plain')).not.toContain('\u001b[');
    expect(plain.screen()).toMatch(WEEKDAYS);
  });

  it('falls back to the list on a terminal narrower than the grid', async () => {
    const sb = terminal.sandbox();
    const pane: Pane = startPane(
      'slots-narrow',
      ARGS,
      {
        SCHEDCTL_BASE_URL: sb.baseUrl,
        SCHEDCTL_API_KEY: sb.keys.full,
        SCHEDCTL_CONFIG_DIR: tempDir(),
        SCHEDCTL_RATE: '0',
        NO_COLOR: '1',
        TZ: 'UTC',
      },
      { x: 60, y: 45 },
    );
    try {
      await pane.waitFor('EXIT=0', 20_000);
      const screen = pane.screen();
      expect(screen).not.toContain('●');
      expect(screen).not.toMatch(WEEKDAYS);
      // The list: a day, then its times.
      expect(screen).toMatch(/^ {2}(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} \w{3} +\d\d:\d\d \d\d:\d\d/m);
    } finally {
      pane.kill();
    }
  });

  it('through a pipe: the list as before; --json: the document as before', async () => {
    const sb = terminal.sandbox();
    const piped = await sb.cli(ARGS);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).not.toContain('●');
    expect(piped.stdout).toMatch(/^ {2}(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} \w{3} +\d\d:\d\d \d\d:\d\d/m);
    const json = await sb.cli([...ARGS, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(Object.keys(json.json()).sort()).toEqual(['activeHost', 'eventId', 'expiresAt', 'reservationId', 'slots']);
  });
});

/** The pane with its escape sequences (tmux capture-pane -e), on the socket startPane made for it. */
function withEscapes(name: string): string {
  return execFileSync('tmux', ['-L', `schedctl-${name}-${process.pid}`, 'capture-pane', '-p', '-e', '-t', name], {
    encoding: 'utf8',
  });
}
