import { describe, expect, it } from 'vitest';
import {
  createRecordSpace,
  expiresAtOf,
  flagsOf,
  keyEquals,
  keyLengthOf,
  keyOffsetOf,
  previousAddress,
  RecordFlag,
  recordSize,
  resizeValueInPlace,
  setFlag,
  setPreviousAddress,
  slotSize,
  typeOf,
  valueCapacity,
  valueLengthOf,
  valueOffsetOf,
  writeRecordHeader,
} from './record-layout.js';

function put(key: string, value: string, prev: number, expiresAt = 0, off = 8) {
  const s = createRecordSpace(1024);
  const k = Buffer.from(key);
  const v = Buffer.from(value);
  const flags = expiresAt > 0 ? RecordFlag.HAS_EXPIRY : 0;
  const size = recordSize(k.length, v.length, expiresAt > 0);
  writeRecordHeader(s, off, prev, flags, 0, k.length, v.length, expiresAt, size);
  k.copy(s.bytes, keyOffsetOf(s, off));
  v.copy(s.bytes, valueOffsetOf(s, off));
  return { s, off, size, k, v };
}

describe('record layout', () => {
  it('round-trips header fields, key and value, 8-byte aligned', () => {
    const prev = 2 ** 47 + 12345678;
    const { s, off, size, k, v } = put('hello', 'world!!', prev);
    expect(size % 8).toBe(0);
    expect(size).toBe(16 + 5 + 7 + 4);
    expect(previousAddress(s, off)).toBe(prev);
    expect(flagsOf(s, off) & RecordFlag.VALID).toBe(RecordFlag.VALID);
    expect(typeOf(s, off)).toBe(0);
    expect(keyLengthOf(s, off)).toBe(5);
    expect(valueLengthOf(s, off)).toBe(7);
    expect(keyEquals(s.bytes, keyOffsetOf(s, off), 5, k)).toBe(true);
    expect(keyEquals(s.bytes, keyOffsetOf(s, off), 5, Buffer.from('hellp'))).toBe(false);
    expect(s.bytes.subarray(valueOffsetOf(s, off), valueOffsetOf(s, off) + 7)).toEqual(v);
    expect(slotSize(s, off)).toBe(size);
    expect(expiresAtOf(s, off)).toBe(0);
  });

  it('stores an expiry and keeps the previous address when flags change', () => {
    const { s, off } = put('k', 'v', 4096, 1_700_000_000_123);
    expect(expiresAtOf(s, off)).toBe(1_700_000_000_123);
    setFlag(s, off, RecordFlag.TOMBSTONE);
    expect(previousAddress(s, off)).toBe(4096);
    setPreviousAddress(s, off, 2 ** 40 + 8);
    expect(previousAddress(s, off)).toBe(2 ** 40 + 8);
    expect(flagsOf(s, off) & RecordFlag.TOMBSTONE).toBeTruthy();
    expect(flagsOf(s, off) & RecordFlag.HAS_EXPIRY).toBeTruthy();
  });

  it('shrinks in place with a filler and grows back into the slack', () => {
    const { s, off, size } = put('key', 'x'.repeat(40), 0);
    // The header, the key, and the checksum trailer that follows the value.
    expect(valueCapacity(s, off)).toBe(size - 16 - 3 - 4);
    resizeValueInPlace(s, off, 2, slotSize(s, off));
    expect(flagsOf(s, off) & RecordFlag.FILLER).toBeTruthy();
    expect(slotSize(s, off)).toBe(size);
    expect(valueLengthOf(s, off)).toBe(2);
    // A longer value overwrites the filler word: the slot is read first.
    const slot = slotSize(s, off);
    const cap = valueCapacity(s, off);
    s.bytes.fill(0xee, valueOffsetOf(s, off), valueOffsetOf(s, off) + cap);
    resizeValueInPlace(s, off, cap, slot);
    expect(flagsOf(s, off) & RecordFlag.FILLER).toBe(0);
    expect(slotSize(s, off)).toBe(size);
  });

  it('compares long keys natively', () => {
    const long = Buffer.alloc(100, 7);
    const { s, off } = put(long.toString('latin1'), 'v', 0);
    expect(keyEquals(s.bytes, keyOffsetOf(s, off), 100, Buffer.alloc(100, 7))).toBe(true);
    const other = Buffer.alloc(100, 7);
    other[99] = 8;
    expect(keyEquals(s.bytes, keyOffsetOf(s, off), 100, other)).toBe(false);
  });
});
