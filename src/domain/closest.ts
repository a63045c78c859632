/** "Did you mean …?" for mistyped names (field names, context keys). */

/** Levenshtein edit distance (insert, delete, substitute each cost 1). */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The candidate nearest to `input` (case-insensitive), or undefined when even the nearest
 * is too far to be a plausible typo: more than a third of the longer name, at least 2.
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = levenshtein(input.toLowerCase(), name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (!best) return undefined;
  const allowed = Math.max(2, Math.floor(Math.max(input.length, best.name.length) / 3));
  return best.distance <= allowed ? best.name : undefined;
}
