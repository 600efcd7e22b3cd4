import { describe, expect, it } from 'vitest';
import { keyOf, putKey } from './get-load.js';

describe('putKey', () => {
  it('writes the bytes of keyOf(i), 16 of them, where it is told', () => {
    const out = Buffer.alloc(20, 0x2e);
    for (const i of [0, 7, 42, 1_799_999, 999_999_999_999]) {
      expect(putKey(out, 2, i)).toBe(18);
      expect(out.toString('latin1', 2, 18)).toBe(keyOf(i));
      expect(out.toString('latin1', 0, 2) + out.toString('latin1', 18)).toBe('....');
    }
  });
});
