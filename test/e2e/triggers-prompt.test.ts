/**
 * The terminal-only path of `trigger fire`: with a remembered outcome and no --force, it asks
 * before firing again. Driven in-process (a subprocess has no TTY) with typed answers.
 */
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { ENTER, onTerminal } from '../helpers/terminal.js';

const t = useSandbox();

/** Fires the demo trigger on a fake terminal, answering the "fire again?" question with `answer` if given. */
const fire = (answer?: string) =>
  onTerminal(
    [
      'trigger',
      'fire',
      'Inbound demo request',
      '--email',
      'ada@acme.com',
      '--field',
      'company=Acme',
      '--field',
      'region=emea',
    ],
    answer === undefined ? [] : [['Fire again anyway', `${answer}${ENTER}`]],
    { sb: t.sb, configDir: t.dir },
  );

describe('trigger fire on a terminal with a remembered outcome', () => {
  it('asks, and keeps the remembered outcome when the answer is no', async () => {
    expect((await fire()).code).toBe(0);
    const r = await fire('n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('already held');
    expect(r.stderr).toContain('Fire again anyway');
    expect(r.stdout).toContain('next: schedctl slots ');
    expect((await t.sb.state()).executions).toHaveLength(1);
  });

  it('fires again when the answer is yes', async () => {
    expect((await fire()).code).toBe(0);
    const r = await fire('y');
    expect(r.code, r.stderr).toBe(0);
    expect((await t.sb.state()).executions).toHaveLength(2);
    expect(r.stderr).toContain('Firing "Inbound demo request"');
    expect(r.stdout).toContain('executionId ');
  });
});
