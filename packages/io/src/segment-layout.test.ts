import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_IN_FLIGHT, DEFAULT_SEGMENT_SIZE } from './device.js';
import { isStrataError } from './errors.js';
import { SegmentLayout } from './segment-layout.js';

function code(fn: () => void): string | undefined {
  try {
    fn();
  } catch (e) {
    return isStrataError(e) ? e.code : 'not a StrataError';
  }
  return undefined;
}

describe('SegmentLayout', () => {
  it('has the documented defaults', () => {
    const l = new SegmentLayout();
    expect(l.segmentSize).toBe(DEFAULT_SEGMENT_SIZE);
    expect(l.segmentSize).toBe(2 ** 30);
    expect(l.alignment).toBe(1);
    expect(l.maxInFlight).toBe(DEFAULT_MAX_IN_FLIGHT);
  });

  it('rejects bad geometry', () => {
    expect(code(() => new SegmentLayout({ segmentSize: 3000 }))).toBe('ERR_INVALID_ARGUMENT');
    expect(code(() => new SegmentLayout({ segmentSize: 2 ** 49 }))).toBe('ERR_INVALID_ARGUMENT');
    expect(code(() => new SegmentLayout({ alignment: 3 }))).toBe('ERR_INVALID_ARGUMENT');
    expect(code(() => new SegmentLayout({ segmentSize: 512, alignment: 1024 }))).toBe(
      'ERR_INVALID_ARGUMENT',
    );
    expect(code(() => new SegmentLayout({ maxInFlight: 0 }))).toBe('ERR_INVALID_ARGUMENT');
    expect(code(() => new SegmentLayout({ maxInFlight: 1.5 }))).toBe('ERR_INVALID_ARGUMENT');
  });

  it('maps addresses to segments exactly up to 2^48', () => {
    const l = new SegmentLayout({ segmentSize: 4096 });
    expect(l.segmentOf(0)).toBe(0);
    expect(l.segmentOf(4095)).toBe(0);
    expect(l.segmentOf(4096)).toBe(1);
    expect(l.segmentOf(2 ** 48 - 1)).toBe(2 ** 36 - 1);
    expect(l.segmentStart(2 ** 36 - 1)).toBe(2 ** 48 - 4096);
  });

  it('checks IO range and alignment', () => {
    const l = new SegmentLayout({ segmentSize: 4096, alignment: 512 });
    expect(code(() => l.checkIo(512, 1024))).toBeUndefined();
    expect(code(() => l.checkIo(2 ** 48 - 512, 512))).toBeUndefined();
    expect(code(() => l.checkIo(2 ** 48, 0))).toBe('ERR_ADDRESS_OUT_OF_RANGE');
    expect(code(() => l.checkIo(2 ** 48 - 512, 1024))).toBe('ERR_ADDRESS_OUT_OF_RANGE');
    expect(code(() => l.checkIo(-512, 512))).toBe('ERR_ADDRESS_OUT_OF_RANGE');
    expect(code(() => l.checkIo(100, 512))).toBe('ERR_INVALID_ARGUMENT');
    expect(code(() => l.checkIo(512, 100))).toBe('ERR_INVALID_ARGUMENT');
    expect(code(() => l.checkIo(0.5, 0))).toBe('ERR_INVALID_ARGUMENT');
    expect(code(() => l.checkTruncate(2 ** 48))).toBeUndefined();
    expect(code(() => l.checkTruncate(2 ** 48 + 1))).toBe('ERR_ADDRESS_OUT_OF_RANGE');
  });
});
