import { Command } from 'commander';
import type { Context } from '../context.js';
import type { SmokeReport } from '../domain/smoke/types.js';
import type { SmokeFlags } from '../domain/smoke/options.js';
import { action, collect } from './action.js';

export function smokeCommand(ctx: Context): Command {
  return new Command('smoke')
    .description('post-deploy checks: the key works, every endpoint answers, and every response matches the API contract')
    .option('--event <id|slug>', 'event to check detail and slots of (default: the first listed event)')
    .option('--trigger <id|name>', 'also fire this trigger and check its outcome (needs --email)')
    .option('--email <address>', 'lead email for --trigger and --book')
    .option('--field <key=value>', 'a trigger form response (repeatable)', collect)
    .option('--book', 'also book a real meeting on the first slot (routed when --trigger gives a scheduler outcome)')
    .option('--max-latency <ms>', 'fail any check slower than this many milliseconds')
    .option('--junit <file>', 'write a JUnit XML report (one testcase per check) for CI')
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 all checks passed (skips allowed), 1 a check failed, 2 bad flags, 3 no API key.',
        'Uses at most 8 requests (the API allows 30 per minute); a 429 waits per Retry-After.',
        'Examples:',
        '  schedctl smoke',
        '  schedctl smoke --max-latency 2000 --junit reports/smoke.xml',
        '  schedctl smoke --trigger "Inbound demo request" --email qa@acme.com --field company=Acme --field region=emea --book',
      ].join('\n'),
    )
    .action(
      action<SmokeFlags>(ctx, async (_args, opts) => {
        const report = await run(opts, ctx);
        await print(report, ctx);
        if (!report.ok) {
          const { SmokeFailedError } = await import('../domain/smoke/failed.js');
          throw new SmokeFailedError(report);
        }
      }),
    );
}

/** Validates the flags (no request on a bad one), runs the checks, writes --junit; returns the report. */
export async function run(flags: SmokeFlags, ctx: Context): Promise<SmokeReport> {
  const { parseSmokeFlags } = await import('../domain/smoke/options.js');
  const input = parseSmokeFlags(flags);
  const http = await ctx.http();
  const ui = await ctx.ui();
  const spinner = await ui.spinner('running smoke checks');
  const { runSmoke } = await import('../domain/smoke/runner.js');
  let report: SmokeReport;
  try {
    report = await runSmoke(input, { http, now: () => ctx.clock.now() });
  } finally {
    spinner.stop();
  }
  if (input.junit) {
    const [{ writeFileSync }, { junitXml }] = await Promise.all([import('node:fs'), import('../domain/smoke/junit.js')]);
    writeFileSync(input.junit, junitXml(report, { timestamp: ctx.clock.now() }));
  }
  return report;
}

async function print(report: SmokeReport, ctx: Context): Promise<void> {
  const ui = await ctx.ui();
  if (ctx.globals.json) {
    // A failed run prints its document through the error path (see SmokeFailedError).
    if (report.ok) ui.json(report);
    return;
  }
  const [{ renderTable }, render] = await Promise.all([import('../ui/table.js'), import('../domain/smoke/render.js')]);
  const paint = { pass: (s: string) => ui.out.green(s), fail: (s: string) => ui.out.red.bold(s), skip: (s: string) => ui.out.yellow(s) };
  const lines = [renderTable(['NAME', 'RESULT', 'LATENCY', 'DETAIL'], render.tableRows(report.checks, paint), { color: ui.out.level > 0 })];
  const problems = render.problemLines(report.checks);
  if (problems.length) lines.push('', 'Contract problems:', ...problems);
  if (report.meetingId) lines.push('', `Booked meeting ${report.meetingId}: it is real; cancel it when done.`);
  lines.push('', render.summaryLine(report));
  ui.print(lines.join('\n'));
}
