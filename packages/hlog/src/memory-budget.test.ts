import { MemoryDevice } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { HybridLog } from './hybrid-log.js';
import { StoreCore } from './store.js';

const P = 1024;
const k = (i: number) => Buffer.from(`key-${i}`);
const v = (i: number, round = 0) => Buffer.alloc(60, (i + round) & 0xff);

function invariants(log: HybridLog): void {
  expect(log.begin).toBeLessThanOrEqual(log.head);
  expect(log.head).toBeLessThanOrEqual(log.readOnly);
  expect(log.readOnly).toBeLessThanOrEqual(log.tail);
  expect(log.head).toBeLessThanOrEqual(log.flushedUntil);
  expect(log.tail - log.head).toBeLessThanOrEqual(log.ringBytes);
}

async function fill(s: StoreCore, from: number, count: number, round = 0): Promise<void> {
  for (let i = from; i < from + count; i++) await s.set(k(i), v(i, round));
}

async function expectAll(s: StoreCore, count: number, round = 0): Promise<void> {
  for (let i = 0; i < count; i++) {
    const got = await s.get(k(i));
    expect(got.status === 'found' && got.value.equals(v(i, round))).toBe(true);
  }
}

/** Pages between head and tail: what the log holds in memory. */
const inMemoryPages = (log: HybridLog) => Math.ceil((log.tail - log.head) / log.pageSize);

describe('the log memory budget of an open store', () => {
  it('shrinks: pages past the new bound are flushed, the rest move, every key still reads', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const s = new StoreCore({ device, memory: 32 * P, pageSize: P, mutableFraction: 0.9 });
    await fill(s, 0, 250);
    expect(s.log.head).toBe(0);
    expect(inMemoryPages(s.log)).toBeGreaterThan(8);

    expect(await s.setMemory(4 * P)).toBe(true);
    expect(s.log.stats().memoryBytes).toBe(4 * P);
    expect(s.log.frameCount).toBe(4);
    expect(inMemoryPages(s.log)).toBeLessThanOrEqual(4);
    expect(s.log.head).toBeGreaterThan(0);
    invariants(s.log);
    // Below head: read from the device; above: from the new ring.
    await expectAll(s, 250);
    // Writes and updates go on in the small ring.
    await fill(s, 0, 250, 1);
    invariants(s.log);
    expect(s.log.stats().residentBytes).toBeLessThanOrEqual(4 * P);
    await expectAll(s, 250, 1);
  });

  it('grows: the pages in memory move, and more of the log stays in memory from then on', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const s = new StoreCore({ device, memory: 4 * P, pageSize: P, mutableFraction: 0.5 });
    await fill(s, 0, 100);
    const headBefore = s.log.head;
    expect(headBefore).toBeGreaterThan(0);
    expect(await s.setMemory(64 * P)).toBe(true);
    expect(s.log.frameCount).toBe(64);
    // Nothing left memory: the head stays where it was.
    expect(s.log.head).toBe(headBefore);
    await fill(s, 100, 300);
    // With 4 frames the head would have followed the tail; now it stays.
    expect(s.log.head).toBe(headBefore);
    expect(inMemoryPages(s.log)).toBeGreaterThan(8);
    invariants(s.log);
    await expectAll(s, 400);
  });

  it('shrinks while writes go on, and a later call supersedes a shrink still waiting', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const s = new StoreCore({ device, memory: 64 * P, pageSize: P, mutableFraction: 0.9 });
    await fill(s, 0, 600);
    // Neither awaited: the first waits for flushes, the second replaces it.
    const first = s.setMemory(8 * P);
    const second = s.setMemory(6 * P);
    const writes = fill(s, 600, 200);
    expect(await first).toBe(false);
    expect(await second).toBe(true);
    await writes;
    expect(s.log.frameCount).toBe(6);
    invariants(s.log);
    await expectAll(s, 800);
  });

  it('moves across blobs (frameless pages) both ways', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const s = new StoreCore({ device, memory: 16 * P, pageSize: P, mutableFraction: 0.9 });
    const big = (i: number) => Buffer.alloc(3000, i);
    for (let i = 0; i < 60; i++) {
      await s.set(k(i), v(i));
      if (i % 10 === 0) await s.set(Buffer.from(`big-${i}`), big(i));
    }
    expect(await s.setMemory(4 * P)).toBe(true);
    invariants(s.log);
    expect(await s.setMemory(32 * P)).toBe(true);
    invariants(s.log);
    await fill(s, 60, 40);
    await expectAll(s, 100);
    for (let i = 0; i < 60; i += 10) {
      const got = await s.get(Buffer.from(`big-${i}`));
      expect(got.status === 'found' && got.value.equals(big(i))).toBe(true);
    }
  });

  it('keeps every key right through budget changes both ways amid concurrent writes (seeded)', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const s = new StoreCore({ device, memory: 16 * P, pageSize: P, mutableFraction: 0.7 });
    const model = new Map<number, number>();
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed % n;
    };
    const sizes = [2, 3, 5, 8, 16, 32];
    for (let round = 0; round < 12; round++) {
      const writes: Promise<unknown>[] = [];
      for (let n = 0; n < 150; n++) {
        const i = rand(400);
        model.set(i, round);
        writes.push(s.set(k(i), v(i, round)));
        if (n === 75) writes.push(s.setMemory(sizes[rand(sizes.length)]! * P));
      }
      await Promise.all(writes);
      invariants(s.log);
      expect(s.log.stats().residentBytes).toBeLessThanOrEqual(s.log.memoryBytes);
    }
    for (const [i, round] of model) {
      const got = await s.get(k(i));
      expect(got.status === 'found' && got.value.equals(v(i, round))).toBe(true);
    }
  });

  it('counts as resident only the frames the tail reached', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const log = new HybridLog({
      device,
      memory: 64 * P,
      pageSize: P,
      mutableFraction: 0.9,
      epoch: 1,
    });
    expect(log.residentBytes).toBe(P);
    for (let i = 0; i < 20; i++) expect(log.allocate(400)).not.toBe(0);
    // 20 records, two a page: 10 pages reached, plus the next one armed.
    expect(log.residentBytes).toBeGreaterThanOrEqual(10 * P);
    expect(log.residentBytes).toBeLessThanOrEqual(12 * P);
    expect(log.stats().residentBytes).toBe(log.residentBytes);
    // A blob takes pages of the address space, no frames.
    const before = log.residentBytes;
    await log.writeBlob(Buffer.from('big'), Buffer.alloc(40 * P, 1));
    expect(log.residentBytes).toBe(before);
  });

  it('refuses a budget that is not whole pages, or under two', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const log = new HybridLog({
      device,
      memory: 8 * P,
      pageSize: P,
      mutableFraction: 0.9,
      epoch: 1,
    });
    await expect(log.setMemory(P)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
    await expect(log.setMemory(3 * P + 1)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
    expect(log.frameCount).toBe(8);
  });
});
