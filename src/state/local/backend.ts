/** The default backend: the config directory's files, locked across this machine's processes. */
import type { LedgerBackend } from '../backend.js';
import { assertWritable } from '../disk.js';
import { JsonFile } from '../json-file.js';
import { holdLead, holdLock, meetingLockFile } from '../lead-lock.js';
import type { LockTiming } from '../lock.js';

export function localBackend(dir: string, timing: LockTiming, leadTiming: LockTiming): LedgerBackend {
  return {
    kind: 'local',
    where: dir,
    document: (kind) => new JsonFile(dir, kind, timing),
    assertWritable: async () => assertWritable(dir),
    hold: (subject, work, onWait) =>
      subject.kind === 'lead'
        ? holdLead(dir, leadTiming, subject, work, onWait)
        : holdLock(
            meetingLockFile(dir, subject.scope, subject.id),
            leadTiming,
            { label: `meeting ${subject.id}`, onWait },
            work,
          ),
    runLogs: async () => (await import('../../bulk/run-log.js')).localRunLogs(dir),
    close: async () => {},
  };
}
