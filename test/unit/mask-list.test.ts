import { describe, expect, it } from 'vitest';
import { maskKeys } from '../../src/config/mask-list.js';

describe('maskKeys: the masks of one listing', () => {
  it('masks as maskKey does when the keys end differently, and a repeated key the same', () => {
    expect(maskKeys(['sk_live_0123456789abcd', 'sk_live_99999999wxyz', 'sk_live_0123456789abcd'])).toEqual([
      'sk_…abcd',
      'sk_…wxyz',
      'sk_…abcd',
    ]);
    expect(maskKeys([])).toEqual([]);
  });
  it('adds a fingerprint where two different keys would mask the same, never more of the key', () => {
    const [a, b, c] = maskKeys(['sk_live_0123456789abcd', 'sk_live_ffffffffffabcd', 'sk_live_99999999wxyz']);
    expect(a).toMatch(/^sk_…abcd #[0-9a-f]{6}$/);
    expect(b).toMatch(/^sk_…abcd #[0-9a-f]{6}$/);
    expect(a).not.toBe(b);
    expect(c).toBe('sk_…wxyz');
    expect(a).not.toContain('0123');
  });
});
