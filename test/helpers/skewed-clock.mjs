/**
 * Preloaded into one CLI process (`NODE_OPTIONS=--import=<this file>`) by the tests of the
 * ledger's clock rule: this machine's wall clock shifted by SCHEDCTL_TEST_CLOCK_SHIFT_MS, as
 * libfaketime's `faketime -f +1d` shifts it (docs/development.md), without libfaketime. As in
 * test/setup/clock-ahead.mjs: `Date.now()`, `new Date()` and `Date()` read the shifted clock;
 * every other use of Date is untouched, and the monotonic clock does not move (schedctl's locks
 * measure ages on it). File times are left alone: nothing in a booking compares them with the
 * wall clock. Never loaded by schedctl itself.
 */
const SHIFT_MS = Number(process.env.SCHEDCTL_TEST_CLOCK_SHIFT_MS ?? 0);
const RealDate = globalThis.Date;
const now = () => RealDate.now() + SHIFT_MS;

if (Number.isFinite(SHIFT_MS) && SHIFT_MS !== 0) {
  globalThis.Date = new Proxy(RealDate, {
    construct(target, args, newTarget) {
      return Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget);
    },
    apply() {
      return new RealDate(now()).toString();
    },
    get(target, key, receiver) {
      if (key === 'now') return now;
      return Reflect.get(target, key, receiver);
    },
  });
}
