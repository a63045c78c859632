/**
 * `--state FILE`: the mutable state as JSON. Writes are synchronous and atomic
 * (temp file + rename) and happen before the response is sent, so a SIGTERM in the
 * middle of a booking loop never loses a meeting the client was told about.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { SandboxState } from './types.js';

export function loadState(file: string): SandboxState | undefined {
  if (!existsSync(file)) return undefined;
  let parsed: Partial<SandboxState>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<SandboxState>;
  } catch (err) {
    throw new Error(
      `cannot read sandbox state ${file}: ${(err as Error).message}; move it away or pass another --state path.`,
    );
  }
  if (
    parsed.version !== 1 ||
    !Array.isArray(parsed.meetings) ||
    !Array.isArray(parsed.reservations) ||
    !Array.isArray(parsed.executions)
  ) {
    throw new Error(`${file} is not a sandbox state file (version 1); move it away or pass another --state path.`);
  }
  return parsed as SandboxState;
}

export function saveState(file: string, state: SandboxState): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(state));
  renameSync(temp, file);
}
