import { MemoryDevice } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { CorruptRecordError, RecordDamage } from './errors.js';
import { PAGE_HEADER_SIZE, sealPageChecksum, writeOpenPageHeader } from './page-header.js';
import {
  align8,
  clearFlag,
  createRecordSpace,
  keyOffsetOf,
  RecordFlag,
  recordSize,
  usedSize,
  valueOffsetOf,
  writeRecordHeader,
} from './record-layout.js';
import { StoreCore } from './store.js';

const P = 4096;

/**
 * A records page as logs wrote it before records had checksums: the
 * records without CHECKSUM (no trailer), the page's crc32 over them.
 */
function legacyPage(address: number, key: Buffer, value: Buffer): Buffer {
  const s = createRecordSpace(P);
  const off = PAGE_HEADER_SIZE;
  writeRecordHeader(
    s,
    off,
    0,
    0,
    0,
    key.length,
    value.length,
    0,
    recordSize(key.length, value.length, false),
  );
  clearFlag(s, off, RecordFlag.CHECKSUM);
  clearFlag(s, off, RecordFlag.FILLER);
  key.copy(s.bytes, keyOffsetOf(s, off));
  value.copy(s.bytes, valueOffsetOf(s, off));
  const used = off + align8(usedSize(s, off));
  writeOpenPageHeader(s, 0, used, address, 1);
  sealPageChecksum(s.bytes, 0);
  return s.bytes.subarray(0, used);
}

describe('records written before record checksums', () => {
  it('are verified through their page: served when it holds, reported when it does not', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 16 });
    const core = new StoreCore({ device, memory: 4 * P, pageSize: P });
    const key = Buffer.from('old-key');
    const value = Buffer.from('a value from an older log');
    const good = 8 * P;
    const bad = 9 * P;
    await device.write(good, legacyPage(good, key, value));
    const damaged = legacyPage(bad, key, value);
    damaged[damaged.length - 3]! ^= 0x20;
    await device.write(bad, damaged);

    const space = await core.readVerified(key, good + PAGE_HEADER_SIZE);
    const vo = valueOffsetOf(space, 0);
    expect(space.bytes.subarray(vo, vo + value.length)).toEqual(value);
    // The page is remembered: a second read of it does not read it whole again.
    const reads = core.counters.diskReads;
    await core.readVerified(key, good + PAGE_HEADER_SIZE);
    expect(core.counters.diskReads - reads).toBe(1);

    const e = await core.readVerified(key, bad + PAGE_HEADER_SIZE).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CorruptRecordError);
    expect((e as CorruptRecordError).damage).toBe(RecordDamage.PAGE_CHECKSUM_MISMATCH);
    expect(core.damage.records).toBe(1);
  });
});
