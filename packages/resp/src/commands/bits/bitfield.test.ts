import { describe, expect, test } from 'vitest';
import { bitfieldCommand, getField, setField } from './bitfield.js';
import { signedResult, unsignedResult } from './bitfield-overflow.js';
import { findBit } from './bitpos.js';

const MIN64 = -(1n << 63n);
const MAX64 = (1n << 63n) - 1n;

describe('BITFIELD overflow as Redis computes it', () => {
  test('signed wrap, sat, fail', () => {
    expect(signedResult(127n, 1n, 8, 'wrap')).toBe(-128n);
    expect(signedResult(127n, 1n, 8, 'sat')).toBe(127n);
    expect(signedResult(127n, 1n, 8, 'fail')).toBeNull();
    expect(signedResult(-128n, -1n, 8, 'sat')).toBe(-128n);
    expect(signedResult(MAX64, 1n, 64, 'wrap')).toBe(MIN64);
    expect(signedResult(MIN64, -1n, 64, 'sat')).toBe(MIN64);
    expect(signedResult(5n, -3n, 8, 'fail')).toBe(2n);
  });

  test("a SET far below the range saturates high, as Redis's wrapping maxincr makes it", () => {
    expect(signedResult(MIN64, 0n, 8, 'sat')).toBe(127n);
    expect(signedResult(MIN64 + 200n, 0n, 8, 'sat')).toBe(-128n);
    expect(signedResult(MIN64, 0n, 8, 'wrap')).toBe(0n);
  });

  test('unsigned: a negative SET wraps or saturates high', () => {
    expect(unsignedResult(BigInt.asUintN(64, -1n), 0n, 8, 'wrap')).toBe(255n);
    expect(unsignedResult(BigInt.asUintN(64, -1n), 0n, 8, 'sat')).toBe(255n);
    expect(unsignedResult(3n, -4n, 8, 'sat')).toBe(0n);
    expect(unsignedResult(3n, -4n, 2, 'wrap')).toBe(3n);
    expect(unsignedResult(MAX64, 1n, 63, 'wrap')).toBe(0n);
  });
});

describe('fields and bit search past 2^31 bits', () => {
  test('a field beyond the value reads as zero', () => {
    const b = Uint8Array.of(0xff, 0xff);
    expect(getField(b, 0, 2, { signed: false, bits: 8, offset: 4294967295 })).toBe(0n);
    expect(getField(b, 0, 2, { signed: true, bits: 12, offset: 4 })).toBe(-1n);
  });

  test('set then get a 64-bit field across bytes', () => {
    const b = new Uint8Array(10);
    const f = { signed: true, bits: 64, offset: 5 };
    setField(b, 0, f, -12345678901234567n);
    expect(getField(b, 0, 10, f)).toBe(-12345678901234567n);
    expect(getField(b, 0, 10, { signed: false, bits: 5, offset: 0 })).toBe(0n);
  });

  test('findBit masks the edge bytes', () => {
    const b = Uint8Array.of(0b0001_0000, 0xff);
    expect(findBit(b, 0, 1, 4, 15)).toBe(8);
    expect(findBit(b, 0, 1, 3, 3)).toBe(3);
    expect(findBit(b, 0, 0, 8, 15)).toBe(-1);
  });
});

describe('BITFIELD in the command log and WATCH', () => {
  const argv = (...a: string[]) => a.map((x) => Buffer.from(x));
  const reply = Buffer.from('*0\r\n');

  test('GETs only are not logged and change no key', () => {
    const gets = argv('bitfield', 'k', 'get', 'u8', '0', 'overflow', 'sat');
    expect(bitfieldCommand.replay!(gets, reply, 0)).toEqual([]);
    expect(bitfieldCommand.changedKeysOf!(gets)).toEqual([]);
  });

  test('a write is logged as it came and changes its key', () => {
    const write = argv('bitfield', 'k', 'get', 'u8', '0', 'incrby', 'u8', '0', '1');
    expect(bitfieldCommand.replay!(write, reply, 0)).toEqual([write]);
    expect(bitfieldCommand.changedKeysOf!(write)).toEqual([1]);
  });
});
