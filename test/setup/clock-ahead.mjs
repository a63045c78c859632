/**
 * Preload (`node --import ./test/setup/clock-ahead.mjs`) that runs the process as if it were one
 * year later. `npm run test:unit:ahead` runs the unit tests with it, so a test that quietly
 * depends on today's date (a fixed date that becomes "past", a default that reads the real
 * clock) fails now rather than next year.
 *
 * - `Date.now()`, `new Date()` and `Date()` read the clock one year ahead; every other use of
 *   Date (explicit dates, parsing, instanceof, subclasses) is untouched.
 * - File times move with it, as they would on a machine whose clock is a year ahead: stat
 *   results read one year later and utimes writes are taken back by the same amount. Without
 *   this, code that compares a file's mtime with Date.now() (proper-lockfile's stale-lock check,
 *   behind the state store and the rate budget) sees every fresh lock as a year old and takes it
 *   over: a failure of the simulation, not of the code.
 * Child processes (vitest's forks, spawned workers) inherit NODE_OPTIONS, so their clocks agree.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const OFFSET_MS = 365 * 86_400_000;
const RealDate = globalThis.Date;
const now = () => RealDate.now() + OFFSET_MS;

globalThis.Date = new Proxy(RealDate, {
  construct(target, args, newTarget) {
    return Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget);
  },
  // `Date()` called as a function returns the current time as a string.
  apply() {
    return new RealDate(now()).toString();
  },
  get(target, key, receiver) {
    if (key === 'now') return now;
    return Reflect.get(target, key, receiver);
  },
});

const TIMES = ['atime', 'mtime', 'ctime', 'birthtime'];

/** A Stats seen one year later (BigInt stats are left as they are: nothing here asks for them). */
function ahead(stats) {
  if (!stats || typeof stats.mtimeMs !== 'number') return stats;
  for (const t of TIMES) {
    stats[`${t}Ms`] += OFFSET_MS;
    stats[t] = new RealDate(stats[`${t}Ms`]);
  }
  return stats;
}

/** A time given to utimes, back on the real clock (a Date, or seconds as a number or string). */
function back(time) {
  if (time instanceof RealDate) return new RealDate(time.getTime() - OFFSET_MS);
  if (typeof time === 'number' || (typeof time === 'string' && time.trim() !== '' && !Number.isNaN(Number(time)))) {
    return Number(time) - OFFSET_MS / 1000;
  }
  return time;
}

for (const name of ['stat', 'lstat', 'fstat']) {
  const callbackFn = fs[name];
  fs[name] = function (...args) {
    const done = args.pop();
    return callbackFn.call(this, ...args, (error, stats) => done(error, error ? stats : ahead(stats)));
  };
  const syncFn = fs[`${name}Sync`];
  fs[`${name}Sync`] = function (...args) {
    return ahead(syncFn.apply(this, args));
  };
  if (fs.promises[name]) {
    const promiseFn = fs.promises[name];
    fs.promises[name] = async (...args) => ahead(await promiseFn(...args));
  }
}

for (const name of ['utimes', 'futimes', 'lutimes']) {
  const callbackFn = fs[name];
  fs[name] = function (target, atime, mtime, ...rest) {
    return callbackFn.call(this, target, back(atime), back(mtime), ...rest);
  };
  const syncFn = fs[`${name}Sync`];
  fs[`${name}Sync`] = function (target, atime, mtime, ...rest) {
    return syncFn.call(this, target, back(atime), back(mtime), ...rest);
  };
  if (fs.promises[name]) {
    const promiseFn = fs.promises[name];
    fs.promises[name] = (target, atime, mtime) => promiseFn(target, back(atime), back(mtime));
  }
}

// `import { statSync } from 'node:fs'` reads the patched functions too.
syncBuiltinESMExports();
