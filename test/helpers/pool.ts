/** Runs `fn` over `items` with at most `limit` in flight (subprocess-heavy tests on 2 cores). */
export async function pool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** One-line expected-failure shape: `error: …` first, then only `  - detail` and `hint:` lines, never a stack. */
export function assertOneLineError(stderr: string, names: string): string | undefined {
  const lines = stderr.replace(/\n$/, '').split('\n');
  if (!lines[0]?.startsWith('error: ')) return `first stderr line does not start with "error: ": ${lines[0]}`;
  if (!lines[0].includes(names)) return `first stderr line does not name ${names}: ${lines[0]}`;
  const extra = lines.slice(1).filter((l) => !l.startsWith('hint: ') && !l.startsWith('  - '));
  if (extra.length) return `unexpected stderr lines: ${extra.join(' | ')}`;
  if (/\n\s+at /.test(stderr)) return 'stack trace on stderr';
  return undefined;
}
