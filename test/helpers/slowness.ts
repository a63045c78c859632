/**
 * How much slower this machine runs the CLI than the quiet 2-core machine the suite's waits were
 * set on, so that no verdict depends on a fixed wall-clock budget: a test that fails must fail
 * because the code is wrong, not because the machine is busy. vitest.config.ts measures it once
 * per run, before any worker starts (`measureSlowness`: the median of five `schedctl --help`
 * starts against QUIET_HELP_MS), scales vitest's testTimeout and hookTimeout by it, and hands it
 * to every worker as SCHEDCTL_TEST_SLOWNESS; the helpers' own bounds (a CLI run's, a poll's) are
 * `scaled(ms)`. Never below 1: a fast machine keeps the waits as written. A run may set
 * SCHEDCTL_TEST_SLOWNESS itself (a known-slow machine, or a second suite about to start beside it).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** `schedctl --help`'s wall time when it has a core to itself (its CPU time, about 30-40 ms, and process start). */
const QUIET_HELP_MS = 50;
/** A bound, however slow the start looked: a hang still ends the run. */
const MAX_SLOWNESS = 20;

const clamp = (n: number) => Math.min(MAX_SLOWNESS, Math.max(1, n));

/** This process's factor: what vitest.config.ts measured (or the run was given), else 1. */
export const SLOWNESS = clamp(Number(process.env.SCHEDCTL_TEST_SLOWNESS) || 1);

/** A wait or bound of `ms` on a quiet machine, on this one. */
export const scaled = (ms: number): number => Math.round(ms * SLOWNESS);

/** The factor for this run: SCHEDCTL_TEST_SLOWNESS when set, else measured from `bin`'s start (1 without a build). */
export function measureSlowness(bin: string): number {
  const given = Number(process.env.SCHEDCTL_TEST_SLOWNESS);
  if (given > 0) return clamp(given);
  if (!existsSync(bin)) return 1;
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const begun = performance.now();
    spawnSync(process.execPath, [bin, '--help'], { stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' } });
    times.push(performance.now() - begun);
  }
  times.sort((a, b) => a - b);
  return clamp(Math.round((times[2]! / QUIET_HELP_MS) * 10) / 10);
}
