/**
 * What a Context is made of that any layer may name (the UI takes the streams and global options,
 * the HTTP client a clock): declared apart from context.ts, importing nothing, so that naming them
 * ties no module to the Context's services and back (test/unit/import-cycles.test.ts).
 */
export interface IO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  isStdoutTTY: boolean;
  isStderrTTY: boolean;
  isStdinTTY: boolean;
  /** The terminal's width when stdout is one (what a layout must fit in); undefined otherwise. */
  stdoutColumns?: number | undefined;
}

export interface Clock {
  now(): Date;
  sleep(ms: number): Promise<void>;
}

export interface GlobalOptions {
  profile?: string;
  /** `--jq <expression>`: the --json output filtered (it implies --json; run/jq-output.ts). */
  jq?: string;
  baseUrl?: string;
  timeout?: string;
  debug: boolean;
  color: boolean;
  input: boolean;
  quiet: boolean;
  json: boolean;
}
