import { writeFileSync } from 'node:fs';
import { scopeOf } from '../config/target.js';
import type { Context } from '../context.js';
import { problemLines, summaryLine, tableRows } from '../domain/smoke/render.js';
import { runSmoke } from '../domain/smoke/runner.js';
import { requestsNeeded, type SmokeReport } from '../domain/smoke/types.js';
import { junitXml } from '../domain/smoke/junit.js';
import { systemZone } from '../domain/time.js';
import { sanitizeText } from '../ui/sanitize.js';
import { tables } from '../ui/table.js';
import { SmokeFailedError } from './smoke/failed.js';
import { parseSmokeFlags, SMOKE_FLAGS, type SmokeFlags } from './smoke/options.js';

/** Validates the flags (no request on a bad one), runs the checks, writes --junit, prints. */
export async function run(ctx: Context, _args: string[], flags: SmokeFlags): Promise<void> {
  const input = parseSmokeFlags(flags);
  // --book records its meeting: a ledger that cannot take it (a team state down) refuses first.
  if (input.book) await (await ctx.state()).assertWritable();
  const http = await ctx.http();
  const ui = await ctx.ui();
  // Latency is the API's: when the key's shared budget cannot cover the run, wait once, up front, and say so.
  const needed = requestsNeeded(input);
  const budgetWaitMs =
    (await http.waitForBudget?.(needed, (ms, left, limit) =>
      ui.waiting(
        `the rate budget for this key has ${left} of ${limit} requests left this minute and smoke needs ${needed}: waiting ${Math.ceil(ms / 1000)} s once, before timing starts`,
        ms,
      ),
    )) ?? 0;
  const spinner = await ui.spinner('running smoke checks');
  let report: SmokeReport;
  try {
    report = await runSmoke(
      { ...input, ...(budgetWaitMs > 0 ? { budgetWaitMs } : {}) },
      {
        http,
        now: () => ctx.clock.now(),
        names: SMOKE_FLAGS,
        zone: systemZone(),
        // The booked meeting goes into the local record: `meetings ls` shows it like any booking.
        onBooked: async (meeting, event) => {
          const [state, target] = await Promise.all([ctx.state(), ctx.target()]);
          await state.meetings.record({ scope: scopeOf(target), meeting, source: 'booked', event });
        },
      },
    );
  } finally {
    spinner.stop();
  }
  if (input.junit) writeFileSync(input.junit, junitXml(report, { timestamp: ctx.clock.now() }));
  await print(report, ctx);
  if (!report.ok) throw new SmokeFailedError(report);
}

async function print(report: SmokeReport, ctx: Context): Promise<void> {
  const ui = await ctx.ui();
  if (ctx.globals.json) {
    // A failed run prints its document through the error path (see SmokeFailedError).
    if (report.ok) ui.json(report);
    return;
  }
  const paint = {
    pass: (s: string) => ui.out.green(s),
    fail: (s: string) => ui.out.red.bold(s),
    skip: (s: string) => ui.out.yellow(s),
  };
  const renderTable = await tables();
  const lines = [
    renderTable(['NAME', 'RESULT', 'LATENCY', 'DETAIL'], tableRows(report.checks, paint), { color: ui.out.level > 0 }),
  ];
  // Contract problems quote the server's values: data, shown escaped (colors or not).
  const problems = problemLines(report.checks).map(sanitizeText);
  if (problems.length) lines.push('', 'Contract problems:', ...problems);
  if (report.meetingId)
    lines.push(
      '',
      `Booked meeting ${sanitizeText(report.meetingId)}: it is real, and the API has no cancel, so it stays on the host's calendar (remove it there).`,
      `It is in the local record: schedctl meetings show ${sanitizeText(report.meetingId)} (or schedctl meetings ls).`,
    );
  lines.push('', summaryLine(report));
  ui.print(lines.join('\n'));
}
