/**
 * `schedctl events ls --all` in a real pseudo-terminal (tmux): the progress line a person sees
 * while pages arrive, and a clean screen (the table, no progress left behind) at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { hasTmux, startPane, type Pane } from '../helpers/tmux.js';

let sb: TestSandbox;
let pane: Pane | undefined;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  pane?.kill();
  await sb.close();
});

describe.skipIf(!hasTmux)('events ls --all in a real terminal (tmux)', () => {
  it('shows how many events have arrived while it pages, then only the table', async () => {
    // Slow pages, so the progress line is on screen long enough to be seen.
    await sb.fault({ method: 'GET', path: '/v1/scheduling/events', fault: 'delay', delayMs: 700, count: 3 });
    const env = { SCHEDCTL_BASE_URL: sb.baseUrl, SCHEDCTL_API_KEY: sb.keys.full, SCHEDCTL_CONFIG_DIR: tempDir(), NO_COLOR: '1' };
    pane = startPane('events', ['events', 'ls', '--all', '--limit', '2'], env);

    await pane.waitFor('fetched 2 events…');
    await pane.waitFor('fetched 4 events…');
    await pane.waitFor('EXIT=0', 20_000);

    const screen = pane.screen();
    const state = await sb.state();
    const pages = state.requests.filter((q) => q.path.startsWith('/v1/scheduling/events')).length;
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(screen).toContain('NAME');
    expect(screen).toContain('Intro Call');
    // The spinner cleared its line: no progress text is left above the table.
    expect(screen).not.toContain('fetched');
    expect(screen).not.toContain(sb.keys.full.slice(-12));
  }, 40_000);
});
