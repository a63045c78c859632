/** The environment of one CLI run whose wall clock is `shiftMs` off (test/helpers/skewed-clock.mjs). */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const PRELOAD = pathToFileURL(resolve(import.meta.dirname, 'skewed-clock.mjs')).href;

export function skewedClockEnv(shiftMs: number): Record<string, string> {
  return { NODE_OPTIONS: `--import=${PRELOAD}`, SCHEDCTL_TEST_CLOCK_SHIFT_MS: String(shiftMs) };
}
