/**
 * Stryker ignorer (`ignorers: ['schedctl-equivalent']` in stryker.config.mjs) for mutants that
 * no test can kill because they change only how long something waits, never what happens.
 * Ignored mutants stay in the report (status Ignored, with the reason below) and do not count
 * in the score. They would carry `// Stryker disable` comments, but src/ is not edited for
 * tests; the places are matched by shape instead, so a moved line does not break the match.
 *
 * src/state/lock.ts:
 * - `backoff(attempt)`: the jittered pause between two tries for a held lock. Any pause (zero,
 *   negative: setTimeout clamps it to 1 ms, or 200 ms) still ends with the lock taken or
 *   StateLockError at the deadline; asserting the pause would be a timing assertion.
 * - `sleep(ms)`: the same pause; without it the loop retries at once until the deadline.
 * - `attempt++` in the retry loop: feeds only backoff().
 *
 * src/state/sqlite/engine.ts:
 * - `pause = Math.min(2 * pause, 200)` in untilFree's retry loop: the pause between two tries of
 *   a step another process's lock refused. Any pause still ends with the step done or the lock
 *   error at the same deadline.
 */
import { PluginKind, declareClassPlugin } from '@stryker-mutator/api/plugin';

const TIMING_ONLY =
  'timing only (src/state/lock.ts): changes how long a lock wait pauses between tries, never its outcome; see test/setup/stryker-equivalent.mjs';

const TIMING_ONLY_ENGINE =
  'timing only (src/state/sqlite/engine.ts): changes how long a step waits between tries for a lock, never its outcome or deadline; see test/setup/stryker-equivalent.mjs';

class SchedctlEquivalentIgnorer {
  shouldIgnore(path) {
    const node = path.node;
    // function backoff(attempt) { ... Math.random() ... }
    if (node.type === 'FunctionDeclaration' && node.id?.name === 'backoff' && path.toString().includes('Math.random'))
      return TIMING_ONLY;
    // const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    if (
      node.type === 'VariableDeclarator' &&
      node.id.type === 'Identifier' &&
      node.id.name === 'sleep' &&
      path.toString().includes('setTimeout')
    )
      return TIMING_ONLY;
    // for (let attempt = 0; release === undefined; attempt++) { ... sleep(backoff(attempt)) ... }
    // (The loop's test is already instrumented when its update is visited; its body is not yet.)
    if (
      node.type === 'UpdateExpression' &&
      node.argument.type === 'Identifier' &&
      node.argument.name === 'attempt' &&
      path.key === 'update' &&
      path.parentPath?.node.type === 'ForStatement' &&
      path.parentPath.get('body').toString().includes('backoff(attempt)')
    ) {
      return TIMING_ONLY;
    }
    // for (let pause = 10; ; pause = Math.min(2 * pause, 200)) { ... setTimeout(resolve, pause) ... }
    if (
      node.type === 'AssignmentExpression' &&
      node.left.type === 'Identifier' &&
      node.left.name === 'pause' &&
      path.key === 'update' &&
      path.parentPath?.node.type === 'ForStatement' &&
      path.parentPath.get('body').toString().includes('setTimeout(resolve, pause)')
    )
      return TIMING_ONLY_ENGINE;
    return undefined;
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Ignore, 'schedctl-equivalent', SchedctlEquivalentIgnorer)];
