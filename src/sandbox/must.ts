/**
 * The seeded workspace's own references (a host id of an event, a link's event) always resolve;
 * one that does not is a bug in the sandbox, said plainly rather than asserted away with `!`.
 */
export function must<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new Error(`sandbox invariant broken: ${what} not found`);
  return value;
}
