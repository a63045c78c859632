/**
 * `schedctl events ls --all` in a real pseudo-terminal (tmux): the progress line a person sees
 * while pages arrive, and a clean screen (the table, no progress left behind) at the end.
 */
import { describe, expect, it } from 'vitest';
import { hasTmux, useTerminalSandbox } from '../helpers/tmux.js';

const terminal = useTerminalSandbox();

describe.skipIf(!hasTmux)('events ls --all in a real terminal (tmux)', () => {
  it('shows how many events have arrived while it pages, then only the table', async () => {
    // Slow pages, so the progress line is on screen long enough to be seen.
    const sb = terminal.sandbox();
    await sb.fault({ method: 'GET', path: '/v1/scheduling/events', fault: 'delay', delayMs: 700, count: 3 });
    const pane = terminal.start('events', ['events', 'ls', '--all', '--limit', '2']);

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
