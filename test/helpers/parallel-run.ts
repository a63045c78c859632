/**
 * Runs the built CLI as a subprocess that the test may SIGKILL (after a delay, or when a
 * condition on the config dir holds), sharing one config dir between many processes. Output
 * is checked for leaked keys, like every run of test/helpers/cli.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertDocument, assertNoSecrets, baseEnv, BIN } from './cli.js';
import { scaled } from './slowness.js';

export interface KillableResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** SIGKILLed by us before it ended by itself. */
  killed: boolean;
  stdout: string;
  stderr: string;
  ms: number;
  /** The command line (jsonOf validates the document against its kind's schema). */
  args?: string[];
}

export interface KillableOptions {
  configDir: string;
  env?: Record<string, string | undefined>;
  /** SIGKILL after this many ms, if still running. */
  killAfterMs?: number;
  /** Give up (SIGKILL, then reject) after this long. */
  timeoutMs?: number;
  input?: string;
}

export interface Killable {
  child: ChildProcess;
  /** SIGKILL now (no-op once it has ended); true when it was still running. */
  kill(): boolean;
  /** What it has written to stderr so far. */
  stderr(): string;
  done: Promise<KillableResult>;
}

/** The env every test here passes: the shared rate budget off (SCHEDCTL_RATE=0), the sandbox, the key. */
export function cliEnv(configDir: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { ...baseEnv(configDir), SCHEDCTL_RATE: '0' };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function startCli(args: string[], opts: KillableOptions): Killable {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cliEnv(opts.configDir, opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let ended = false;
  let killed = false;
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdin!.on('error', () => {});
  child.stdin!.end(opts.input ?? '');
  const kill = () => {
    if (ended || killed) return false;
    killed = true;
    child.kill('SIGKILL');
    return true;
  };
  const killTimer = opts.killAfterMs !== undefined ? setTimeout(kill, opts.killAfterMs) : undefined;
  const done = new Promise<KillableResult>((resolve, reject) => {
    const limit = setTimeout(
      () => {
        kill();
        reject(
          new Error(
            `schedctl ${args.join(' ')} did not finish within ${scaled(opts.timeoutMs ?? 60_000)} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
          ),
        );
      },
      scaled(opts.timeoutMs ?? 60_000),
    );
    child.on('error', reject);
    child.on('close', (code, signal) => {
      ended = true;
      clearTimeout(limit);
      if (killTimer) clearTimeout(killTimer);
      try {
        assertNoSecrets(`schedctl ${args.join(' ')}`, { stdout, stderr });
      } catch (error) {
        reject(error);
        return;
      }
      resolve({ code, signal, killed: killed && signal === 'SIGKILL', stdout, stderr, ms: Date.now() - started, args });
    });
  });
  return { child, kill, done, stderr: () => stderr };
}

export function runKillable(args: string[], opts: KillableOptions): Promise<KillableResult> {
  return startCli(args, opts).done;
}

/** The `--json` document on stdout, or undefined when there is none (killed, or not JSON). */
export function jsonOf(r: { stdout: string; code?: number | null; args?: string[] }): any {
  let doc: unknown;
  try {
    doc = JSON.parse(r.stdout);
  } catch {
    return undefined;
  }
  // A document there is one of its kind (test/helpers/cli.ts assertDocument), as with RunResult.json().
  if (r.args) assertDocument(r.args, r.code ?? null, doc, r.stdout);
  return doc;
}

export function describeRun(r: KillableResult): string {
  return `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

/** A state file of the config dir, parsed; `fallback` when it does not exist. */
export function readState<T>(dir: string, name: string, fallback: T): T {
  const path = join(dir, name);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : fallback;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 20 ms until it is true; false after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + scaled(timeoutMs);
  while (Date.now() < deadline) {
    try {
      if (check()) return true;
    } catch {
      // a file caught mid-rename: look again
    }
    await sleep(20);
  }
  return false;
}
