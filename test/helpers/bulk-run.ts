/**
 * Helpers for the `--from` (bulk) end-to-end tests: input files, reading a run's `--json`
 * output (one JSON line per row, a summary line, then on exit 8 the error document), the run
 * log in <configDir>/ledger.db (its lock under runs/), and a CLI process that can be killed mid-run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertNoSecrets, BIN, baseEnv, type RunResult } from './cli.js';
import { runRecordRows } from './ledger-db.js';
import type { SandboxState, TestSandbox } from './sandbox.js';
import { scaled } from './slowness.js';

export { DEMO_TRIGGER } from './args.js';

/** A row's line (src/documents/schemas.ts bulkLine): every field present, null when not known. */
export interface RowLine {
  row: number;
  key: string;
  status: string;
  meetingId: string | null;
  meeting: { id: string; date: string; [k: string]: unknown } | null;
  code: string | null;
  message: string | null;
}

export interface BulkOutput {
  rows: RowLine[];
  summary: { rows: number; byStatus: Record<string, number>; failedRows: number[] } | undefined;
  /** The error document printed after the summary (exit 8), or instead of everything (exit 2). */
  error: { code: string; message: string; details?: string[]; hint?: string } | undefined;
}

/**
 * Splits a bulk run's `--json` stdout into its row lines, summary line and error document.
 * JSON Lines: every line must be one complete document of the bulk-line schema, the final
 * error included (RunResult.jsonLines fails the test naming the first that is not).
 */
export function parseBulk(r: Pick<RunResult, 'stdout'> & Partial<Pick<RunResult, 'jsonLines'>>): BulkOutput {
  const rows: RowLine[] = [];
  let summary: BulkOutput['summary'];
  let error: BulkOutput['error'];
  // A process of spawnCli (killed mid-run) has no jsonLines: its lines are parsed one by one alike.
  const docs = r.jsonLines
    ? r.jsonLines<Record<string, unknown>>()
    : r.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const value of docs) {
    if (value.summary) summary = value.summary as BulkOutput['summary'];
    else if (value.error) error = value.error as BulkOutput['error'];
    else if (typeof value.row === 'number') rows.push(value as unknown as RowLine);
  }
  return { rows, summary, error };
}

/** A CSV file in `dir` (lines joined with \n, a final newline); returns its path. */
export function writeCsv(dir: string, name: string, header: string, rows: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${[header, ...rows].join('\n')}\n`);
  return path;
}

/** Lead rows for the demo trigger: `email,company,region`, regions in turn. */
export function leadRows(prefix: string, n: number): string[] {
  const regions = ['emea', 'americas', 'apac'];
  return Array.from({ length: n }, (_, i) => `${prefix}${i + 1}@acme.example,Acme,${regions[i % 3]}`);
}

/** Live (not canceled) meetings per lead email. */
export function meetingsPerLead(state: SandboxState): Map<string, number> {
  const per = new Map<string, number>();
  for (const m of state.meetings)
    if (m.status !== 'canceled') per.set(m.personEmail, (per.get(m.personEmail) ?? 0) + 1);
  return per;
}

/** The sandbox's /v1 requests as `METHOD path status`, for assertions on what was sent. */
export function sent(state: SandboxState): string[] {
  return state.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ':id')} ${r.status}`);
}

export function runsDir(configDir: string): string {
  return join(configDir, 'runs');
}

/** Every record of every run log in the config dir (its ledger's schedctl_run_records), in order. */
export function runLogRecords(configDir: string): Array<{ row: number; status: string }> {
  return runRecordRows(configDir);
}

/** Rows with a final record (anything but `started` / `sent`) in the run logs. */
export function rowsDone(configDir: string): number {
  return new Set(
    runLogRecords(configDir)
      .filter((r) => r.status !== 'started' && r.status !== 'sent')
      .map((r) => r.row),
  ).size;
}

/**
 * Makes the run-log locks in the config dir look a minute old: what the 30 s of staleness
 * after a killed run does (the next run takes the dead run's lock over), without waiting.
 */
export function ageRunLocks(configDir: string): number {
  const dir = runsDir(configDir);
  if (!existsSync(dir)) return 0;
  const past = new Date(Date.now() - 60_000);
  const locks = readdirSync(dir).filter((f) => f.endsWith('.lock'));
  for (const f of locks) utimesSync(join(dir, f), past, past);
  return locks.length;
}

export interface Spawned {
  child: ChildProcess;
  /** Resolves when the process has closed: its exit code (null when killed) and output. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  exited(): boolean;
}

/** The CLI against a test sandbox as a process the test controls (to kill it mid-run). */
export function spawnCli(
  sb: TestSandbox,
  args: string[],
  opts: { configDir: string; env?: Record<string, string | undefined> },
): Spawned {
  const env: Record<string, string> = {
    ...baseEnv(opts.configDir),
    SCHEDCTL_BASE_URL: sb.baseUrl,
    SCHEDCTL_API_KEY: sb.keys.full,
  };
  // As in runCli: undefined unsets a variable (SCHEDCTL_RATE: undefined for the default budget).
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let closed = false;
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => {
        closed = true;
        try {
          assertNoSecrets(`schedctl ${args.join(' ')}`, { stdout, stderr });
        } catch (error) {
          reject(error);
          return;
        }
        resolve({ code, signal, stdout, stderr });
      });
    },
  );
  return { child, done, exited: () => closed };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 10 ms until it holds or `timeoutMs` passes (then throws `what`). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + scaled(timeoutMs);
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
