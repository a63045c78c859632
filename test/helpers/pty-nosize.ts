/**
 * Runs the built CLI on a pseudo-terminal that nobody gave a size: what `script`, some CI
 * runners and `docker exec` without a size give a program (its stdout is a TTY that reports 0
 * columns and 0 rows). Python's pty module makes it (pty.fork, no TIOCSWINSZ); tmux cannot, as
 * its panes always have a size.
 */
import { execFileSync, spawn } from 'node:child_process';
import { BIN, baseEnv } from './cli.js';

export const hasPython = (() => {
  try {
    execFileSync('python3', ['-c', 'import pty'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** The child runs on the pty; the parent copies what it writes to its stdout and exits with its code. */
const PTY_RUNNER = `
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = bytearray()
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(bytes(out))
sys.exit(os.waitstatus_to_exitcode(status))
`;

export interface PtyRun {
  code: number;
  /** What the command wrote to the terminal (stdout and stderr together, as a terminal shows them). */
  screen: string;
}

/** `schedctl <args>` (the built CLI, on this Node) on a pty without a size. */
export const runCliOnSizelessPty = (args: string[], configDir: string, env: Record<string, string>): Promise<PtyRun> =>
  runOnSizelessPty([process.execPath, BIN, ...args], configDir, env);

/** `argv` (a program's absolute path, then its arguments) on a pty without a size. */
export function runOnSizelessPty(argv: string[], configDir: string, env: Record<string, string>): Promise<PtyRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', PTY_RUNNER, ...argv], {
      env: { ...baseEnv(configDir), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (err) out += `\n[python3 stderr] ${err}`;
      resolve({ code: code ?? -1, screen: out.replace(/\r\n/g, '\n') });
    });
  });
}
