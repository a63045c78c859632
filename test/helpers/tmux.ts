/**
 * A real pseudo-terminal for end-to-end tests: tmux on its own server socket, so a test sees
 * exactly what a person at a terminal would (prompts, spinners, cleared lines).
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { BIN, tempDir } from './cli.js';
import { startTestSandbox, type TestSandbox } from './sandbox.js';
import { scaled } from './slowness.js';

export const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

export interface Pane {
  /** What the pane shows now. */
  screen(): string;
  /** Waits (bounded) until the pane shows the text. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /** Sends keys (tmux send-keys arguments) after a short pause, as a person would. */
  type(keys: string[], wait?: number): Promise<void>;
  /** Ends the tmux server (afterAll). */
  kill(): void;
}

/**
 * Starts `schedctl <args>` in a new pane. The env (a key among it) reaches the child through
 * env(1) in the command line, never typed on the pane. The pane prints `EXIT=<code>` at the end.
 */
export function startPane(name: string, args: string[], env: Record<string, string>, size = { x: 160, y: 45 }): Pane {
  const socket = `schedctl-${name}-${process.pid}`;
  const tmux = (...a: string[]) => execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' });
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  const command = ['env', ...envArgs, process.execPath, BIN, ...args].map((w) => `'${w}'`).join(' ');
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    String(size.x),
    '-y',
    String(size.y),
    `${command}; echo "EXIT=$?"; sleep 60`,
  );
  const screen = () => tmux('capture-pane', '-p', '-t', name);
  return {
    screen,
    async waitFor(text, timeoutMs = 10_000) {
      const end = Date.now() + scaled(timeoutMs);
      while (Date.now() < end) {
        if (screen().includes(text)) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`"${text}" did not appear within ${timeoutMs} ms; the screen:\n${screen()}`);
    },
    async type(keys, wait = 150) {
      await new Promise((r) => setTimeout(r, wait));
      tmux('send-keys', '-t', name, ...keys);
    },
    kill() {
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
    },
  };
}

/**
 * A sandbox for a test file's terminal tests, and `start` for panes running schedctl against
 * it (full key, a fresh config dir, NO_COLOR); the panes and the sandbox end after the file.
 */
export function useTerminalSandbox() {
  let sb: TestSandbox | undefined;
  const panes: Pane[] = [];
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(async () => {
    for (const p of panes) p.kill();
    await sb?.close();
  });
  const sandbox = () => {
    if (!sb) throw new Error('the sandbox starts in beforeAll');
    return sb;
  };
  return {
    sandbox,
    start(name: string, args: string[], env: Record<string, string> = {}): Pane {
      const s = sandbox();
      const pane = startPane(name, args, {
        SCHEDCTL_BASE_URL: s.baseUrl,
        SCHEDCTL_API_KEY: s.keys.full,
        SCHEDCTL_CONFIG_DIR: tempDir(),
        SCHEDCTL_RATE: '0',
        NO_COLOR: '1',
        ...env,
      });
      panes.push(pane);
      return pane;
    },
  };
}
