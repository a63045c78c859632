/**
 * "Has this operation sent something that must not be repeated?" decides whether a team
 * state's failure refuses (nothing sent yet) or keeps the outcome on this machine (sent). In a
 * long-lived process (the MCP server) one tool call's booking must not change the answer for
 * the next call.
 */
import { describe, expect, it } from 'vitest';
import {
  asUnrepeatable,
  beforeSend,
  forgetSentForTests,
  hasSentUnrepeatable,
  OperationCancelledError,
  throwIfCancelled,
  withOperation,
  withSendHook,
} from '../../src/api/send-hook.js';

describe('the sent mark of an operation', () => {
  it('is set by an unrepeatable request only, not by a read', async () => {
    await withOperation(async () => {
      await beforeSend();
      expect(hasSentUnrepeatable()).toBe(false);
      await asUnrepeatable(() => beforeSend());
      expect(hasSentUnrepeatable()).toBe(true);
    });
  });

  it("is each operation's own: a later call starts unsent, even while another has sent", async () => {
    let release!: () => void;
    const first = withOperation(async () => {
      await asUnrepeatable(() => beforeSend());
      await new Promise<void>((r) => (release = r));
      return hasSentUnrepeatable();
    });
    const second = await withOperation(async () => hasSentUnrepeatable());
    release();
    expect(await first).toBe(true);
    expect(second).toBe(false);
  });

  it("is the process's own outside any operation (a CLI command is one per process)", async () => {
    forgetSentForTests();
    expect(hasSentUnrepeatable()).toBe(false);
    await asUnrepeatable(() => beforeSend());
    expect(hasSentUnrepeatable()).toBe(true);
    await withOperation(async () => expect(hasSentUnrepeatable()).toBe(false));
    forgetSentForTests();
  });
});

describe('a cancelled operation (an MCP tool call the client cancelled)', () => {
  it('sends nothing more: beforeSend refuses before the send hook runs, so a booking stays unsent', async () => {
    const ac = new AbortController();
    const hooked: string[] = [];
    await withOperation(async () => {
      await withSendHook(
        async () => hooked.push('first'),
        () => beforeSend(),
      );
      ac.abort();
      expect(() => throwIfCancelled()).toThrow(OperationCancelledError);
      await expect(
        withSendHook(
          async () => hooked.push('second'),
          () => beforeSend(),
        ),
      ).rejects.toThrow(/nothing was sent/);
      expect(hasSentUnrepeatable()).toBe(false);
    }, ac.signal);
    expect(hooked).toEqual(['first']);
  });

  it('concerns that operation only: another, and code outside any, still send', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(withOperation(() => beforeSend(), ac.signal)).rejects.toThrow(OperationCancelledError);
    await expect(withOperation(() => beforeSend())).resolves.toBeUndefined();
    expect(() => throwIfCancelled()).not.toThrow();
    await expect(beforeSend()).resolves.toBeUndefined();
  });
});
