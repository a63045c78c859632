/**
 * JUnit XML for CI systems (GitHub Actions reporters, GitLab, Jenkins): one <testcase>
 * per check, <failure> for a failed one, <skipped/> for a skipped one.
 */
import type { SmokeReport } from './types.js';

/** Escapes text for XML attributes and content, and drops characters XML 1.0 cannot hold. */
export function xmlEscape(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- the point is to drop the characters XML 1.0 cannot carry.
      .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

const seconds = (ms: number | null) => ((ms ?? 0) / 1000).toFixed(3);

export function junitXml(report: SmokeReport, opts: { timestamp: Date; suite?: string }): string {
  const suite = opts.suite ?? 'schedctl smoke';
  const tests = report.checks.length;
  const failures = report.checks.filter((c) => c.status === 'fail').length;
  const skipped = report.checks.filter((c) => c.status === 'skip').length;
  const time = seconds(report.checks.reduce((sum, c) => sum + (c.latencyMs ?? 0), 0));
  const counts = `tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}" time="${time}"`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(suite)}" ${counts}>`,
    `  <testsuite name="${xmlEscape(suite)}" ${counts} timestamp="${opts.timestamp.toISOString().replace(/\.\d{3}Z$/, '')}">`,
    `    <properties><property name="requests" value="${report.requests}"/><property name="rateWaitMs" value="${report.rateWaitMs}"/></properties>`,
  ];
  for (const c of report.checks) {
    const open = `    <testcase classname="schedctl.smoke" name="${xmlEscape(c.name)}" time="${seconds(c.latencyMs)}"`;
    // The time is the API's; a wait for the rate budget is a property of its own, never a failure.
    const wait = c.rateWaitMs
      ? [`      <properties><property name="rateWaitMs" value="${c.rateWaitMs}"/></properties>`]
      : [];
    if (c.status === 'pass') {
      lines.push(`${open}>`, ...wait, `      <system-out>${xmlEscape(c.detail)}</system-out>`, '    </testcase>');
    } else if (c.status === 'skip') {
      lines.push(`${open}>`, ...wait, `      <skipped message="${xmlEscape(c.detail)}"/>`, '    </testcase>');
    } else {
      const body = [c.detail, ...(c.problems ?? [])].join('\n');
      lines.push(
        `${open}>`,
        ...wait,
        `      <failure message="${xmlEscape(c.detail)}" type="smoke">${xmlEscape(body)}</failure>`,
        '    </testcase>',
      );
    }
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
