/**
 * Waits on a terminal (the rate budget, a 429's Retry-After) are one updating line: a bulk run
 * waits many times, and each wait used to start a spinner of its own.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { GlobalOptions, IO } from '../../src/context.js';
import { createUi, type Spinner } from '../../src/ui/ui.js';

function fakeIo(tty: boolean): IO & { err: () => string } {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (d) => (text += d));
  return {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr,
    isStdinTTY: tty,
    isStdoutTTY: tty,
    isStderrTTY: tty,
    err: () => text,
  } as unknown as IO & { err: () => string };
}
const globals = { color: false, quiet: false, json: false, debug: false } as unknown as GlobalOptions;

describe('ui.waiting', () => {
  it('on a terminal, several waits share one spinner line, updated with each wait', async () => {
    const ui = createUi(fakeIo(true), {}, globals);
    const started: string[] = [];
    const updates: string[] = [];
    let stopped = 0;
    ui.spinner = async (text: string): Promise<Spinner> => {
      started.push(text);
      return { update: (t) => updates.push(t), stop: () => (stopped += 1) };
    };
    ui.waiting('waiting for the rate budget, 20 s', 200);
    await new Promise((r) => setTimeout(r, 10));
    ui.waiting('waiting for the rate budget, 19 s', 200);
    ui.waiting('waiting for the rate budget, 5 s', 50);
    await new Promise((r) => setTimeout(r, 120));
    expect(started).toHaveLength(1);
    expect(updates.at(-1)).toBe('waiting for the rate budget, 5 s');
    expect(stopped).toBe(1);
  });
  it('without a terminal, one line per wait', () => {
    const io = fakeIo(false);
    const ui = createUi(io, {}, globals);
    ui.waiting('waiting 1', 10);
    ui.waiting('waiting 2', 10);
    expect(io.err()).toBe('waiting 1\nwaiting 2\n');
  });
});
