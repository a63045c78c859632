/**
 * `schedctl route` in a real pseudo-terminal (tmux, on its own server socket), typed like a
 * person, against a sandbox this test starts; the booking is checked through /_sandbox/state.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempDir } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const SOCKET = `schedctl-route-${process.pid}`;
const SESSION = 'route';
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // Already gone.
  }
  await sb.close();
});

const screen = () => tmux('capture-pane', '-p', '-t', SESSION);

/** Waits (bounded) until the pane shows the text. */
async function waitFor(text: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (screen().includes(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`"${text}" did not appear within ${timeoutMs} ms; the screen:\n${screen()}`);
}

const type = async (keys: string[], wait = 150) => {
  await new Promise((r) => setTimeout(r, wait));
  tmux('send-keys', '-t', SESSION, ...keys);
};

describe.skipIf(!hasTmux)('route in a real terminal (tmux)', () => {
  it('a person picks the trigger, fills the form, picks a time and books', async () => {
    const env = {
      SCHEDCTL_BASE_URL: sb.baseUrl,
      SCHEDCTL_API_KEY: sb.keys.full,
      SCHEDCTL_CONFIG_DIR: tempDir(),
      NO_COLOR: '1',
      TZ: 'UTC',
    };
    const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    // The key reaches the child through env(1) in the command, never typed on the pane.
    const command = ['env', ...envArgs, process.execPath, BIN, 'route', '--tz', 'UTC'].map((w) => `'${w}'`).join(' ');
    tmux('new-session', '-d', '-s', SESSION, '-x', '160', '-y', '45', `${command}; echo "EXIT=$?"; sleep 60`);

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
    await waitFor('Fire "Inbound demo request" for ada@acme.example?');
    await type(['Enter']);
    await waitFor('hold expires in');
    await type(['Down']);
    await type(['Enter']);
    await waitFor('Add guest details');
    await type(['Enter']);
    await waitFor('Book ');
    await type(['Enter']);
    await waitFor('EXIT=0');

    const pane = screen();
    const state = await sb.state();
    expect(state.meetings).toHaveLength(1);
    const m = state.meetings[0]!;
    expect(m).toMatchObject({ personEmail: 'ada@acme.example', workflowExecutionId: state.executions[0]!.id });
    expect(pane).toContain(`Booked meeting ${m.id}`);
    expect(pane).toContain('As one command:');
    expect(pane).not.toContain(sb.keys.full.slice(-12));
    expect(state.requests.map((q) => `${q.method} ${q.status}`)).toEqual(['GET 200', 'POST 200', 'POST 200', 'POST 201']);
  }, 60_000);
});
