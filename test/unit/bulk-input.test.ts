import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  contentHash,
  formatOf,
  hashingPassThrough,
  INPUT_LIMITS,
  type InputFormat,
  type InputRow,
  readRows,
} from '../../src/bulk/input.js';
import { UsageError } from '../../src/errors.js';

async function rows(text: string | string[], format?: InputFormat): Promise<InputRow[]> {
  const chunks = Array.isArray(text) ? text : [text];
  const out: InputRow[] = [];
  for await (const row of readRows(Readable.from(chunks.map((c) => Buffer.from(c))), { format })) out.push(row);
  return out;
}

describe('readRows: CSV', () => {
  it('names values by the trimmed header, skips a BOM and empty or blank lines, and numbers rows by their line', async () => {
    const got = await rows('\uFEFF email , company\n\nada@acme.example,Acme\n,\n  \nbob@b.example,"B, Inc."\n');
    expect(got).toEqual([
      { line: 3, record: { email: 'ada@acme.example', company: 'Acme' } },
      { line: 6, record: { email: 'bob@b.example', company: 'B, Inc.' } },
    ]);
  });

  it('counts a CRLF inside a quoted value as one line, so later rows keep their true line numbers', async () => {
    const text = 'email,notes\r\na@x.example,"two\r\nlines"\r\nb@x.example,"say ""hi"""\r\n\r\nc@x.example,plain';
    const expected = [
      { line: 2, record: { email: 'a@x.example', notes: 'two\r\nlines' } },
      { line: 4, record: { email: 'b@x.example', notes: 'say "hi"' } },
      { line: 6, record: { email: 'c@x.example', notes: 'plain' } },
    ];
    expect(await rows(text)).toEqual(expected);
    // The same bytes one at a time: a CR and its LF, or a UTF-8 character, split across chunks.
    expect(await rows(text.split(''))).toEqual(expected);
  });

  it('keeps a multi-byte character split between two chunks whole', async () => {
    const bytes = Buffer.from('name\nJosé\n');
    const out: InputRow[] = [];
    for await (const row of readRows(Readable.from([bytes.subarray(0, 9), bytes.subarray(9)]), { format: 'csv' }))
      out.push(row);
    expect(out).toEqual([{ line: 2, record: { name: 'José' } }]);
  });

  it('yields a wrong field count as a row error and goes on with the next row', async () => {
    const got = await rows('email,company\na@x.example,A,extra\nb@x.example\nc@x.example,C\n');
    expect(got).toEqual([
      { line: 2, error: expect.stringContaining('3 fields, but the header has 2 columns') },
      { line: 3, error: expect.stringContaining('1 fields, but the header has 2 columns') },
      { line: 4, record: { email: 'c@x.example', company: 'C' } },
    ]);
  });

  it('costs one row for text after a closing quote', async () => {
    const got = await rows('a,b\n1,"bad"x\n2,3\n');
    expect(got).toEqual([
      { line: 2, error: expect.stringContaining('text after the closing quote of field 2') },
      { line: 3, record: { a: '2', b: '3' } },
    ]);
  });

  it('reports a quote that is never closed at the line it opened', async () => {
    const got = await rows('a,b\n1,2\n3,"open\n4,5\n');
    expect(got).toEqual([
      { line: 2, record: { a: '1', b: '2' } },
      { line: 3, error: expect.stringContaining('opened on line 3 is never closed') },
    ]);
  });

  it('ignores a column with no header name while its cells are empty', async () => {
    expect(await rows('a,b,\n1,2,\n3,4,x\n')).toEqual([
      { line: 2, record: { a: '1', b: '2' } },
      { line: 3, error: 'a value in column 3, which has no name in the header' },
    ]);
  });

  it('refuses a header that names a column twice', async () => {
    await expect(rows('email,email\na,b\n')).rejects.toThrow(UsageError);
    await expect(rows('email,email\na,b\n')).rejects.toThrow('names column "email" twice');
  });

  it('yields nothing for an empty file or a header alone', async () => {
    expect(await rows('', 'csv')).toEqual([]);
    expect(await rows('email,company\n')).toEqual([]);
  });
});

describe('readRows: JSON Lines', () => {
  it('turns values into strings: numbers and booleans as text, null as empty, arrays joined with ;', async () => {
    const got = await rows(
      '{"email":"a@x.example","size":12,"vip":true,"phone":null,"guests":["b@x.example","c@x.example"]}\n',
      'jsonl',
    );
    expect(got).toEqual([
      {
        line: 1,
        record: { email: 'a@x.example', size: '12', vip: 'true', phone: '', guests: 'b@x.example;c@x.example' },
      },
    ]);
  });

  it('yields bad JSON, non-objects and nested values as row errors with their line, and skips blank lines', async () => {
    const text =
      '\uFEFF{"email":"a@x.example"}\r\n\n{"email": \n[1,2]\n{"email":"b@x.example","meta":{"k":1}}\n{"email":"c@x.example"}';
    const got = await rows(text, 'jsonl');
    expect(got).toEqual([
      { line: 1, record: { email: 'a@x.example' } },
      { line: 3, error: expect.stringContaining('not valid JSON') },
      { line: 4, error: 'expected one JSON object per line, got an array' },
      { line: 5, error: expect.stringContaining('"meta" holds an object') },
      { line: 6, record: { email: 'c@x.example' } },
    ]);
  });
});

describe('format detection', () => {
  it('goes by the file extension', () => {
    expect(formatOf('leads.csv')).toBe('csv');
    expect(formatOf('/tmp/LEADS.CSV')).toBe('csv');
    expect(formatOf('moves.jsonl')).toBe('jsonl');
    expect(formatOf('moves.ndjson')).toBe('jsonl');
    expect(formatOf('leads.txt')).toBeUndefined();
    expect(formatOf('-')).toBeUndefined();
  });

  it('without a format, reads JSON Lines when the first non-blank character is {', async () => {
    expect(await rows(['\uFEFF', '  \n', '{"email":"a@x.example"}\n'])).toEqual([
      { line: 2, record: { email: 'a@x.example' } },
    ]);
    expect(await rows('email\na@x.example\n')).toEqual([{ line: 2, record: { email: 'a@x.example' } }]);
  });
});

describe('streaming', () => {
  it('yields the first row before the rest of a 10,000-row input is read, and every row in the end', async () => {
    let produced = 0;
    async function* source() {
      yield 'email,company\n';
      for (let i = 0; i < 10_000; i++) {
        produced++;
        yield `lead${i}@x.example,Company ${i}\n`;
      }
    }
    let count = 0;
    let producedAtFirstRow = -1;
    for await (const row of readRows(source())) {
      if (count === 0) producedAtFirstRow = produced;
      expect(row.error).toBeUndefined();
      count++;
    }
    expect(count).toBe(10_000);
    expect(producedAtFirstRow).toBeLessThan(10);
  });
});

describe('content hash', () => {
  it('is the sha256 of the file, and the pass-through gives the same for the same bytes read from a stream', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'schedctl-bulk-'));
    const path = join(dir, 'leads.csv');
    const text = 'email\na@x.example\nb@x.example\n';
    writeFileSync(path, text);
    const expected = createHash('sha256').update(text).digest('hex');
    expect(await contentHash(path)).toBe(expected);

    const hashing = hashingPassThrough();
    Readable.from([Buffer.from(text.slice(0, 7)), Buffer.from(text.slice(7))]).pipe(hashing);
    const got: InputRow[] = [];
    for await (const row of readRows(hashing, { format: 'csv' })) got.push(row);
    expect(got).toHaveLength(2);
    expect(hashing.digest()).toBe(expected);
  });
});

describe('cell and row limits (INPUT_LIMITS): an oversize row is an error naming its line, never held whole', () => {
  const { cellChars, rowChars } = INPUT_LIMITS;
  const big = (n: number) => 'x'.repeat(n);
  /** The text in chunks of 1000 characters, as a stream delivers it. */
  const chunked = (text: string) =>
    Array.from({ length: Math.ceil(text.length / 1000) }, (_, i) => text.slice(i * 1000, (i + 1) * 1000));

  it('CSV: a cell at the limit reads; one past it is a row error; the rows around it still read', async () => {
    const text = `email,notes\na@x.com,${big(cellChars)}\nb@x.com,${big(cellChars + 1)}\nc@x.com,"${big(cellChars + 1)}"\nd@x.com,ok\n`;
    const got = await rows(chunked(text), 'csv');
    expect(got.map((r) => r.line)).toEqual([2, 3, 4, 5]);
    expect(got[0]?.record?.notes).toHaveLength(cellChars);
    expect(got[1]).toEqual({ line: 3, error: `field 2 is longer than ${cellChars} characters` });
    expect(got[2]).toEqual({ line: 4, error: `field 2 is longer than ${cellChars} characters` });
    expect(got[3]?.record).toEqual({ email: 'd@x.com', notes: 'ok' });
  });

  it('CSV: a row past the row limit (many cells within theirs) is a row error', async () => {
    const cells = Math.ceil(rowChars / 1000) + 1;
    const header = Array.from({ length: cells }, (_, i) => `c${i}`).join(',');
    const row = Array.from({ length: cells }, () => big(999)).join(',');
    const got = await rows(chunked(`${header}\n${row}\n${Array(cells).fill('y').join(',')}\n`), 'csv');
    expect(got[0]).toEqual({ line: 2, error: `the row is longer than ${rowChars} characters` });
    expect(got[1]?.record?.c0).toBe('y');
    // Commas alone count too.
    const commas = await rows(`a\n${','.repeat(rowChars + 1)}\n`, 'csv');
    expect(commas[0]).toEqual({ line: 2, error: `the row is longer than ${rowChars} characters` });
  });

  it('JSON Lines: a line past the row limit is skipped as an error, a cell past its limit too; the next lines read', async () => {
    const long = JSON.stringify({ email: 'a@x.com', notes: big(rowChars) });
    const cell = JSON.stringify({ email: 'b@x.com', notes: big(cellChars + 1) });
    const ok = JSON.stringify({ email: 'c@x.com', notes: big(cellChars) });
    const got = await rows(chunked(`${long}\n${cell}\n${ok}\n${long}`), 'jsonl');
    expect(got).toEqual([
      { line: 1, error: `the row is longer than ${rowChars} characters` },
      { line: 2, error: `"notes" is longer than ${cellChars} characters` },
      { line: 3, record: { email: 'c@x.com', notes: big(cellChars) } },
      { line: 4, error: `the row is longer than ${rowChars} characters` },
    ]);
    // A line exactly at the limit reads.
    const exact = JSON.stringify({ e: big(rowChars - 10) }).slice(0, rowChars);
    expect((await rows(exact, 'jsonl'))[0]?.line).toBe(1);
  });
});
