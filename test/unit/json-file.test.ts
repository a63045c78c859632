/** The read of a JSON state file (the ledger documents of a schedctl from before the tables). */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateFileError } from '../../src/state/errors.js';
import { JOURNAL_FILE } from '../../src/state/files.js';
import { JsonFile } from '../../src/state/json-file.js';
import { DEFAULT_LOCK_TIMING } from '../../src/state/lock.js';

const journalIn = (dir: string) => new JsonFile(dir, JOURNAL_FILE, DEFAULT_LOCK_TIMING);

describe('JsonFile.readNow', () => {
  it('reads a missing file as empty, also below a path that is a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'json-file-'));
    expect(journalIn(dir).readNow()).toEqual({ entries: [] });
    writeFileSync(join(dir, 'plain'), '');
    expect(journalIn(join(dir, 'plain', 'sub')).readNow()).toEqual({ entries: [] });
    expect(journalIn(dir).path).toBe(join(dir, 'journal.json'));
  });

  it('refuses what cannot be read at all, and wrong content, naming the file and why', () => {
    const dir = mkdtempSync(join(tmpdir(), 'json-file-'));
    mkdirSync(join(dir, 'journal.json'));
    const error = (() => {
      try {
        return journalIn(dir).readNow();
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toMatch(/journal\.json is not a readable schedctl journal file \(EISDIR: /);
    const other = mkdtempSync(join(tmpdir(), 'json-file-'));
    writeFileSync(join(other, 'journal.json'), '{"entries":[{"id":1}]}');
    expect(() => journalIn(other).readNow()).toThrow(/\(unexpected content at entries\.0\.id: [A-Z]/);
    writeFileSync(join(other, 'journal.json'), '[]');
    expect(() => journalIn(other).readNow()).toThrow(/\(unexpected content Invalid input: expected object/);
  });
});
