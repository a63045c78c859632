/**
 * "Machines" for the team-state tests: each one its own config dir (its own key store, local
 * files and team-spool), all pointing at one sandbox and, through SCHEDCTL_STATE_URL, at one
 * team database of the file's throwaway PostgreSQL (test/helpers/postgres.ts).
 */
import { tempDir, type RunResult } from './cli.js';
import { startCli, type Killable } from './parallel-run.js';
import type { TestSandbox } from './sandbox.js';

export type Env = Record<string, string | undefined>;

export interface Machine {
  readonly dir: string;
  /** Runs the CLI on this machine with the sandbox's full key and the team state (unless `env` overrides). */
  run(args: string[], env?: Env): Promise<RunResult>;
  /** The same as a process the test may signal (SIGSTOP, SIGKILL) or await later. */
  start(args: string[], env?: Env): Killable;
}

export function machine(sb: TestSandbox, stateUrl: string | undefined, base: Env = {}): Machine {
  const dir = tempDir('schedctl-machine-');
  const envOf = (env: Env): Env => ({
    SCHEDCTL_BASE_URL: sb.baseUrl,
    SCHEDCTL_API_KEY: sb.keys.full,
    SCHEDCTL_STATE_URL: stateUrl,
    SCHEDCTL_RATE: '0',
    ...base,
    ...env,
  });
  return {
    dir,
    run: (args, env = {}) => sb.cli(args, { configDir: dir, env: envOf(env), timeoutMs: 60_000 }),
    start: (args, env = {}) => startCli(args, { configDir: dir, env: envOf(env), timeoutMs: 60_000 }),
  };
}

/** The database name of a state URL (`postgres://u@h:p/NAME`). */
export const dbName = (url: string): string => new URL(url).pathname.slice(1);

/** The same URL through another port (a TCP proxy in front of the database). */
export function viaPort(url: string, port: number): string {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
}
