/** `schedctl help exit-codes`, and the README's "Exit codes" table (scripts/gen-docs.mjs). */
import type { HelpTopic } from './types.js';

export const exitCodes: HelpTopic = {
  name: 'exit-codes',
  summary: 'what each exit status means (stable: scripts may rely on them)',
  intro: ['Stable; scripts may rely on them.'],
  columns: ['code', 'meaning'],
  rows: [
    {
      term: '0',
      text: 'success (also: a `none`/`redirect` trigger outcome, a meeting found already booked after a lost response)',
    },
    {
      term: '1',
      text: "unexpected or server error: `INTERNAL_ERROR` on a read, unreachable host, a response that is not the API's JSON, a failed `smoke` check",
    },
    {
      term: '2',
      text: 'invalid input, caught locally before any request, or `INVALID_REQUEST`, `RESERVATION_MISMATCH`, `WORK_EMAIL_REQUIRED`',
    },
    { term: '3', text: 'auth: `INVALID_API_KEY`, `MISSING_SCOPE`, no key configured' },
    {
      term: '4',
      text: '`NOT_FOUND` (also an unknown trigger name, and `route --slot first` with no free time in the window)',
    },
    {
      term: '5',
      text: 'booking state conflicts: `SLOT_TAKEN`, `NO_HOST_AVAILABLE`, `RESERVATION_EXPIRED`, `RESERVATION_USED`, `CONFLICT`',
    },
    { term: '6', text: 'still rate limited after the wait budget' },
    { term: '7', text: 'outcome unknown: the request may have been processed; do not repeat it blindly' },
    { term: '8', text: 'some rows of a bulk `--from` run failed (the summary names them)' },
    { term: '130', text: 'cancelled by the user (Ctrl-C at a prompt, or a declined confirmation)' },
  ],
  outro: [
    'With `--json`, a failure also prints `{"error": {"code", "message", …}}` on stdout (see `schedctl help formatting`).',
  ],
};
