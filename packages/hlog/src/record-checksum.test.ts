import { crc32 } from 'node:zlib';
import { Prng } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { PAGE_HEADER_SIZE, writeOpenPageHeader } from './page-header.js';
import { crc32Range, RecordCheck, sealRecordChecksums, verifyRecord } from './record-checksum.js';
import {
  createRecordSpace,
  keyOffsetOf,
  RecordFlag,
  recordSize,
  usedSize,
  valueOffsetOf,
  writeRecordHeader,
} from './record-layout.js';

/** A records page of `n` records (keys `k<i>`, values of varied lengths), sealed as the log seals it. */
function page(n: number, seed = 1): { s: ReturnType<typeof createRecordSpace>; offs: number[] } {
  const s = createRecordSpace(64 * 1024);
  const rng = new Prng(seed);
  writeOpenPageHeader(s, 0, PAGE_HEADER_SIZE, 0, 1);
  const offs: number[] = [];
  let off = PAGE_HEADER_SIZE;
  for (let i = 0; i < n; i++) {
    const key = Buffer.from(`k${i}`);
    const value = Buffer.alloc(rng.nextInt(300));
    rng.fill(value);
    const exp = i % 3 === 0 ? 1_700_000_000_000 + i : 0;
    const size = recordSize(key.length, value.length, exp !== 0);
    writeRecordHeader(
      s,
      off,
      off,
      exp !== 0 ? RecordFlag.HAS_EXPIRY : 0,
      0,
      key.length,
      value.length,
      exp,
      size,
    );
    key.copy(s.bytes, keyOffsetOf(s, off));
    value.copy(s.bytes, valueOffsetOf(s, off));
    offs.push(off);
    off += size;
  }
  s.u32[2] = off;
  sealRecordChecksums(s, 0);
  return { s, offs };
}

describe('record checksums', () => {
  it('sums ranges as zlib crc32 does, short and long, at any offset', () => {
    const rng = new Prng(7);
    const b = Buffer.alloc(2000);
    rng.fill(b);
    for (const [from, to] of [
      [0, 0],
      [3, 4],
      [1, 17],
      [5, 255],
      [0, 256],
      [9, 2000],
    ] as const) {
      expect(crc32Range(b, from, to)).toBe(crc32(b.subarray(from, to)));
    }
  });

  it('every record of a sealed page verifies; every single bit flipped in a record is caught', () => {
    const { s, offs } = page(40);
    for (const off of offs) expect(verifyRecord(s, off, 1 << 16)).toBe(RecordCheck.OK);
    let checked = 0;
    for (const off of offs.slice(0, 6)) {
      const used = usedSize(s, off);
      for (let byte = off; byte < off + used; byte++) {
        for (let bit = 0; bit < 8; bit++) {
          s.bytes[byte]! ^= 1 << bit;
          const r = verifyRecord(s, off, used);
          // Never OK; a flipped CHECKSUM flag is NO_CHECKSUM (its page then decides).
          expect(r, `byte ${byte - off} bit ${bit}`).not.toBe(RecordCheck.OK);
          s.bytes[byte]! ^= 1 << bit;
          checked++;
        }
      }
      expect(verifyRecord(s, off, used)).toBe(RecordCheck.OK);
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('zeros are no record; fewer bytes than the record are a bad length', () => {
    const { s, offs } = page(3);
    const off = offs[1]!;
    expect(verifyRecord(s, off, usedSize(s, off) - 1)).toBe(RecordCheck.BAD_LENGTH);
    expect(verifyRecord(s, off, 8)).toBe(RecordCheck.NOT_A_RECORD);
    s.bytes.fill(0, off, off + 16);
    expect(verifyRecord(s, off, 1024)).toBe(RecordCheck.NOT_A_RECORD);
  });
});
