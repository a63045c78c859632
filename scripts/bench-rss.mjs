// Preloaded (`node --import`) into every benchmarked process, the bare baseline included:
// reports the process's peak RSS on fd 3 when it exits.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  try {
    writeSync(3, `${process.resourceUsage().maxRSS}\n`);
  } catch {
    // fd 3 is not open: not run by the benchmark.
  }
});
