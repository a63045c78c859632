/**
 * Drives a command's terminal-only prompts in-process (a subprocess has no TTY): a fake
 * terminal of PassThrough streams on which each answer is typed once its question is on screen.
 */
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli.js';
import { createContext, type IO } from '../../src/context.js';
import type { TestSandbox } from './sandbox.js';

/** Keys as a terminal in raw mode sends them. */
export const ENTER = '\r';
export const DOWN = '\x1b[B';
export const UP = '\x1b[A';
export const CTRL_C = '\x03';

/** [text to wait for on stderr, keys to type once it is there]. */
export type Answer = [string, string];

export interface TerminalRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The texts of the answers never typed (their question did not appear). */
  unanswered: string[];
}

export interface TerminalOptions {
  sb: TestSandbox;
  configDir: string;
  /** Added to (or overriding) the sandbox env: SCHEDCTL_CONFIG_DIR, _BASE_URL, _API_KEY (full) and NO_COLOR. */
  env?: Record<string, string>;
}

/** Time for a prompt to start listening after it renders (the previous one just closed its reader). */
const TYPE_DELAY_MS = 100;
/** A question that never appears must not hang the test: Ctrl-C ends the prompt waiting for it. */
const GIVE_UP_MS = 15_000;

/**
 * Runs `schedctl <argv>` against the sandbox on a fake terminal. Each answer is typed once its
 * text appears on stderr after the previous answer's text, so a repeated question gets its own answer.
 */
export async function onTerminal(argv: string[], answers: Answer[], opts: TerminalOptions): Promise<TerminalRun> {
  const pending = [...answers];
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  // @inquirer ends the output stream when a prompt closes; process.stderr survives that, so must ours.
  stderr.end = (() => stderr) as typeof stderr.end;
  let out = '';
  let err = '';
  let from = 0;
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => {
    err += d;
    const next = pending[0];
    const at = next ? err.indexOf(next[0], from) : -1;
    if (next && at >= 0) {
      pending.shift();
      from = at + next[0].length;
      setTimeout(() => stdin.write(next[1]), TYPE_DELAY_MS);
    }
  });
  const io: IO = { stdin, stdout, stderr, isStdinTTY: true, isStderrTTY: true, isStdoutTTY: false };
  const env = {
    SCHEDCTL_CONFIG_DIR: opts.configDir,
    SCHEDCTL_BASE_URL: opts.sb.baseUrl,
    SCHEDCTL_API_KEY: opts.sb.keys.full,
    SCHEDCTL_RATE: '0',
    NO_COLOR: '1',
    ...opts.env,
  };
  const timer = setTimeout(() => stdin.write(CTRL_C), GIVE_UP_MS);
  try {
    const code = await main(argv, createContext({ io, env }));
    if (pending.length) console.error(`unanswered: ${pending.map((a) => a[0]).join(' | ')}\n${err}`);
    return { code, stdout: out, stderr: err, unanswered: pending.map((a) => a[0]) };
  } finally {
    clearTimeout(timer);
  }
}

/** What a person sees of a prompt: the escape sequences gone and line wraps undone. */
export function plainScreen(text: string): string {
  // eslint-disable-next-line no-control-regex -- removing terminal escape sequences is the point.
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\s+/g, ' ');
}
