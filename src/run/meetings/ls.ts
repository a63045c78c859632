import { workspaceOf } from '../workspace.js';
import { serverClockOf } from '../../api/server-clock.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseTimeExpression } from '../../domain/human-time.js';
import { requireEmail } from '../../domain/inputs.js';
import { formatInZone, resolveZone } from '../../domain/time.js';
import { tables } from '../../ui/table.js';
import { sanitizeText } from '../../ui/sanitize.js';
import { allMeetings, eventLabel, filterMeetings, isGone, type ListedView, type MeetingFilter } from './records.js';
import { eventIdsOf } from './event-ids.js';
import { isUnresolvedView, unresolvedAttempts, unresolvedLine, unresolvedView } from './unresolved.js';

export interface LsOptions {
  all?: boolean;
  email?: string;
  event?: string;
  from?: string;
  to?: string;
  tz?: string;
  /** The flag's text, or the MCP tool's number. */
  limit?: string | number;
  /** Words that the title, lead or event must all contain (the positional TEXT; MCP: `text`). */
  text?: string;
}

export async function run(ctx: Context, words: string[], opts: LsOptions): Promise<void> {
  const zone = resolveZone(opts.tz, '--tz');
  const text = words.join(' ').trim();
  const filter = await parseMeetingsFilter({ ...opts, ...(text ? { text } : {}) }, zone, ctx.clock.now());
  const target = await ctx.target();
  const meetings = await listMeetings(ctx, filter);
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(meetings);
  const renderTable = await tables();
  // With a team state the record is every machine's: say who booked each meeting.
  const shared = (await (await ctx.state()).backend()).kind === 'postgres';
  const by = (m: ListedView) => ('bookedBy' in m && m.bookedBy) || '';
  if (ctx.io.isStderrTTY)
    ui.info(
      `Meetings booked or moved through schedctl on ${target.profileName ? `profile "${target.profileName}"` : 'SCHEDCTL_API_KEY'} at ${target.baseUrl} (the API has no list operation: meetings booked elsewhere are not here).`,
    );
  if (meetings.length === 0)
    return ui.info(
      opts.all ? 'no meetings on record' : 'no upcoming meetings on record (--all shows past and gone ones)',
    );
  const table = (title: boolean) =>
    renderTable(
      [
        `TIME (${zone})`,
        'LEAD',
        ...(title ? ['TITLE'] : []),
        'EVENT',
        'STATUS',
        'SOURCE',
        ...(shared ? ['BY'] : []),
        'ID',
      ],
      meetings.map((m) => [
        formatInZone(m.date, zone),
        m.personEmail,
        ...(title ? [m.title ?? ''] : []),
        eventLabel(m),
        isGone(m)
          ? `404 since ${formatInZone(m.goneAt, zone)}`
          : isUnresolvedView(m)
            ? 'unknown: answer lost'
            : movePending(m)
              ? 'move unanswered'
              : m.status,
        m.source,
        ...(shared ? [by(m)] : []),
        m.id ?? (isUnresolvedView(m) ? '(not received)' : '(unknown: answer lost)'),
      ]),
      { color: ui.out.level > 0 },
    );
  ui.print(withTitleIfItFits(table, terminalWidth(ctx)));
  // What the table's STATUS cannot say, a line each on stderr (at most NOTES: a long --all
  // listing stays a table; `meetings history <email>` has the rest).
  const notes = meetings.flatMap((m) =>
    isUnresolvedView(m)
      ? [`unresolved: ${unresolvedLine(m, zone)}`]
      : isGone(m)
        ? [`404: ${notFoundLine(m.id, m.goneAt, zone)}; the record keeps it`]
        : movePending(m)
          ? [
              `move unanswered: meeting ${m.id} was being moved to ${formatInZone(m.pendingMove.to, zone)} (sent ${formatInZone(m.pendingMove.sentAt, zone)}) and the answer was lost: it may be at either time; the next reschedule of it sends that move again`,
            ]
          : [],
  );
  for (const note of notes.slice(0, NOTES)) ui.info(sanitizeText(note));
  if (notes.length > NOTES)
    ui.info(`(${notes.length - NOTES} more like these: schedctl meetings history <email> shows a lead's whole record)`);
  if (meetings.some((m) => m.id === null && !isUnresolvedView(m)))
    ui.info(
      '(unknown: answer lost): the meeting exists (a retry proved the booking) but its id was never received; move it by its id from the scheduling app: schedctl reschedule <meeting-id> --start <time> (the record then keeps the id)',
    );
}

const NOTES = 10;

/** A meeting whose move was sent and never answered: its time on record may no longer be its time. */
const movePending = <T extends object>(m: T): m is T & { pendingMove: { to: string; sentAt: string } } =>
  'pendingMove' in m && m.pendingMove !== undefined;

/** A meeting the API answered 404 for, said as what it is (shared/ledger-rules.md: not freed by it). */
export function notFoundLine(id: string, at: string, zone: string): string {
  return `the API answered 404 for meeting ${id} on ${formatInZone(at, zone)} (deleted, of another account, or a gateway's mistake: check it in the scheduling app)`;
}

/**
 * The table with a TITLE column when the terminal (or COLUMNS) is wide enough for it, else
 * without: the columns a script may read stay where they were when the width is unknown (a pipe).
 */
function withTitleIfItFits(table: (title: boolean) => string, width: number | undefined): string {
  if (width === undefined) return table(false);
  const titled = table(true);
  // eslint-disable-next-line no-control-regex -- colours are escape sequences: not part of the width
  const widest = Math.max(...titled.split('\n').map((l) => l.replace(/\x1b\[[0-9;]*m/g, '').length));
  return widest <= width ? titled : table(false);
}

function terminalWidth(ctx: Context): number | undefined {
  const columns = ctx.io.stdoutColumns ?? Number(ctx.env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : undefined;
}

/** The flags as a filter of the local record (no request): upcoming meetings unless --all or --from. */
export async function parseMeetingsFilter(opts: LsOptions, zone: string, now: Date): Promise<MeetingFilter> {
  return {
    email: opts.email !== undefined ? requireEmail(opts.email, '--email') : undefined,
    event: opts.event?.trim() || undefined,
    text: opts.text?.trim() || undefined,
    from:
      opts.from !== undefined
        ? await parseTimeExpression(opts.from, { zone, now, name: '--from', zoneInput: '--tz', rangeStart: true })
        : undefined,
    to:
      opts.to !== undefined
        ? await parseTimeExpression(opts.to, { zone, now, name: '--to', zoneInput: '--tz', endOfDay: true })
        : undefined,
    upcomingFrom: opts.all || opts.from !== undefined ? undefined : now,
    limit: opts.limit !== undefined ? parseLimit(String(opts.limit)) : undefined,
  };
}

/** `--limit`: a whole number, 1 or more. */
function parseLimit(raw: string): number {
  const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && Number.isSafeInteger(n)))
    throw new UsageError(`invalid --limit "${raw}": expected a whole number of meetings, 1 or more`);
  return n;
}

/**
 * The meetings of this workspace on record that pass the filter, earliest first: the `meetings ls
 * --json` document (the MCP tool and resource too). Upcoming ones include those the API answered
 * 404 for (marked by goneAt), and the bookings sent whose answer was lost (source `unresolved`,
 * whatever their time: the ledger's rule holds the lead on them until a re-run resolves them). A filter's `upcomingFrom` asks for upcoming
 * meetings; upcoming by the server's clock (shared/ledger-rules.md, "Whose clock"), as the
 * ledger's rule judges them: a local clock that runs ahead must not hide a meeting still to come.
 */
export async function listMeetings(ctx: Context, filter: MeetingFilter): Promise<ListedView[]> {
  const [state, target] = await Promise.all([ctx.state(), ctx.target()]);
  const scope = await workspaceOf(ctx);
  const upcoming = filter.upcomingFrom && { ...filter, upcomingFrom: serverClockOf(ctx).ledgerNow(target.baseUrl) };
  const f: MeetingFilter = { ...(upcoming || filter), withGone: true };
  if (f.event !== undefined) f.eventIds = await eventIdsOf(ctx, state, scope, f.event);
  // Words are matched here, after the query: the database's limit would cut before them.
  const read = f.text !== undefined ? { ...f, limit: undefined } : f;
  const [meetings, unresolved] = await Promise.all([
    allMeetings(state, scope, read),
    unresolvedAttempts(state, scope, f.email),
  ]);
  const listed: ListedView[] = [
    ...filterMeetings(meetings, f),
    ...filterMeetings(unresolved.map(unresolvedView), { ...f, upcomingFrom: undefined }),
  ];
  return listed.sort((a, b) => Date.parse(a.date) - Date.parse(b.date)).slice(0, f.limit);
}
