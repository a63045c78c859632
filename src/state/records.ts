/** Own-property access on the JSON records maps, so names like "constructor" are plain keys. */

export function own<V>(map: Record<string, V>, key: string): V | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/** Sets a key as an own property: `map["__proto__"] = v` would change the prototype instead. */
export function put<V>(map: Record<string, V>, key: string, value: V): void {
  Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Emails compare case-insensitively and without stray spaces (Lead@X.com and lead@x.com are one lead). */
export const sameEmail = (a: string, b: string) => normEmail(a) === normEmail(b);
export const normEmail = (email: string) => email.trim().toLowerCase();
