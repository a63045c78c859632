/**
 * "Has this request left the machine?" A booking's journal entry must know: an attempt that
 * never went out is not a lost response (a re-run must send it, not report "already booked"),
 * and one that went out may have booked (a re-run must never book again). The caller runs the
 * request inside `withSendHook`; the transport calls the hook once the connection is up
 * (TLS included), right before the request's bytes are written, and waits for it: the mark
 * is on disk before anything can be processed by the server.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { CancelledError } from '../errors.js';

export type SendHook = () => Promise<unknown>;

const current = new AsyncLocalStorage<{ hook: SendHook; called: Promise<unknown> | undefined }>();

export function withSendHook<T>(hook: SendHook | undefined, fn: () => Promise<T>): Promise<T> {
  return hook ? current.run({ hook, called: undefined }, fn) : fn();
}

/** Whether an operation (a CLI command is one per process; an MCP tool call is one each) has sent a request that must not be repeated. */
const operation = new AsyncLocalStorage<{ sent: boolean; signal: AbortSignal | undefined }>();
let processSent = false;

/**
 * Runs one operation of a long-lived process (an MCP tool call): what it sends is its own. Once
 * `signal` aborts (the client cancelled the call), no request of the operation leaves any more:
 * one whose bytes were already written is left to finish, and its outcome is recorded as usual.
 */
export function withOperation<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  return operation.run({ sent: false, signal }, fn);
}

/** The error a request of a cancelled operation fails with, before anything of it was sent. */
export class OperationCancelledError extends CancelledError {
  constructor() {
    super('cancelled by the client before this request was sent: nothing was sent');
  }
}

/** Whether the current operation was cancelled (a failed request of it is then not retried). */
export const isCancelled = (): boolean => operation.getStore()?.signal?.aborted === true;

/** Throws when the current operation was cancelled: a caller checks it before it sends. */
export function throwIfCancelled(): void {
  if (isCancelled()) throw new OperationCancelledError();
}

/**
 * Has this operation sent a request that must not be repeated (a booking, a fire, a move)? From
 * then on, what the team state fails to save is kept on this machine rather than lost
 * (state/postgres/ledger-spool.ts); before it, such a failure refuses the command instead.
 */
export const hasSentUnrepeatable = (): boolean => operation.getStore()?.sent ?? processSent;

/** @internal Tests only: a new operation in a test process that has sent before. */
export function forgetSentForTests(): void {
  processSent = false;
}

/**
 * Called by a transport right before it writes a request; the hook runs only inside `withSendHook`,
 * and once: a later try of the same request (one whose first try's connection failed before it was
 * written) waits for that one call to finish, so its bytes never leave before the mark is saved.
 */
export async function beforeSend(): Promise<void> {
  // Before the hook: a cancelled booking stays "prepared, never sent" in the journal.
  throwIfCancelled();
  const slot = current.getStore();
  if (slot) await (slot.called ??= slot.hook());
  if (!isUnrepeatable()) return;
  const op = operation.getStore();
  if (op) op.sent = true;
  else processSent = true;
}

const unrepeatable = new AsyncLocalStorage<true>();

/**
 * Runs a request that must not be repeated (safety 'once': a booking, a fire, a move). The
 * transport gives it a connection of its own, never the one opened ahead (warm.ts): that one
 * was opened before the command knew what it would send, and a server or middlebox may drop
 * it as it comes up, which a request already written into it could not tell from a lost answer.
 */
export function asUnrepeatable<T>(fn: () => Promise<T>): Promise<T> {
  return unrepeatable.run(true, fn);
}

export const isUnrepeatable = (): boolean => unrepeatable.getStore() === true;
