import {
  createRecordSpace,
  keyLengthOf,
  keyOffsetOf,
  PAGE_HEADER_SIZE,
  RECORD_FLAGS_OFFSET,
  RecordFlag,
  type RecordSpace,
  type Store,
  sealPageChecksum,
  slotSize,
} from '@strata/hlog';
import { readMode } from '@strata/pagebuf';
import { afterEach, describe, expect, it } from 'vitest';
import { k, openTiny, removeTempDirs } from '../test/support.js';
import { LogIterator, wholeLogMode } from './log-iterator.js';
import { countKeys } from './whole-log.js';

afterEach(removeTempDirs);

interface Seen {
  address: number;
  key: string;
}

function keyOf(rec: RecordSpace, off: number): string {
  const ko = keyOffsetOf(rec, off);
  return rec.bytes.toString('latin1', ko, ko + keyLengthOf(rec, off));
}

async function collect(
  store: Store,
  mode = readMode.single(),
  from = store.log.begin,
  to = store.log.tail,
): Promise<{ seen: Seen[]; disk: number; memory: number }> {
  const it = new LogIterator(store.log, { mode });
  const seen: Seen[] = [];
  const r = await it.iterate({
    from,
    to,
    onRecord: (rec, off, address) => {
      seen.push({ address, key: keyOf(rec, off) });
      return true;
    },
  });
  await it.close();
  expect(r.stopped).toBe(false);
  expect(r.next).toBe(to);
  return { seen, disk: r.diskPages, memory: r.memoryPages };
}

async function fill(store: Store, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await store.set(k(`key:${i}`), k(`value-${i}-${'x'.repeat(i % 40)}`));
}

describe('LogIterator', () => {
  it('visits every record once, in address order, from memory and disk alike', async () => {
    const store = await openTiny();
    await fill(store, 400);
    const { seen, disk, memory } = await collect(store);
    expect(seen.map((s) => s.key)).toEqual(Array.from({ length: 400 }, (_, i) => `key:${i}`));
    for (let i = 1; i < seen.length; i++)
      expect(seen[i]!.address).toBeGreaterThan(seen[i - 1]!.address);
    expect(disk).toBeGreaterThan(memory);
    expect(memory).toBeGreaterThan(0);
    await store.close();
  });

  it('gives the same records in single, double and adaptive modes', async () => {
    const store = await openTiny();
    await fill(store, 300);
    const single = await collect(store, readMode.single());
    const double = await collect(store, readMode.double());
    const adaptive = await collect(store, wholeLogMode(store.log.pageSize));
    const tiny = await collect(store, readMode.adaptive({ minReadSize: 1024, maxReadSize: 4096 }));
    expect(double.seen).toEqual(single.seen);
    expect(adaptive.seen).toEqual(single.seen);
    expect(tiny.seen).toEqual(single.seen);
    await store.close();
  });

  it('stops where the visitor says and resumes from the returned address, even mid-page', async () => {
    const store = await openTiny();
    await fill(store, 250);
    const all = (await collect(store)).seen;
    const it = new LogIterator(store.log);
    const got: Seen[] = [];
    let from = store.log.begin;
    const to = store.log.tail;
    for (let calls = 0; from < to; calls++) {
      let n = 0;
      const r = await it.iterate({
        from,
        to,
        onRecord: (rec, off, address) => {
          got.push({ address, key: keyOf(rec, off) });
          return ++n < 7;
        },
      });
      from = r.next;
      expect(calls).toBeLessThan(100);
    }
    await it.close();
    expect(got).toEqual(all);
    await store.close();
  });

  it('honours a range [from, to) inside pages; a from inside a record snaps back to it', async () => {
    const store = await openTiny();
    await fill(store, 200);
    const all = (await collect(store)).seen;
    const lo = all[37]!.address;
    const hi = all[150]!.address;
    const part = await collect(store, readMode.single(), lo + 3, hi);
    expect(part.seen).toEqual(all.slice(37, 150));
    await store.close();
  });

  it('skips blob pages and visits the records that own them', async () => {
    const store = await openTiny();
    await fill(store, 50);
    await store.set(k('big'), Buffer.alloc(3000, 7));
    await fill(store, 100);
    const { seen } = await collect(store);
    expect(seen.filter((s) => s.key === 'big')).toHaveLength(1);
    expect(seen).toHaveLength(151);
    expect((await collect(store, wholeLogMode(1024))).seen).toEqual(seen);
    await store.close();
  });

  it('skips a range compacted away meanwhile', async () => {
    const store = await openTiny();
    await fill(store, 200);
    await fill(store, 200); // overwrites: the old half is dead
    const res = await store.compact();
    expect(res.until).toBeGreaterThan(0);
    const { seen } = await collect(store, readMode.single(), 0);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]!.address).toBeGreaterThanOrEqual(store.log.begin);
    await store.close();
  });

  it('skips and reports a device page whose checksum holds but whose records do not; a corrupt one too', async () => {
    const store = await openTiny();
    await fill(store, 200);
    const whole = await collect(store);
    const page = store.log.begin;
    const P = store.log.pageSize;
    expect(page % P).toBe(0);
    expect(page + 2 * P).toBeLessThanOrEqual(store.log.head);
    // A second record whose VALID flag is gone, sealed again: only the walk can tell.
    const space = createRecordSpace(P);
    const bytes = space.bytes;
    await store.log.device.read(page, bytes);
    const second = PAGE_HEADER_SIZE + slotSize(space, PAGE_HEADER_SIZE);
    bytes.writeUInt8(
      bytes.readUInt8(second + RECORD_FLAGS_OFFSET) & ~RecordFlag.VALID,
      second + RECORD_FLAGS_OFFSET,
    );
    sealPageChecksum(bytes, 0);
    await store.log.device.write(page, bytes);
    // The next page: one byte flipped, its checksum fails.
    const flip = Buffer.alloc(1);
    await store.log.device.read(page + P + 100, flip);
    flip[0] = flip[0]! ^ 0x40;
    await store.log.device.write(page + P + 100, flip);
    const damaged: number[] = [];
    const it = new LogIterator(store.log, { damage: { page: (a) => damaged.push(a) } });
    const seen: number[] = [];
    const r = await it.iterate({
      from: page,
      to: store.log.tail,
      onRecord: (_rec, _off, address) => {
        seen.push(address);
        return true;
      },
    });
    await it.close();
    expect(r.damagedPages).toBe(2);
    expect(damaged).toEqual([page, page + P]);
    // Only the first record of the first page was walked before its bad slot; nothing of the second page.
    const kept = whole.seen
      .map((x) => x.address)
      .filter((a) => a < page + PAGE_HEADER_SIZE + 1 || a >= page + 2 * P);
    expect(seen).toEqual(kept);
    // The whole-log count goes on past them, and the store's damage log has them.
    await countKeys(store);
    expect(store.damage.pages).toBe(2);
    await store.close();
  });
});
