/**
 * The terminal-only path of `trigger fire`: with a remembered outcome and no --force, it asks
 * before firing again. Driven in-process (a subprocess has no TTY) with typed answers.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { createContext, type IO } from '../../src/context.js';
import { tempDir } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let configDir: string;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => sb.close());
beforeEach(async () => {
  await sb.reset();
  configDir = tempDir();
});

async function fire(answer?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  // Like process.stderr, which a prompt's pipe() never ends (a plain stream would be ended with it).
  stderr.end = (() => stderr) as typeof stderr.end;
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => {
    err += d;
    // Answer once the question is on screen.
    if (answer !== undefined && String(d).includes('Fire again anyway')) {
      // A terminal in raw mode sends the key, then Enter as \r; typed once the prompt listens
      // (it attaches its key handler right after its first render).
      const keys = `${answer}\r`;
      setTimeout(() => stdin.write(keys), 50);
      answer = undefined;
    }
  });
  const io: IO = { stdin, stdout, stderr, isStdinTTY: true, isStderrTTY: true, isStdoutTTY: false };
  const env = { SCHEDCTL_CONFIG_DIR: configDir, SCHEDCTL_BASE_URL: sb.baseUrl, SCHEDCTL_API_KEY: sb.keys.full, NO_COLOR: '1' };
  const code = await main(
    ['trigger', 'fire', 'Inbound demo request', '--email', 'ada@acme.com', '--field', 'company=Acme', '--field', 'region=emea'],
    createContext({ io, env }),
  );
  return { code, stdout: out, stderr: err };
}

describe('trigger fire on a terminal with a remembered outcome', () => {
  it('asks, and keeps the remembered outcome when the answer is no', async () => {
    expect((await fire()).code).toBe(0);
    const r = await fire('n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('already held');
    expect(r.stderr).toContain('Fire again anyway');
    expect(r.stdout).toContain('next: schedctl slots ');
    expect((await sb.state()).executions).toHaveLength(1);
  });

  it('fires again when the answer is yes', async () => {
    expect((await fire()).code).toBe(0);
    const r = await fire('y');
    expect(r.code, r.stderr).toBe(0);
    expect((await sb.state()).executions).toHaveLength(2);
    expect(r.stderr).toContain('firing "Inbound demo request"');
    expect(r.stdout).toContain('executionId ');
  });
});
