import { createHash } from 'node:crypto';
import { maskKey } from './mask.js';

/**
 * The masks of a listing (`profile ls`): two different keys never mask the same. Where their
 * last four characters agree, each mask adds the key's fingerprint (a hash, never more of the key).
 */
export function maskKeys(keys: readonly string[]): string[] {
  const masks = keys.map(maskKey);
  return keys.map((key, i) =>
    keys.some((other, j) => other !== key && masks[j] === masks[i]) ? `${masks[i]} #${fingerprint(key)}` : masks[i]!,
  );
}

const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 6);
