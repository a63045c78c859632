/**
 * `slots` on a terminal that reports 0 columns (a pty nobody gave a size: `script`, some CI
 * runners, `docker exec` without a size): 0 means unknown, so the week grid is drawn for 80
 * columns, as when no width is known at all; it is not dropped for the list.
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { hasPython, runCliOnSizelessPty, runOnSizelessPty } from '../helpers/pty-nosize.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const ARGS = ['slots', 'intro-call', '--tz', 'Europe/London', '--days', '7'];
/** A day header of the grid: seven weekday names in a row. */
const WEEKDAYS = /(Mon|Tue|Wed|Thu|Fri|Sat|Sun)( +(Mon|Tue|Wed|Thu|Fri|Sat|Sun)){6}/;

describe.skipIf(!hasPython)('slots on a pty without a size (0 columns)', () => {
  it('draws the week grid at 80 columns, not the list', async () => {
    // The premise: on this pty, stdout is a terminal that reports 0 columns.
    const premise = await runOnSizelessPty(
      [process.execPath, '-e', 'console.log(`tty=${process.stdout.isTTY} columns=${process.stdout.columns}`)'],
      tempDir(),
      {},
    );
    expect(premise.screen.trim()).toBe('tty=true columns=0');
    const r = await runCliOnSizelessPty(ARGS, tempDir(), {
      SCHEDCTL_BASE_URL: t.sb.baseUrl,
      SCHEDCTL_API_KEY: t.sb.keys.full,
    });
    expect(r.code, r.screen).toBe(0);
    expect(r.screen, r.screen).toMatch(WEEKDAYS);
    expect(r.screen).toContain('●');
    // The grid's lines (its header and rows) fit the 80 columns assumed.
    const grid = r.screen.split('\n').filter((l) => WEEKDAYS.test(l) || /[●·]/.test(l));
    expect(grid.length).toBeGreaterThan(1);
    for (const line of grid) expect(line.length, JSON.stringify(line)).toBeLessThanOrEqual(80);
  });
});
