/**
 * Crash-safe writes. A state file is replaced, never rewritten in place: the new content goes
 * to a temp file in the same directory (same file system, so rename is atomic), is fsynced,
 * then renamed over the old one. A crash at any instant leaves either the old or the new file.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { StateWriteError } from './errors.js';

/**
 * Creates the directory when missing (0700: it holds API keys). A directory that already
 * exists is left exactly as it is: it may be a home directory or a shared 1777 one, and
 * chmod-ing it would break other users; our own files are 0600 instead.
 */
export function ensureDir(dir: string): void {
  try {
    // `recursive` returns the first directory it created, or undefined when all existed.
    const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
    // The mode is filtered by the umask; make sure the directory we created is exactly 0700.
    if (created !== undefined) chmodSync(dir, 0o700);
  } catch (error) {
    throw new StateWriteError(dir, error);
  }
}

/**
 * A command that must write afterwards (a fire remembers its outcome, a booking its attempt)
 * checks first, before it sends anything: the directory exists or can be made, and a file can
 * be created in it (this also catches a read-only file system, which permissions do not show).
 */
export function assertWritable(dir: string): void {
  ensureDir(dir);
  const probe = `${dir}/.schedctl-write-check.${process.pid}.tmp`;
  try {
    closeSync(openSync(probe, 'w', 0o600));
  } catch (error) {
    throw new StateWriteError(dir, error);
  } finally {
    rmSync(probe, { force: true });
  }
}

export function writeAtomic(path: string, text: string): void {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx', 0o600);
    const bytes = Buffer.from(text, 'utf8');
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    // Without fsync, a power loss after the rename can leave a renamed but empty file.
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    rmSync(temp, { force: true });
    throw new StateWriteError(path, error);
  }
  syncDir(dirname(path));
}

/** Makes the rename itself durable. Best effort: some file systems refuse fsync on a directory. */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The data is already in the renamed file; only its durability across a power loss is weaker.
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already failing: the original error is the one worth reporting.
  }
}
