/** `schedctl help formatting`, and the README's "JSON output" table (scripts/gen-docs.mjs). */
import type { HelpTopic } from './types.js';

export const formatting: HelpTopic = {
  name: 'formatting',
  summary: 'the --json output of every command',
  intro: [
    'With `--json`, a command prints exactly one JSON document on stdout (valid JSON even when a list is empty); notes, progress and warnings go to stderr. Data from the API is passed through unchanged. Without `--json`, the output is for people and may change.',
    'A failure prints `{"error": {"code", "message", "details", "status", "hint"}}` instead (`details`, `status` and `hint` when known) and exits with the code of `schedctl help exit-codes`.',
  ],
  columns: ['command', '`--json` prints', 'notes'],
  rows: [
    {
      term: '`route`',
      shape:
        '{"status", "executionId", "outcome", "meeting", "requests", "trigger": {"id", "name"}, "email", "schedulingLinkId", "reservationId", "slot", "reused", "refires"}',
      text: "`status` is `booked`, `already_booked` (an earlier attempt whose response was lost did book: `meeting` is null, `alreadyBookedCode` is the API's answer to this retry; or the local record holds this lead's meeting from the same trigger and answers: `alreadyBookedCode` is `ON_RECORD`, `meeting` that meeting, nothing sent), `redirect` (`outcome.url`), `none`, or `other`. `meeting`, `schedulingLinkId`, `reservationId` and `slot` are null when there is none; `requests` counts the API operations sent",
    },
    { term: '`triggers ls`', shape: '{"triggers": [Trigger, …]}', text: 'as the API returns it' },
    {
      term: '`triggers show <trigger>`',
      shape: '{"id", "name", "description", "fields": [{"name", "label", "type", "required", "options"}]}',
      text: 'the Trigger',
    },
    {
      term: '`trigger fire <trigger>`',
      shape: '{"executionId", "outcome": {"type": "scheduler", "schedulerUrl", "schedulingLinkId"}}',
      text: 'the API\'s fire result; `outcome` may also be `{"type": "redirect", "url"}` or `{"type": "none"}`. A remembered outcome reused instead of firing: `{"status": "reused", "executionId", "outcome", "firedAt"}`',
    },
    {
      term: '`events ls`',
      shape: '{"events": [EventSummary, …], "nextCursor"}',
      text: '`nextCursor` is `""` on the last page, and always with `--all` (which holds every event)',
    },
    {
      term: '`events show <event>`',
      shape: 'EventDetail',
      text: 'the event (or scheduling link) with `hosts` and `questions`, as the API returns it',
    },
    {
      term: '`slots <event-or-link>`',
      shape: '{"reservationId", "eventId", "expiresAt", "slots": ["2026-11-23T14:30:00.000Z", …], "activeHost"}',
      text: "the API's slots result; over several requests (more than 63 days), the reservation and expiry of the last one",
    },
    {
      term: '`book <event-or-link>`',
      shape: 'Meeting',
      text: 'a retry that finds the booking made after a lost response: `{"status": "already_booked", "code", "reservationId", "workflowExecutionId", "event", "startTime", "meetingId"}` (`meetingId` null unless known; `"code": "ON_RECORD"` when the local record already holds this lead\'s meeting at that time and nothing was sent); on `SLOT_TAKEN` the error document adds `"nearestSlots"` and `"reservationId"`',
    },
    { term: '`reschedule <meeting-id>`, `reschedule --email <lead>`', shape: 'Meeting', text: 'the moved meeting' },
    {
      term: '`meetings ls`',
      shape: '[Meeting & {"source", "recordedAt", "event", "history"}, …]',
      text: 'the local record; `source` is booked, rescheduled or recovered (then `id` and unknown fields are null)',
    },
    {
      term: '`meetings show <meeting-id>`',
      shape: 'Meeting & {"source", "recordedAt", "event", "history"}',
      text: '`history`: `[{"from", "to", "at"}]`',
    },
    {
      term: '`route --from`, `reschedule --from`',
      shape:
        'JSON Lines: {"row", "key", "status", "meetingId"?, "code"?, "message"?} per row, then {"summary": {"rows", "byStatus", "failedRows"}}',
      text: 'status: booked, already_booked, moved, skipped, redirect, none, failed, invalid; `--dry-run`: {"plan", "ratePerMinute", "invalid"}',
    },
    {
      term: '`api <METHOD> <path>`',
      shape: 'the response body',
      text: 'as the server sent it; `{}` when the body is empty',
    },
    {
      term: '`smoke`',
      shape:
        '{"ok", "requests", "checks": [{"name", "status", "latencyMs", "detail", "problems"}], "meetingId", "error"}',
      text: "a check's `status` is `pass`, `fail` or `skip`; `problems` lists contract breaks; `error` only when a check failed; `meetingId` only after `--book` created a meeting",
    },
    {
      term: '`profile add <name>`',
      shape: '{"profile": {"name", "baseUrl", "key", "isDefault"}, "keyCheck"}',
      text: 'the key masked; `keyCheck` is `passed`, `missing_scope` (saved, but the key lacks `triggers:read`) or `skipped` (`--no-verify`)',
    },
    {
      term: '`profile show [name]`',
      shape: '{"profile": {"name", "baseUrl", "key", "isDefault"}}',
      text: 'the key masked',
    },
    {
      term: '`profile ls`',
      shape: '{"profiles": [{"name", "baseUrl", "key", "isDefault"}, …]}',
      text: 'the keys masked',
    },
    { term: '`profile use <name>`', shape: '{"defaultProfile"}', text: '' },
    { term: '`profile rm <name>`', shape: '{"removed"}', text: "the removed profile's name" },
    {
      term: '`sandbox`',
      shape: '{"baseUrl", "keys": {"full", "readOnly", "revoked"}}',
      text: 'one line, once the sandbox listens',
    },
    { term: '`completion <shell>`', shape: '{"shell", "script"}', text: '' },
    {
      term: '`help <topic>`',
      shape: '{"topic", "rows": [{"term", "text"}, …]}',
      text: 'the topic\'s table (formatting rows add `"shape"`)',
    },
    { term: '`--version`', shape: '{"version"}', text: '' },
  ],
  outro: [
    "Names in the shapes (Trigger, EventSummary, EventDetail, Meeting) are the API's resources, field for field.",
  ],
};
