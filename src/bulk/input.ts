/**
 * Bulk input (`--file leads.csv`, `--file moves.jsonl`, `--file -`): rows as they stream in.
 * Memory stays flat for any file size: one chunk (64 KB) and its rows at a time.
 *
 * Both formats yield `{ line, record }` with every value a string, so one validator serves both:
 * - CSV: a header row names the columns (names trimmed; a BOM is fine); empty and all-blank
 *   lines are skipped. A column with an empty header is ignored while its cells are empty.
 * - JSON Lines: one object per line; numbers and booleans become their text, null becomes '',
 *   an array becomes its items joined with `;` (the separator of the CSV `guests` column, so
 *   `"guests": ["a@x.com", "b@y.com"]` and `guests: a@x.com;b@y.com` mean the same).
 *   Nested objects are a row error.
 * A malformed line (bad JSON, wrong CSV field count, broken quoting) is yielded as a row error
 * naming its line; the rows around it are still read. Only a broken CSV header is thrown: no
 * row can be read without it.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { UsageError } from '../errors.js';
import { setOwn } from '../domain/own-keys.js';
import { readCsvRecords } from './csv.js';

export type InputFormat = 'csv' | 'jsonl';

/**
 * How long one cell and one row of a bulk file may be: a value as long as a form answer and a
 * guest list hold with room to spare, a row of many such. Past them the row is invalid (exit 2
 * naming its line, before anything is sent), and its text is not kept: one 50 MB cell is read in
 * chunks and dropped, never held whole.
 */
export const INPUT_LIMITS = { cellChars: 4096, rowChars: 131_072 } as const;

export interface InputRecord {
  /** The physical line (1-based) the row starts on: the row's id in results and run logs. */
  line: number;
  record: Record<string, string>;
  error?: undefined;
}
export interface InputRowError {
  line: number;
  /** Why the line could not be read, without the line number (the caller prefixes it). */
  error: string;
  record?: undefined;
}
export type InputRow = InputRecord | InputRowError;

export type InputSource = NodeJS.ReadableStream | AsyncIterable<string | Buffer | Uint8Array>;

/** By file extension: `.csv`, `.jsonl` / `.ndjson`; undefined for anything else (then the content decides). */
export function formatOf(path: string): InputFormat | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  return undefined;
}

export async function* readRows(
  source: InputSource,
  opts: { format?: InputFormat | undefined } = {},
): AsyncGenerator<InputRow> {
  const chunks = decode(source as AsyncIterable<string | Buffer | Uint8Array>);
  const { format, text } = opts.format ? { format: opts.format, text: chunks } : await sniff(chunks);
  if (format === 'jsonl') yield* readJsonLines(text, INPUT_LIMITS);
  else yield* readCsv(text, INPUT_LIMITS);
}

/** sha256 (hex) of a file, streamed: the identity of an input for resumable runs. */
export async function contentHash(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * A pass-through that hashes what flows through it (for stdin, which cannot be read twice):
 * `stdin.pipe(h)`, read rows from `h`, then `h.digest()` is the sha256 of everything read.
 */
export class HashingPassThrough extends Transform {
  private readonly hash: Hash = createHash('sha256');
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    callback(null, chunk);
  }
  /** Hex sha256 of the bytes seen so far (equal to `contentHash` of the same bytes once all are read). */
  digest(): string {
    return this.hash.copy().digest('hex');
  }
}

export function hashingPassThrough(): HashingPassThrough {
  return new HashingPassThrough();
}

async function* decode(source: AsyncIterable<string | Buffer | Uint8Array>): AsyncGenerator<string> {
  // One decoder across chunks: a UTF-8 character split between two chunks stays whole.
  const decoder = new StringDecoder('utf8');
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    if (text) yield text;
  }
  const rest = decoder.end();
  if (rest) yield rest;
}

/** No format given and no telling extension: the first non-blank character decides (`{` → JSON Lines). */
async function sniff(chunks: AsyncGenerator<string>): Promise<{ format: InputFormat; text: AsyncIterable<string> }> {
  const seen: string[] = [];
  let format: InputFormat = 'csv';
  for (;;) {
    const next = await chunks.next();
    if (next.done) break;
    seen.push(next.value);
    const first = /[^\s\uFEFF]/.exec(next.value);
    if (first) {
      format = first[0] === '{' ? 'jsonl' : 'csv';
      break;
    }
  }
  async function* replay(): AsyncGenerator<string> {
    yield* seen.splice(0);
    yield* chunks;
  }
  return { format, text: replay() };
}

async function* readCsv(text: AsyncIterable<string>, limits: Limits): AsyncGenerator<InputRow> {
  let header: string[] | undefined;
  for await (const rec of readCsvRecords(text, limits)) {
    if (!header) {
      if (rec.error) throw new UsageError(`the CSV header (line ${rec.line}) cannot be read: ${rec.error}`);
      header = rec.fields.map((name) => name.trim());
      checkHeader(header, rec.line);
      continue;
    }
    if (rec.error) {
      yield { line: rec.line, error: rec.error };
      continue;
    }
    if (rec.fields.every((f) => f.trim() === '')) continue;
    if (rec.fields.length !== header.length) {
      yield {
        line: rec.line,
        error: `${rec.fields.length} fields, but the header has ${header.length} columns (a missing or extra comma, or an unquoted comma in a value?)`,
      };
      continue;
    }
    const record: Record<string, string> = {};
    let unnamed: number | undefined;
    header.forEach((name, i) => {
      const value = rec.fields[i] ?? '';
      if (name !== '') setOwn(record, name, value);
      else if (value.trim() !== '') unnamed ??= i + 1;
    });
    if (unnamed !== undefined)
      yield { line: rec.line, error: `a value in column ${unnamed}, which has no name in the header` };
    else yield { line: rec.line, record };
  }
}

function checkHeader(header: string[], line: number): void {
  const seen = new Set<string>();
  for (const name of header) {
    if (name !== '' && seen.has(name)) {
      throw new UsageError(`the CSV header (line ${line}) names column "${name}" twice`, {
        hint: 'each column name may appear once; rename or remove one of them',
      });
    }
    seen.add(name);
  }
}

type Limits = { readonly cellChars: number; readonly rowChars: number };

async function* readJsonLines(text: AsyncIterable<string>, limits: Limits): AsyncGenerator<InputRow> {
  let line = 0;
  let partial = '';
  // The line being read is past the row limit: the rest of it is skipped, not kept.
  let over = false;
  const tooLong = `the row is longer than ${limits.rowChars} characters`;
  for await (const chunk of text) {
    for (let start = 0; ;) {
      const nl = chunk.indexOf('\n', start);
      const piece = nl === -1 ? chunk.slice(start) : chunk.slice(start, nl);
      if (!over && partial.length + piece.length > limits.rowChars) [over, partial] = [true, ''];
      else if (!over) partial += piece;
      if (nl === -1) break;
      line++;
      if (over) yield { line, error: tooLong };
      else yield* jsonRow(partial, line, limits);
      [over, partial, start] = [false, '', nl + 1];
    }
  }
  if (over) yield { line: ++line, error: tooLong };
  else if (partial !== '') yield* jsonRow(partial, ++line, limits);
}

function* jsonRow(raw: string, line: number, limits: Limits): Generator<InputRow> {
  const text = (line === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
  if (text === '') return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    yield { line, error: `not valid JSON (${(error as Error).message})` };
    return;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const what = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    yield { line, error: `expected one JSON object per line, got ${what}` };
    return;
  }
  const record: Record<string, string> = {};
  const problems: string[] = [];
  for (const [rawKey, v] of Object.entries(value)) {
    const key = rawKey.trim();
    const text = cellText(v);
    if (text === undefined)
      problems.push(
        `"${key}" holds ${Array.isArray(v) ? 'an array with a nested value' : 'an object'}; values must be text, numbers or lists of them`,
      );
    else if (text.length > limits.cellChars) problems.push(`"${key}" is longer than ${limits.cellChars} characters`);
    else setOwn(record, key, text);
  }
  if (problems.length > 0) yield { line, error: problems.join('; ') };
  else yield { line, record };
}

function cellText(v: unknown): string | undefined {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    const items = v.map((item) => (item === null || typeof item === 'object' ? undefined : cellText(item)));
    return items.every((item) => item !== undefined) ? items.join(';') : undefined;
  }
  return undefined;
}
