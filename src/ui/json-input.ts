import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { readAll } from './stdin.js';

/** Reads a JSON value given inline, as @FILE, as a plain file path (`fileOnly`), or - for stdin. */
export async function readJsonInput(spec: string, flag: string, stdin: NodeJS.ReadableStream, fileOnly = false): Promise<unknown> {
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
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message}`);
  }
}
