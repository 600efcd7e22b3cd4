import { describe, expect, it } from 'vitest';
import { GiB, KiB, MiB, mbPerSecond, nextPowerOfTwo, sizeLabel } from './sizes.js';

describe('sizes', () => {
  it('labels sizes for variant names', () => {
    expect(sizeLabel(16 * KiB)).toBe('16k');
    expect(sizeLabel(256 * KiB)).toBe('256k');
    expect(sizeLabel(8 * MiB)).toBe('8m');
    expect(sizeLabel(GiB)).toBe('1g');
    expect(sizeLabel(1536)).toBe('1536b');
  });

  it('computes MB/s in decimal megabytes', () => {
    expect(mbPerSecond(2_000_000, 1000)).toBe(2);
    expect(mbPerSecond(1_000_000, 500)).toBe(2);
  });

  it('rounds up to a power of two', () => {
    expect(nextPowerOfTwo(1)).toBe(1);
    expect(nextPowerOfTwo(5)).toBe(8);
    expect(nextPowerOfTwo(64 * MiB)).toBe(64 * MiB);
    expect(nextPowerOfTwo(64 * MiB + 1)).toBe(128 * MiB);
  });
});
