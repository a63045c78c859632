/**
 * The input of a `--file` run: a file, or `-` for stdin. Stdin is copied once into the
 * config directory (0600), so the rows can be read twice (validate everything, then send)
 * with flat memory, and the run can be resumed by content hash like a file.
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  contentHash,
  formatOf,
  hashingPassThrough,
  type InputFormat,
  type InputRow,
  readRows,
} from '../../bulk/input.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export interface BatchSource {
  /** What the person named: the path, or "stdin". */
  label: string;
  path: string;
  hash: string;
  format: InputFormat | undefined;
  rows(): AsyncGenerator<InputRow>;
}

export async function openSource(ctx: Context, spec: string, flag: string): Promise<BatchSource> {
  if (spec === '-') {
    const dir = join(ctx.configDir(), 'runs');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const staged = join(dir, `stdin-${process.pid}.tmp`);
    const hasher = hashingPassThrough();
    await pipeline(ctx.io.stdin, hasher, createWriteStream(staged, { mode: 0o600 }));
    const hash = hasher.digest();
    const path = join(dir, `stdin-${hash.slice(0, 16)}.input`);
    renameSync(staged, path);
    return source('stdin', path, hash, undefined);
  }
  if (!existsSync(spec) || !statSync(spec).isFile())
    throw new UsageError(`invalid ${flag} "${spec}": no such file (pass a CSV or JSON Lines file, or - for stdin)`);
  return source(spec, spec, await contentHash(spec), formatOf(spec));
}

function source(label: string, path: string, hash: string, format: InputFormat | undefined): BatchSource {
  return { label, path, hash, format, rows: () => readRows(createReadStream(path), format ? { format } : {}) };
}
