/**
 * `slots` on a terminal: the free times as a week grid, days as columns and times of day as
 * rows, so a person reads "Tuesday and Thursday mornings" at a glance instead of scanning lines
 * of times. The rows are times in the display zone (--tz: the host's side); with the lead's zone
 * (--lead-tz) different from it, the lead's wall time stands beside each row. Pure: slots and
 * zones in, lines out (colors through `paint`), `undefined` when it would not fit the terminal
 * (the caller then prints the list). Pipes and --json never see it.
 */
import { DateTime } from 'luxon';

export interface GridDay {
  /** `yyyy-MM-dd` in the display zone. */
  key: string;
  weekday: string;
  date: string;
}

export interface GridRow {
  /** `HH:mm` in the display zone. */
  time: string;
  /** The last start of a run of rows merged into this one (the same days free, every `step` minutes). */
  until?: string;
  /** The lead's wall time of `until`. */
  leadUntil?: string;
  /** The lead's wall time of the row's slots (`+1`/`-1`: on the next or previous day); `*` when it differs between days. */
  lead?: string;
  /** One per day of the week: is the row's time free that day? */
  free: boolean[];
}

export interface GridWeek {
  days: GridDay[];
  rows: GridRow[];
  /** Minutes between two starts in a merged row (the smallest gap between the week's times). */
  step: number;
}

export interface GridInput {
  slots: readonly string[];
  zone: string;
  /** The lead's zone; ignored when it is the display zone (or keeps the same clock all week). */
  leadZone?: string | undefined;
  from: Date;
  to: Date;
}

const DAYS_PER_WEEK = 7;

/** The range's days in the display zone, 7 to a week from its first day; weeks without a free time left out. */
export function weekGrid(input: GridInput): GridWeek[] {
  const { zone } = input;
  const days: GridDay[] = [];
  const last = DateTime.fromMillis(input.to.getTime() - 1, { zone }).startOf('day');
  for (let d = DateTime.fromJSDate(input.from, { zone }).startOf('day'); d <= last; d = d.plus({ days: 1 }))
    days.push({ key: d.toISODate() ?? '', weekday: d.toFormat('ccc'), date: d.toFormat('d LLL') });
  const byDayTime = new Map<string, Map<string, string>>();
  for (const s of input.slots) {
    const t = DateTime.fromISO(s, { zone });
    const key = t.toISODate() ?? '';
    if (!byDayTime.has(key)) byDayTime.set(key, new Map());
    byDayTime.get(key)!.set(t.toFormat('HH:mm'), s);
  }
  const lead = input.leadZone && input.leadZone !== zone ? input.leadZone : undefined;
  const weeks: GridWeek[] = [];
  for (let i = 0; i < days.length; i += DAYS_PER_WEEK) {
    const week = days.slice(i, i + DAYS_PER_WEEK);
    const times = [...new Set(week.flatMap((d) => [...(byDayTime.get(d.key)?.keys() ?? [])]))].sort();
    if (times.length === 0) continue;
    const rows = times.map((time): GridRow => {
      const slots = week.map((d) => byDayTime.get(d.key)?.get(time));
      const row: GridRow = { time, free: slots.map((s) => s !== undefined) };
      if (lead)
        row.lead = leadLabel(
          slots.filter((s): s is string => s !== undefined),
          zone,
          lead,
        );
      return row;
    });
    weeks.push({ days: week, rows, step: smallestGap(times) });
  }
  // The lead's column only when some row's time differs there (the same clock in both zones says nothing).
  if (lead && weeks.every((w) => w.rows.every((r) => r.lead === r.time)))
    for (const w of weeks) for (const r of w.rows) delete r.lead;
  return weeks.map((w) => ({ ...w, rows: merged(w.rows, w.step) }));
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

function smallestGap(times: string[]): number {
  let gap = Infinity;
  for (let i = 1; i < times.length; i++) gap = Math.min(gap, minutes(times[i]!) - minutes(times[i - 1]!));
  return Number.isFinite(gap) ? gap : 0;
}

/** The part of a lead label after its time: the day shift (`+1`) and the DST mark (`*`). */
const suffix = (lead: string | undefined) => lead?.slice(5);

/**
 * Consecutive rows free on the same days, `step` minutes apart, as one row `11:00–13:45`: a
 * sandbox or a real event with 15-minute starts fills a screen with identical rows otherwise.
 * The lead's column merges alike, only while its day shift stays the same and no DST mark.
 */
function merged(rows: GridRow[], step: number): GridRow[] {
  const out: GridRow[] = [];
  for (const r of rows) {
    const prev = out[out.length - 1];
    const last = prev?.until ?? prev?.time;
    const fits =
      prev &&
      last !== undefined &&
      minutes(r.time) - minutes(last) === step &&
      prev.free.every((f, i) => f === r.free[i]) &&
      (r.lead === undefined ||
        (!r.lead.includes('*') && suffix(r.lead) === suffix(prev.lead) && !prev.lead?.includes('*')));
    if (!fits) {
      out.push({ ...r });
      continue;
    }
    prev.until = r.time;
    if (r.lead !== undefined) prev.leadUntil = r.lead;
  }
  return out;
}

/** The lead's wall time of these slots (one row's), marked when it falls on another day or differs between them. */
function leadLabel(slots: string[], zone: string, lead: string): string {
  const labels = new Set(
    slots.map((s) => {
      const here = DateTime.fromISO(s, { zone });
      const there = DateTime.fromISO(s, { zone: lead });
      // Calendar days between the two wall dates (the lead's evening may be the host's next morning).
      const day = (t: DateTime) => DateTime.fromISO(t.toISODate() ?? '', { zone: 'UTC' });
      const shift = Math.round(day(there).diff(day(here), 'days').days);
      return `${there.toFormat('HH:mm')}${shift > 0 ? `+${shift}` : shift < 0 ? `${shift}` : ''}`;
    }),
  );
  const [first = ''] = labels;
  return labels.size > 1 ? `${first}*` : first;
}

export interface Paint {
  head(text: string): string;
  free(text: string): string;
  busy(text: string): string;
}

export const plain: Paint = { head: (t) => t, free: (t) => t, busy: (t) => t };

// eslint-disable-next-line no-control-regex -- measuring text without its colors is the point.
const visible = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, '');

const FREE = '●';
const BUSY = '·';
const CELL = 6;

/** A zone as a column heading: its city (`America/New_York` → `New York`). */
export function zoneHeading(zone: string): string {
  return (zone.split('/').pop() ?? zone).replace(/_/g, ' ');
}

/**
 * The weeks as lines, at most `width` columns wide (the visible text: `paint` adds only colors),
 * or undefined when they would be wider. A note under the grid says what `*` means when used.
 */
export function renderWeekGrid(
  weeks: GridWeek[],
  zone: string,
  leadZone: string | undefined,
  width: number,
  paint: Paint = plain,
): string[] | undefined {
  const withLead = weeks.some((w) => w.rows.some((r) => r.lead !== undefined));
  const hostHead = zoneHeading(zone);
  const leadHead = withLead && leadZone ? `${zoneHeading(leadZone)} (lead)` : '';
  const range = (from: string | undefined, until: string | undefined) =>
    until === undefined ? (from ?? '') : `${from?.slice(0, 5) ?? ''}–${until}`;
  const rows = weeks.flatMap((w) => w.rows);
  const hostWidth = Math.max(hostHead.length, ...rows.map((r) => range(r.time, r.until).length));
  const leadWidth = withLead ? Math.max(leadHead.length, ...rows.map((r) => range(r.lead, r.leadUntil).length)) : 0;
  const labelWidth = 2 + hostWidth + (withLead ? 2 + leadWidth : 0);
  const widest = labelWidth + Math.max(0, ...weeks.map((w) => w.days.length)) * (CELL + 1);
  if (widest > width) return undefined;
  const label = (host: string, lead: string | undefined) =>
    `  ${host.padEnd(hostWidth)}${withLead ? `  ${(lead ?? '').padEnd(leadWidth)}` : ''}`;
  const cells = (texts: string[], style: (t: string) => string) =>
    texts.map((t) => ` ${style(t.padStart(Math.ceil((CELL + t.length) / 2)).padEnd(CELL))}`).join('');
  const out: string[] = [];
  let marked = false;
  for (const [i, w] of weeks.entries()) {
    if (i > 0) out.push('');
    out.push(
      `${paint.head(label(hostHead, withLead ? leadHead : undefined))}${cells(
        w.days.map((d) => d.weekday),
        paint.head,
      )}`,
    );
    out.push(
      `${label('', '')}${cells(
        w.days.map((d) => d.date),
        paint.head,
      )}`,
    );
    for (const r of w.rows) {
      if (r.lead?.endsWith('*')) marked = true;
      const marks = r.free.map((f) => (f ? paint.free(FREE) : paint.busy(BUSY)));
      // Centred by hand: a painted mark's length is not its width on the screen.
      const pad = ' '.repeat(Math.floor((CELL - 1) / 2));
      const tail = ' '.repeat(CELL - 1 - pad.length);
      out.push(
        `${label(range(r.time, r.until), range(r.lead, r.leadUntil))}${marks.map((m) => ` ${pad}${m}${tail}`).join('')}`,
      );
    }
  }
  const notes: string[] = [];
  const step = weeks.find((w) => w.rows.some((r) => r.until))?.step;
  if (step) notes.push(`  a–b: a free start every ${step} min from a to b`);
  if (marked) notes.push("  * the zones' offset changes this week (DST): the first day's time shown");
  if (notes.length) out.push('', ...notes);
  const lines = out.map((l) => l.trimEnd());
  // Never wider than the terminal, notes included (a wrapped grid is unreadable): the list then.
  return lines.some((l) => visible(l).length > width) ? undefined : lines;
}
