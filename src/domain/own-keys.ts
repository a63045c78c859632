/**
 * Names typed by a person or read from a file (a form field, a CSV column) are data: `obj[name] = v`
 * on a plain object turns `__proto__` into a prototype change and drops it without a word, so a
 * refusal that names every other unknown field never sees it. These write each name as an own
 * property, whatever it is, so the checks that follow (against the trigger's fields, in a Map) see
 * it like any other.
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Object.assign with own properties only (see setOwn). */
export function assignOwn<T>(target: Record<string, T>, source: Record<string, T>): Record<string, T> {
  for (const [key, value] of Object.entries(source)) setOwn(target, key, value);
  return target;
}
