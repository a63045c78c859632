/**
 * Issue 54, finding 5: `--yes` wherever a command confirms, as gh has it. route and reschedule
 * skip their go-ahead questions with it (route.test.ts, reschedule-tty.test.ts); book asks none
 * and accepts it (book-time-grammar.test.ts); where a confirmation guards a repeat or a
 * replacement (trigger fire, profile add, state unlock), --yes is --force's other name.
 */
import { describe, expect, it } from 'vitest';
import { demoFireArgs } from '../helpers/args.js';
import { runCli, show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const cli = (args: string[], input?: string) => t.sb.cli(args, { configDir: t.dir, ...(input ? { input } : {}) });

describe('--yes wherever a command confirms', () => {
  it.each(['route', 'book', 'reschedule', 'trigger fire', 'profile add', 'state unlock', 'state reset-ledger'])(
    '%s --help lists --yes',
    async (command) => {
      const r = await runCli([...command.split(' '), '--help']);
      expect(r.code, show(r)).toBe(0);
      expect(r.stdout).toMatch(/^ +--yes\b/m);
    },
  );

  it('trigger fire --yes fires again where a remembered outcome would be reused', async () => {
    const first = await cli([...demoFireArgs('ada@acme.example'), '--json']);
    expect(first.code, show(first)).toBe(0);
    const again = await cli([...demoFireArgs('ada@acme.example'), '--yes', '--json']);
    expect(again.code, show(again)).toBe(0);
    expect(again.json<{ executionId: string }>().executionId).not.toBe(
      first.json<{ executionId: string }>().executionId,
    );
  });

  it('profile add --yes replaces a profile of that name without a terminal', async () => {
    const add = (extra: string[]) =>
      cli(
        ['profile', 'add', 'work', '--key-stdin', '--no-verify', '--base-url', t.sb.baseUrl, ...extra],
        `${t.sb.keys.full}\n`,
      );
    expect((await add([])).code).toBe(0);
    const refused = await add([]);
    expect(refused.code, show(refused)).toBe(2);
    expect(refused.stderr).toContain('pass --force to replace it');
    const replaced = await add(['--yes']);
    expect(replaced.code, show(replaced)).toBe(0);
  });
});
