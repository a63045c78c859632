import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readRows } from '../../src/bulk/input.js';
import { EXIT } from '../../src/errors.js';
import { createCsvResultWriter, csvCell, type RowResult, summarize, toJsonLine } from '../../src/bulk/results.js';

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { stream, text: () => chunks.join('') };
}

const results: RowResult[] = [
  { row: 2, key: 'ada@acme.example', status: 'booked', meetingId: 'm-1' },
  {
    row: 3,
    key: 'bob@acme.example',
    status: 'failed',
    code: 'SLOT_TAKEN',
    message: 'the time was taken, "again"\nsecond line',
  },
  { row: 5, key: 'eve@acme.example', status: 'invalid', message: 'company: required, twice' },
  { row: 4, key: 'cy@acme.example', status: 'redirect' },
];

describe('results', () => {
  it('writes one JSON object per line, every field present (null when not known)', () => {
    expect(toJsonLine(results[0]!)).toBe(
      '{"row":2,"key":"ada@acme.example","status":"booked","meetingId":"m-1","meeting":null,"code":null,"message":null}\n',
    );
  });

  it('writes CSV with a header and quoting that a CSV reader reads back unchanged', async () => {
    const out = sink();
    const writer = createCsvResultWriter(out.stream);
    for (const r of results) writer.write(r);
    const text = out.text();
    expect(text.split('\r\n')[0]).toBe('row,key,status,meeting_id,code,message');
    const back = [];
    for await (const row of readRows(Readable.from([text]), { format: 'csv' })) back.push(row.record);
    expect(back[1]).toEqual({
      row: '3',
      key: 'bob@acme.example',
      status: 'failed',
      meeting_id: '',
      code: 'SLOT_TAKEN',
      message: 'the time was taken, "again"\nsecond line',
    });
    expect(back).toHaveLength(4);
  });

  it('keeps a spreadsheet from running a cell as a formula', () => {
    expect(csvCell('=HYPERLINK("http://evil")')).toBe(`"'=HYPERLINK(""http://evil"")"`);
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell(' padded')).toBe('" padded"');
  });

  it('summarizes by status, lists failed and invalid rows; a failed row is exit 8', () => {
    const summary = summarize(results);
    expect(summary.total).toBe(4);
    expect(summary.byStatus).toMatchObject({ booked: 1, failed: 1, invalid: 1, redirect: 1, none: 0 });
    expect(summary.failedRows).toEqual([3, 5]);
    expect(EXIT.someRowsFailed).toBe(8);
  });
});
