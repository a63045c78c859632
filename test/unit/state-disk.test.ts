/**
 * Crash-safe writes (src/state/disk.ts): the directory made 0700, the writability check made
 * before anything is sent, and the atomic replace (temp file, fsync, rename, directory fsync).
 * Failures the test machine cannot make happen for real (a full disk, a read-only file system
 * seen by root, a short write) are injected into node:fs for the length of one synchronous
 * call: `syncBuiltinESMExports` makes `import { writeSync } from 'node:fs'` see the stand-in,
 * and the original is back before any other code runs.
 */
import {
  chmodSync,
  existsSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertWritable, ensureDir, writeAtomic } from '../../src/state/disk.js';
import { StateWriteError } from '../../src/state/errors.js';

/** node:fs itself (the object its ESM exports are synced from), to put stand-ins on. */
const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');
const tempDir = () => mkdtempSync(join(tmpdir(), 'state-disk-'));
const modeOf = (path: string) => statSync(path).mode & 0o777;

type FsName = 'mkdirSync' | 'openSync' | 'writeSync' | 'fsyncSync' | 'closeSync' | 'renameSync';
type Real = (...args: unknown[]) => unknown;
type Fakes = Partial<Record<FsName, (real: Real, ...args: unknown[]) => unknown>>;

/** Runs `work` (synchronous) with some node:fs functions replaced; each fake gets the real one first. */
function withFs<T>(fakes: Fakes, work: () => T): T {
  const saved = new Map<FsName, unknown>();
  for (const [name, fake] of Object.entries(fakes) as [FsName, (real: Real, ...args: unknown[]) => unknown][]) {
    const real = fs[name] as Real;
    saved.set(name, real);
    (fs as Record<FsName, unknown>)[name] = (...args: unknown[]) => fake(real, ...args);
  }
  syncBuiltinESMExports();
  try {
    return work();
  } finally {
    for (const [name, real] of saved) (fs as Record<FsName, unknown>)[name] = real;
    syncBuiltinESMExports();
  }
}

const osError = (code: string, syscall: string) =>
  Object.assign(new Error(`${code}: injected, ${syscall}`), { code, syscall });

/** What `work` threw (it must throw). */
function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** A descriptor that is closed (not leaked): fstat says EBADF. */
const expectClosed = (fd: number) => expect(() => fstatSync(fd)).toThrow(expect.objectContaining({ code: 'EBADF' }));

describe('ensureDir', () => {
  it('creates a missing directory and its parents', () => {
    const dir = join(tempDir(), 'a', 'b', 'schedctl');
    ensureDir(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(modeOf(dir)).toBe(0o700);
  });

  it('makes the directory it created exactly 0700, even under a umask that takes owner bits away', () => {
    const dir = join(tempDir(), 'schedctl');
    // A umask of 0277, as mkdir applies it (process.umask cannot be set in a worker thread).
    withFs({ mkdirSync: (real, path, options) => real(path, { ...(options as object), mode: 0o700 & ~0o277 }) }, () =>
      ensureDir(dir),
    );
    expect(modeOf(dir)).toBe(0o700);
  });

  it('leaves an existing directory exactly as it is (a home or a shared 1777 directory keeps its mode)', () => {
    const dir = tempDir();
    chmodSync(dir, 0o1777);
    ensureDir(dir);
    expect(statSync(dir).mode & 0o7777).toBe(0o1777);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fails as STATE_WRITE naming the directory when a part of its path is a file', () => {
    const parent = tempDir();
    writeFileSync(join(parent, 'file'), '');
    const dir = join(parent, 'file', 'schedctl');
    const error = thrown(() => ensureDir(dir));
    expect(error).toBeInstanceOf(StateWriteError);
    expect((error as StateWriteError).path).toBe(dir);
    expect((error as StateWriteError).osCode).toBe('ENOTDIR');
  });
});

describe('assertWritable', () => {
  it('passes on a writable directory, creating it when missing, and leaves no probe behind', () => {
    const existing = tempDir();
    writeFileSync(join(existing, 'config.json'), '{}');
    assertWritable(existing);
    expect(readdirSync(existing)).toEqual(['config.json']);

    const missing = join(tempDir(), 'new');
    assertWritable(missing);
    expect(modeOf(missing)).toBe(0o700);
    expect(readdirSync(missing)).toEqual([]);
  });

  it('probes with a file of its own in the directory itself, created and removed', () => {
    const dir = tempDir();
    const opened: string[] = [];
    withFs(
      {
        openSync: (real, path, flags, mode) => {
          opened.push(String(path));
          return real(path, flags, mode);
        },
      },
      () => assertWritable(dir),
    );
    expect(opened).toEqual([`${dir}/.schedctl-write-check.${process.pid}.tmp`]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fails as STATE_WRITE on a directory where no file can be created (a read-only file system), with its hint', () => {
    const dir = tempDir();
    const refused = withFs(
      {
        openSync: () => {
          throw osError('EROFS', 'open');
        },
      },
      () => thrown(() => assertWritable(dir)),
    );
    expect(refused).toBeInstanceOf(StateWriteError);
    expect((refused as StateWriteError).path).toBe(dir);
    expect((refused as StateWriteError).message).toBe(`cannot write ${dir} (EROFS: injected, open): nothing was saved`);
    expect((refused as StateWriteError).hint).toBe(
      'the file system is read-only: point SCHEDCTL_CONFIG_DIR at a writable directory',
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fails as STATE_WRITE naming the directory when it cannot be made', () => {
    const parent = tempDir();
    writeFileSync(join(parent, 'file'), '');
    const error = thrown(() => assertWritable(join(parent, 'file', 'cfg')));
    expect(error).toBeInstanceOf(StateWriteError);
    expect((error as StateWriteError).osCode).toBe('ENOTDIR');
  });
});

describe('writeAtomic', () => {
  it('replaces the file with the new text (0600) and leaves no temp file', () => {
    const dir = tempDir();
    const path = join(dir, 'server-time.json');
    writeFileSync(path, 'old content, longer than the new one\n');
    writeAtomic(path, '{"skewMs": 12} é\n');
    expect(readFileSync(path, 'utf8')).toBe('{"skewMs": 12} é\n');
    expect(modeOf(path)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['server-time.json']);
  });

  it('writes an empty text as an empty file', () => {
    const dir = tempDir();
    const path = join(dir, 'f.json');
    writeFileSync(path, 'x');
    writeAtomic(path, '');
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('goes on after a short write until every byte is in the file', () => {
    const dir = tempDir();
    const path = join(dir, 'f.json');
    const text = `${'0123456789'.repeat(10)}ü\n`;
    const calls: [number, number][] = [];
    withFs(
      {
        writeSync: (real, fd, buffer, offset, length) => {
          calls.push([offset as number, length as number]);
          // At most 7 bytes a call, as a pipe or a signal can cut a write short.
          return real(fd, buffer, offset, Math.min(7, length as number));
        },
      },
      () => writeAtomic(path, text),
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
    const size = Buffer.byteLength(text);
    expect(calls[0]).toEqual([0, size]);
    expect(calls[1]).toEqual([7, size - 7]);
    expect(calls).toHaveLength(Math.ceil(size / 7));
  });

  it('fsyncs the file before the rename, then the directory (the rename made durable), closing both', () => {
    const dir = tempDir();
    const path = join(dir, 'f.json');
    const events: string[] = [];
    const fds = new Map<number, string>();
    withFs(
      {
        openSync: (real, p, flags, mode) => {
          const fd = real(p, flags, mode) as number;
          fds.set(fd, String(p) === dir ? 'dir' : 'temp');
          events.push(`open ${fds.get(fd)} ${String(flags)}`);
          return fd;
        },
        fsyncSync: (real, fd) => {
          events.push(`fsync ${fds.get(fd as number)}`);
          real(fd);
        },
        closeSync: (real, fd) => {
          events.push(`close ${fds.get(fd as number)}`);
          real(fd);
        },
        renameSync: (real, from, to) => {
          events.push('rename');
          real(from, to);
        },
      },
      () => writeAtomic(path, 'new'),
    );
    expect(events).toEqual([
      'open temp wx',
      'fsync temp',
      'close temp',
      'rename',
      'open dir r',
      'fsync dir',
      'close dir',
    ]);
    for (const fd of fds.keys()) expectClosed(fd);
  });

  it('still succeeds when the file system refuses to fsync a directory, and closes it', () => {
    const dir = tempDir();
    const path = join(dir, 'f.json');
    let dirFd: number | undefined;
    withFs(
      {
        openSync: (real, p, flags, mode) => {
          const fd = real(p, flags, mode) as number;
          if (String(p) === dir) dirFd = fd;
          return fd;
        },
        fsyncSync: (real, fd) => {
          if (fd === dirFd) throw osError('EINVAL', 'fsync');
          real(fd);
        },
      },
      () => writeAtomic(path, 'new'),
    );
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(dirFd).toBeDefined();
    expectClosed(dirFd!);
  });

  it('still succeeds when the directory cannot be opened for its fsync', () => {
    const dir = tempDir();
    const path = join(dir, 'f.json');
    withFs(
      {
        openSync: (real, p, flags, mode) => {
          if (String(p) === dir) throw osError('EACCES', 'open');
          return real(p, flags, mode);
        },
      },
      () => writeAtomic(path, 'new'),
    );
    expect(readFileSync(path, 'utf8')).toBe('new');
  });

  it('on a full disk: STATE_WRITE naming the file, the old content kept, the temp file closed and removed', () => {
    const dir = tempDir();
    const path = join(dir, 'f.json');
    writeFileSync(path, 'old');
    let tempFd: number | undefined;
    const error = withFs(
      {
        writeSync: (_real, fd) => {
          tempFd = fd as number;
          throw osError('ENOSPC', 'write');
        },
      },
      () => thrown(() => writeAtomic(path, 'new')),
    );
    expect(error).toBeInstanceOf(StateWriteError);
    expect((error as StateWriteError).path).toBe(path);
    expect((error as StateWriteError).message).toBe(
      `cannot write ${path} (ENOSPC: injected, write): nothing was saved`,
    );
    expect((error as StateWriteError).hint).toBe('the disk is full: free some space and run the command again');
    expect(readFileSync(path, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['f.json']);
    expectClosed(tempFd!);
  });

  it('reports the write failure, not a second one from closing the failed file', () => {
    const dir = tempDir();
    const path = join(dir, 'f.json');
    let tempFd: number | undefined;
    const error = withFs(
      {
        fsyncSync: (_real, fd) => {
          tempFd = fd as number;
          throw osError('EIO', 'fsync');
        },
        closeSync: (real, fd) => {
          real(fd);
          throw osError('EIO', 'close');
        },
      },
      () => thrown(() => writeAtomic(path, 'new')),
    );
    expect(error).toBeInstanceOf(StateWriteError);
    expect((error as StateWriteError).message).toBe(`cannot write ${path} (EIO: injected, fsync): nothing was saved`);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    expectClosed(tempFd!);
  });

  it('when the rename fails: STATE_WRITE, the temp file removed, the target as it was', () => {
    const dir = tempDir();
    const path = join(dir, 'taken');
    mkdirSync(path);
    writeFileSync(join(path, 'inside'), '');
    const error = thrown(() => writeAtomic(path, 'new'));
    expect(error).toBeInstanceOf(StateWriteError);
    expect((error as StateWriteError).path).toBe(path);
    expect(readdirSync(dir)).toEqual(['taken']);
    expect(readdirSync(path)).toEqual(['inside']);
  });

  it('when the temp file cannot be created (the directory is gone): STATE_WRITE, not a failure of the clean-up', () => {
    const path = join(tempDir(), 'gone', 'f.json');
    const error = thrown(() => writeAtomic(path, 'new'));
    expect(error).toBeInstanceOf(StateWriteError);
    expect((error as StateWriteError).osCode).toBe('ENOENT');
    expect((error as StateWriteError).message).toBe(
      `cannot write ${path} (ENOENT: no such file or directory): nothing was saved`,
    );
  });
});
