/**
 * A streaming RFC 4180 reader that knows the physical line each record starts on.
 *
 * Why not csv-parse (installed): results, resume state and error messages are keyed by the
 * input's line number, and csv-parse 6.2 reports the line a record *ends* on, counts a CRLF
 * inside a quoted field as two lines (so every later record is off by one), and after a bad
 * closing quote with `skip_records_with_error` reads the rest of the file as one quoted field.
 * This reader is one small state machine: exact line numbers, and an error costs one record.
 *
 * Rules: `,` separates fields; `"` quotes a field (`""` is a quote inside one); CRLF, LF and a
 * lone CR end a record; a quote inside an unquoted field is kept as text (lenient, like
 * spreadsheets); text after a closing quote is an error for that record only.
 */

export interface CsvRecord {
  /** The physical line (1-based) the record starts on. */
  line: number;
  fields: string[];
  /** Set when the record is malformed; `fields` is then incomplete. */
  error?: string;
}

type State = 'fieldStart' | 'unquoted' | 'quoted' | 'quoteInQuoted' | 'afterQuoted';

/** How long a cell and a row may be (input.ts, INPUT_LIMITS): past them, the record is an error and is not kept. */
export interface CsvLimits {
  cellChars: number;
  rowChars: number;
}

export async function* readCsvRecords(
  text: AsyncIterable<string>,
  limits: CsvLimits = { cellChars: Infinity, rowChars: Infinity },
): AsyncGenerator<CsvRecord> {
  let state: State = 'fieldStart';
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let quoteLine = 1;
  let error: string | undefined;
  let pendingCr = false;
  let first = true;
  /** Characters of the record so far (its separators too): past the row limit, nothing more is kept. */
  let rowChars = 0;
  const out: CsvRecord[] = [];

  /** Appends to the field, within the limits: memory stays bounded whatever one line holds. */
  const grow = (s: string) => {
    rowChars += s.length;
    if (rowChars > limits.rowChars) {
      fail(`the row is longer than ${limits.rowChars} characters`);
      field = '';
    } else if (field.length + s.length > limits.cellChars) {
      fail(`field ${fields.length + 1} is longer than ${limits.cellChars} characters`);
      field = '';
    } else if (error === undefined) field += s;
  };
  const endField = () => {
    if (error === undefined) fields.push(field);
    field = '';
  };
  const endRecord = () => {
    endField();
    // An empty line (no text, no quotes) is skipped, not a record with one empty field.
    const empty = fields.length === 1 && fields[0] === '' && state !== 'afterQuoted' && error === undefined;
    if (!empty) out.push(error === undefined ? { line: recordLine, fields } : { line: recordLine, fields, error });
    fields = [];
    error = undefined;
    rowChars = 0;
    state = 'fieldStart';
  };
  /** A comma ends the field, a line break the record: true when `c` was one of them. */
  const separates = (c: string): boolean => {
    if (c === ',') {
      rowChars++;
      if (rowChars > limits.rowChars) fail(`the row is longer than ${limits.rowChars} characters`);
      endField();
      state = 'fieldStart';
      return true;
    }
    if (c === '\n') {
      endRecord();
      recordLine = ++line;
      return true;
    }
    return false;
  };
  const fail = (why: string) => {
    error ??= why;
  };

  for await (const chunk of text) {
    for (let i = 0; i < chunk.length; i++) {
      let c = chunk.charAt(i);
      if (first) {
        first = false;
        if (c === '\uFEFF') continue;
      }
      if (pendingCr) {
        pendingCr = false;
        if (c === '\n') {
          // The LF of a CRLF: the line was counted at the CR.
          if (state === 'quoted') grow('\n');
          continue;
        }
      }
      if (c === '\r') {
        pendingCr = true;
        if (state === 'quoted') {
          grow('\r');
          line++;
          continue;
        }
        c = '\n';
      }
      if (state === 'quoted') {
        if (c === '"') state = 'quoteInQuoted';
        else {
          grow(c);
          if (c === '\n') line++;
        }
        continue;
      }
      if (state === 'quoteInQuoted') {
        if (c === '"') {
          grow('"');
          state = 'quoted';
          continue;
        }
        state = 'afterQuoted'; // the quote closed the field; this character follows it
      }
      if (state === 'afterQuoted') {
        if (!separates(c)) {
          fail(
            `text after the closing quote of field ${fields.length + 1} (a quote inside a quoted field is written "")`,
          );
        }
        continue;
      }
      if (state === 'fieldStart') {
        if (c === '"') {
          state = 'quoted';
          quoteLine = line;
          continue;
        }
        state = 'unquoted';
      }
      if (!separates(c)) grow(c);
    }
    // Records are handed out per chunk, so memory holds one chunk's records at most.
    yield* out.splice(0);
  }
  if (state === 'quoted' || state === 'quoteInQuoted') {
    if (state === 'quoted') {
      fail(`a quoted field opened on line ${quoteLine} is never closed (the rest of the file was read as part of it)`);
    }
    state = 'afterQuoted';
  }
  if (state !== 'fieldStart' || fields.length > 0 || field !== '' || error !== undefined) endRecord();
  yield* out.splice(0);
}
