/**
 * Runs the built CLI (bin/schedctl.js, or $SCHEDCTL_TEST_BIN for an installed tarball)
 * as a subprocess, the way users and scripts do, and checks every captured output for
 * leaked secrets (the secret-hygiene guarantee holds across the whole suite).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { scaled } from './slowness.js';
import { DOCUMENTS, documentKindOf, schemaId } from '../../src/documents/index.js';
import { formatSchemaIssues } from '../../src/api/zod.js';

export const BIN = process.env.SCHEDCTL_TEST_BIN ?? resolve(import.meta.dirname, '../../bin/schedctl.js');

const secrets = new Set<string>();
/** Register a key that must never appear in any output of the CLI. */
export function registerSecret(...keys: string[]): void {
  for (const k of keys) if (k) secrets.add(k);
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /**
   * stdout parsed as the one JSON document `--json` promises, validated against its kind's
   * schema (src/documents/): a test fails naming the field that does not match.
   */
  json<T = any>(): T;
  /** stdout as JSON Lines (a bulk `--file --json` run): every line one document, each validated. */
  jsonLines<T = any>(): T[];
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  configDir?: string;
  timeoutMs?: number;
  /** Only for the sandbox banner, which prints its own demo keys by design. */
  allowSecrets?: boolean;
  /**
   * The largest file the process may write, in KiB (RLIMIT_FSIZE, bash's `ulimit -f`): a write
   * past it fails (EFBIG; SIGXFSZ ignored), as on a full disk, and every file counts alike.
   */
  fileSizeLimitKb?: number;
}

export function tempDir(prefix = 'schedctl-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function baseEnv(configDir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: configDir,
    SCHEDCTL_CONFIG_DIR: configDir,
    // The test sandboxes run without a rate limit: the shared client-side budget would only slow
    // the suite down. Tests of the budget set SCHEDCTL_RATE themselves.
    SCHEDCTL_RATE: '0',
    // Test-only: retries of a read back off from 10 ms, not 300 ms (what is retried, how often,
    // and what is never retried are what the tests check; the length of the pause is not).
    SCHEDCTL_TEST_RETRY_BASE_MS: '10',
    NO_COLOR: '1',
    CI: 'true',
    TZ: 'UTC',
    // One V8 code cache for the run's CLI processes (Node's module compile cache, under the run's
    // temporary directory): each of the suite's ~1,800 starts then skips parsing the bundle again,
    // about a tenth of a command's CPU. What a process does is unchanged; a directory it cannot
    // write (a test's other user) only means no cache, silently.
    NODE_COMPILE_CACHE: join(tmpdir(), 'node-compile-cache'),
    ...fakedClock(),
  };
}

/**
 * A suite run under libfaketime (`faketime -f +36h npm test`: is anything tied to the day it
 * runs on?) keeps every CLI process on the suite's clock; otherwise the sandbox and the CLI
 * would disagree about "now". Empty on a normal run.
 */
export function fakedClock(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => /^(LD_PRELOAD|FAKETIME.*|DONT_FAKE_MONOTONIC)$/.test(e[0]) && e[1] !== undefined,
    ),
  );
}

export function runCli(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const configDir = opts.configDir ?? tempDir();
  const env: Record<string, string> = { ...baseEnv(configDir) };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolvePromise, reject) => {
    const argv = [BIN, ...args];
    const child =
      opts.fileSizeLimitKb === undefined
        ? spawn(process.execPath, argv, { env, stdio: ['pipe', 'pipe', 'pipe'] })
        : spawn(
            '/bin/bash',
            [
              '-c',
              'trap "" XFSZ; ulimit -f "$1" && shift && exec "$@"',
              'limit',
              String(opts.fileSizeLimitKb),
              process.execPath,
              ...argv,
            ],
            { env, stdio: ['pipe', 'pipe', 'pipe'] },
          );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(
      () => {
        child.kill('SIGKILL');
        reject(
          new Error(
            `schedctl ${args.join(' ')} did not finish within ${scaled(opts.timeoutMs ?? 20_000)} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
          ),
        );
      },
      scaled(opts.timeoutMs ?? 20_000),
    );
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      // Reject (not throw): a throw here is outside the promise and would only surface as a timeout.
      if (!opts.allowSecrets) {
        try {
          assertNoSecrets(`schedctl ${args.join(' ')}`, { stdout, stderr });
        } catch (error) {
          reject(error);
          return;
        }
      }
      resolvePromise({
        code,
        stdout,
        stderr,
        json() {
          let doc: unknown;
          try {
            doc = JSON.parse(stdout);
          } catch {
            throw new Error(`stdout is not one JSON document (exit ${code})\nstdout:\n${stdout}\nstderr:\n${stderr}`);
          }
          assertDocument(args, code, doc, stdout);
          return doc as any;
        },
        jsonLines() {
          const lines = stdout.split('\n').filter((l) => l !== '');
          return lines.map((line, i) => {
            let doc: unknown;
            try {
              doc = JSON.parse(line);
            } catch {
              throw new Error(`stdout line ${i + 1} is not one JSON document (exit ${code})\nstdout:\n${stdout}`);
            }
            assertDocument(args, code, doc, line);
            return doc as any;
          });
        },
      });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * Every `--json` output a test reads is checked against its published schema (schemas/ is
 * generated from the same zod schemas). `api` prints the server's body as it came: it has no
 * kind (src/documents/index.ts), so it is not checked.
 * A failed command's document is the error document (a `smoke` that failed still prints its
 * own result, told apart by its `error` not being one).
 */
export function assertDocument(args: readonly string[], code: number | null, doc: unknown, text: string): void {
  const isError =
    typeof doc === 'object' && doc !== null && typeof (doc as { error?: unknown }).error === 'object' && code !== 0;
  const kind = documentKindOf(args, isError);
  if (!kind) return;
  const parsed = DOCUMENTS[kind].schema().safeParse(doc);
  if (!parsed.success)
    throw new Error(
      `schedctl ${args.join(' ')} printed a document that is not a ${schemaId(kind)}:\n  ${formatSchemaIssues(parsed.error).join('\n  ')}\n${text.slice(0, 2000)}`,
    );
}

export function assertNoSecrets(where: string, outputs: Record<string, string>): void {
  for (const [name, text] of Object.entries(outputs)) {
    for (const secret of secrets) {
      if (text.includes(secret)) throw new Error(`secret leaked in ${name} of ${where}`);
    }
  }
}

/** Every file under a config dir (journal, outcomes, ...) except the key store itself must be free of keys. */
export function assertNoSecretsInFiles(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) assertNoSecretsInFiles(path);
    else if (name !== 'config.json') assertNoSecrets(path, { file: readFileSync(path, 'utf8') });
  }
}

/** A message for expect(): the subprocess's output, shown when an assertion fails. */
export function show(r: RunResult): string {
  return `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}
