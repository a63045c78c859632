/** Own-property access on the JSON records maps, so names like "constructor" are plain keys. */

export function own<V>(map: Record<string, V>, key: string): V | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/** Sets a key as an own property: `map["__proto__"] = v` would change the prototype instead. */
export function put<V>(map: Record<string, V>, key: string, value: V): void {
  Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Emails compare as leads (state/identity.ts): Lead@X.com and lead@x.com are one lead. */
export { leadId as normEmail, sameLead as sameEmail } from './identity.js';
