/**
 * A schedctl-like process for the state store's multi-process tests (bundled by
 * state-worker-build.ts): `node worker.mjs <dir> <op> <tag> <count>`. Prints one JSON line.
 */
import { openState } from '../../src/state/index.js';

const [dir = '', op = '', tag = 'w', countText = '1'] = process.argv.slice(2);
const count = Number(countText);
const state = openState(dir, {
  now: () => new Date(process.env.STATE_NOW ?? '2031-03-01T12:00:00.000Z'),
  ...(process.env.STATE_STALE_MS ? { staleMs: Number(process.env.STATE_STALE_MS) } : {}),
  ...(process.env.STATE_WAIT_MS ? { lockWaitMs: Number(process.env.STATE_WAIT_MS) } : {}),
  // The team state (PostgreSQL) instead of the files, for the backend contract suite.
  ...(process.env.STATE_URL ? { stateUrl: () => process.env.STATE_URL } : {}),
});
const scope = `${tag}@http://127.0.0.1:1`;
const meeting = (i: number) => ({
  id: `${tag}-m${i}`,
  eventId: 'ev',
  title: 't',
  status: 'scheduled',
  date: '2031-04-01T10:00:00.000Z',
  duration: 30,
  meetingLink: null,
  conferencingType: 'zoom',
  location: null,
  personEmail: `${tag}-${i}@example.com`,
  additionalAttendees: [],
  cancellationReason: null,
  createdAt: '2031-03-01T12:00:00.000Z',
  updatedAt: '2031-03-01T12:00:00.000Z',
});

async function journalOne(i: number): Promise<void> {
  const { attempt } = await state.journal.begin({
    scope,
    event: 'ev',
    reservationId: `${tag}-r${i}`,
    workflowExecutionId: null,
    personEmail: `${tag}-${i}@example.com`,
    startTime: '2031-04-01T10:00:00.000Z',
    outcome: 'unknown',
  });
  await state.journal.markSent(attempt.id);
}

async function one(kind: string, i: number): Promise<void> {
  if (kind === 'profiles')
    await state.profiles.set(`${tag}-${i}`, { baseUrl: 'http://127.0.0.1:1', apiKey: `key-${tag}-${i}` }, false);
  if (kind === 'journal') await journalOne(i);
  if (kind === 'outcomes') {
    const outcome = { type: 'scheduler', schedulerUrl: 'u', schedulingLinkId: 'l' };
    await state.outcomes.remember(scope, 'tr', `${tag}-${i}@example.com`, {
      executionId: `${tag}-x${i}`,
      outcome,
      firedAt: 'f',
      answersKey: 'k',
    });
  }
  if (kind === 'meetings') await state.meetings.record({ scope, meeting: meeting(i), source: 'booked', event: 'ev' });
}

async function main(): Promise<unknown> {
  if (op === 'hold') {
    // Holds the lead `<tag>@example.com` until killed: says so once it has it.
    return state.holdLead({ scope, email: `${tag}@example.com` }, async () => {
      process.stdout.write(`${JSON.stringify({ held: true })}\n`);
      // A timer keeps the process alive (a pending promise alone would let it exit).
      await new Promise(() => setInterval(() => {}, 60_000));
    });
  }
  if (op === 'probe') {
    const counts = {
      profiles: (await state.profiles.list()).length,
      journal: (await state.journal.all()).length,
      outcomes: (await state.outcomes.get(scope, 'tr', 'x@example.com')) ? 1 : 0,
      meetings: (await state.meetings.list(scope)).length,
    };
    try {
      await state.profiles.set('new', { baseUrl: 'http://127.0.0.1:1', apiKey: 'k' }, false);
      return { counts, write: 'ok' };
    } catch (error) {
      const e = error as { name: string; code: string; message: string };
      return { counts, write: { name: e.name, code: e.code, message: e.message } };
    }
  }
  if (op === 'loop') {
    // Writes until killed; each line is printed only once its write returned.
    for (let i = 0; ; i++) {
      await journalOne(i);
      process.stdout.write(`ok ${i}\n`);
    }
  }
  const kinds = op === 'mixed' ? ['profiles', 'journal', 'outcomes', 'meetings'] : [op];
  for (let i = 0; i < count; i++) for (const kind of kinds) await one(kind, i);
  return { done: count };
}

main().then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (error: Error & { code?: string }) => {
    process.stderr.write(`${error.name} ${error.code ?? ''}: ${error.message}\n`);
    process.exitCode = 1;
  },
);
