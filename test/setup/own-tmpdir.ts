/**
 * Every vitest run's temporary files under one directory of its own, removed when the run ends.
 * Tests make their directories with mkdtemp(tmpdir()); one that forgets to remove its own, or a
 * worker killed mid-test (Stryker kills the ones that time out), used to leave them in /tmp for
 * good: one machine here had gathered 200,000. Set before any worker starts, TMPDIR is what every
 * worker, and every CLI or PostgreSQL the tests start, calls the temporary directory.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const before = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'schedctl-tests-'));
  // What /tmp is (1777: every user may make and remove their own entries): some tests run a
  // process as another user (a worker without write rights; the PostgreSQL server and its
  // watchdog, which removes its cluster's directory), and they must do here what they did there.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  };
}
