/**
 * `--jq <expression>`, as gh has it: the command's --json output, filtered. The filter is jq itself
 * (jq-wasm: jq 1.7 compiled to WebAssembly), loaded only when --jq is given, and compiled before
 * the command runs, so a bad expression is exit 2 naming it before any request.
 *
 * The command writes its JSON as always, into a stream that passes each document (the one
 * document, or each line of a bulk run's JSON Lines) through the filter as it comes: strings print
 * raw, any other result as compact JSON, one result a line. An error document (`{"error": …}`)
 * is printed as it is: filtered, a failure would read as an empty or `null` result.
 */
import { Writable } from 'node:stream';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

/**
 * Reached like a command's run module (commands/action.ts, before the command's own): puts the
 * filter of `--jq <expression>` in front of stdout, and leaves on the context what ends it.
 */
export async function run(ctx: Context, [expression = '']: string[]): Promise<void> {
  ctx.endOutput = await holdForJq(ctx, expression);
}

/** The flags jq runs with: raw strings (gh's --jq prints them so), compact JSON for the rest. */
const FLAGS = ['-r', '-c'];

/**
 * Loads jq, compiles the expression (on `null`: a compile error is refused, a run-time one is the
 * data's) and puts the filter in front of stdout. Returns what ends it once the command is done:
 * false when the filter failed on the data (said on stderr; nothing more is printed).
 */
export async function holdForJq(ctx: Context, expression: string): Promise<() => Promise<boolean>> {
  const jq = await import('jq-wasm');
  try {
    await jq.raw('null', expression, FLAGS);
  } catch (error) {
    const said = jqMessage(error);
    if (/compile error/.test(said))
      throw new UsageError(`invalid --jq expression ${JSON.stringify(expression)}: ${firstLine(said)}`, {
        hint: "the jq manual: https://jqlang.org/manual/ (e.g. --jq .id, --jq '.[] | .name')",
      });
  }
  const io = ctx.io;
  let pending = '';
  let failed = false;
  const filter = async (doc: string) => {
    if (failed) return;
    if (isErrorDocument(doc)) {
      io.stdout.write(`${doc}\n`);
      return;
    }
    try {
      const result = await jq.raw(doc, expression, FLAGS);
      if (result !== '') io.stdout.write(result.endsWith('\n') ? result : `${result}\n`);
    } catch (error) {
      failed = true;
      io.stderr.write(
        `error: --jq ${JSON.stringify(expression)} failed on the output: ${firstLine(jqMessage(error))}\n`,
      );
    }
  };
  // Each write of a --json command is one document (ui.json) or one JSON Lines line (a bulk run,
  // the sandbox's line once it listens): filtered as soon as what was written parses.
  const hold = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      pending += chunk.toString();
      if (!parses(pending)) return done();
      const doc = pending.trim();
      pending = '';
      filter(doc).then(() => done(), done);
    },
    final(done) {
      const rest = pending.split('\n').filter((line) => line.trim() !== '');
      pending = '';
      rest.reduce((p, line) => p.then(() => filter(line)), Promise.resolve()).then(() => done(), done);
    },
  });
  // The same streams otherwise, each still made on first use (context.ts): only stdout is held.
  ctx.io = Object.create(io, { stdout: { value: hold, enumerable: true } }) as Context['io'];
  return async () => {
    await new Promise<void>((resolve) => hold.end(resolve));
    ctx.io = io;
    return !failed;
  };
}

function parses(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isErrorDocument(doc: string): boolean {
  try {
    const value: unknown = JSON.parse(doc);
    return (
      typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).join() === 'error'
    );
  } catch {
    return false;
  }
}

/** jq's own words, without the wrapper's "Failed to execute raw query: " and jq's "jq: error: ". */
function jqMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/^Failed to execute raw query: /, '').replace(/^jq: error(?: \(at [^)]*\))?: /, '');
}

const firstLine = (s: string) => s.split('\n')[0]!.trim();
