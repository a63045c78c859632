import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { readAll } from './stdin.js';

/** Reads a JSON value given inline, as @FILE, as a plain file path (`fileOnly`), or - for stdin. */
export async function readJsonInput(
  spec: string,
  flag: string,
  stdin: NodeJS.ReadableStream,
  fileOnly = false,
): Promise<unknown> {
  let text: string;
  let source: string;
  if (spec === '-') {
    text = await readAll(stdin);
    source = `${flag} - (stdin)`;
  } else if (spec.startsWith('@') || fileOnly) {
    const file = spec.startsWith('@') ? spec.slice(1) : spec;
    source = `${flag} file ${file}`;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new UsageError(`cannot read ${source}: ${code === 'ENOENT' ? 'no such file' : code}`);
    }
  } else {
    text = spec;
    source = flag;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${jsonParseReason(error)}`);
  }
}

/**
 * V8's JSON.parse message quotes the input (`Unexpected token 'o', "not json\n" is not valid JSON`):
 * the quote may span lines (errors are one line) or hold a secret read from a file, so keep only the reason.
 */
function jsonParseReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (
    message
      .replace(/,?\s*"[\s\S]*" is not valid JSON\s*$/, '')
      .replace(/\s+/g, ' ')
      .trim() || 'it does not parse'
  );
}
