import { FaultDevice, MemoryDevice } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { HybridLog } from './hybrid-log.js';
import { PAGE_HEADER_SIZE, PageFlag, readPageHeader, verifyRecordsPage } from './page-header.js';

function invariants(log: HybridLog): void {
  expect(log.begin).toBeLessThanOrEqual(log.head);
  expect(log.head).toBeLessThanOrEqual(log.readOnly);
  expect(log.readOnly).toBeLessThanOrEqual(log.tail);
  expect(log.head).toBeLessThanOrEqual(log.flushedUntil);
  // The in-memory span never exceeds the ring.
  expect(log.tail - log.head).toBeLessThanOrEqual(log.ringBytes);
}

async function allocate(log: HybridLog, size: number): Promise<number> {
  for (;;) {
    const a = log.allocate(size);
    if (a !== 0) return a;
    await log.waitForProgress();
  }
}

describe('hybrid log', () => {
  it('allocates within pages, moves regions and flushes checksummed pages', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 16 });
    const log = new HybridLog({
      device,
      memory: 4096,
      pageSize: 1024,
      mutableFraction: 0.5,
      epoch: 7,
    });
    expect(log.frameCount).toBe(4);
    const addresses: number[] = [];
    for (let i = 0; i < 200; i++) {
      const a = await allocate(log, 72);
      expect(Math.floor(a / 1024)).toBe(Math.floor((a + 71) / 1024));
      expect(a % 1024).toBeGreaterThanOrEqual(PAGE_HEADER_SIZE);
      addresses.push(a);
      invariants(log);
    }
    expect(log.head).toBeGreaterThan(0);
    await log.waitFlushed(log.readOnly);
    const page = Buffer.alloc(1024);
    await device.read(0, page);
    const header = readPageHeader(page, 0);
    expect(header).not.toBeNull();
    expect(header!.epoch).toBe(7);
    expect(header!.address).toBe(0);
    expect(verifyRecordsPage(page, 0, 1024, header!)).toBe(true);
    page[100]! ^= 1;
    expect(verifyRecordsPage(page, 0, 1024, header!)).toBe(false);
  });

  it('becomes resident as the tail goes round the ring, not at once', async () => {
    const MiB = 1 << 20;
    const rss = () => process.memoryUsage().rss;
    const device = new MemoryDevice({ segmentSize: 1 << 30 });
    const before = rss();
    const log = new HybridLog({
      device,
      memory: 512 * MiB,
      pageSize: MiB,
      mutableFraction: 0.9,
      epoch: 1,
    });
    // A budget touched whole at start would add 512 MiB at once.
    expect(rss() - before).toBeLessThan(128 * MiB);
    // 16 pages of records: about that much more, far from the budget.
    while (log.tail < 16 * MiB) {
      const a = await allocate(log, 4096);
      log.ring.bytes.fill(7, log.offsetOf(a), log.offsetOf(a) + 4096);
    }
    expect(rss() - before).toBeLessThan(192 * MiB);
  });

  it('makes a writer wait for a frame still being flushed (backpressure)', async () => {
    const inner = new MemoryDevice({ segmentSize: 1 << 16 });
    const device = new FaultDevice(inner, { latency: { minMs: 20, on: 'write' } });
    const log = new HybridLog({
      device,
      memory: 2048,
      pageSize: 1024,
      mutableFraction: 0.5,
      epoch: 1,
    });
    let waits = 0;
    for (let i = 0; i < 60; i++) {
      let a = log.allocate(128);
      while (a === 0) {
        waits++;
        // The frame must not be reused before its page is on the device.
        expect(log.flushedUntil).toBeLessThan((Math.floor(log.tail / 1024) + 2 - 2) * 1024);
        await log.waitForProgress();
        a = log.allocate(128);
      }
      invariants(log);
    }
    expect(waits).toBeGreaterThan(0);
    expect(log.stats().memoryBytes).toBe(2048);
  });

  it('seals the tail page and flushes everything below it', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 16 });
    const log = new HybridLog({
      device,
      memory: 8192,
      pageSize: 1024,
      mutableFraction: 0.9,
      epoch: 1,
    });
    await allocate(log, 200);
    const point = await log.sealAndFlush();
    expect(point).toBe(1024);
    expect(log.readOnly).toBe(1024);
    expect(log.flushedUntil).toBeGreaterThanOrEqual(1024);
    const page = Buffer.alloc(1024);
    await device.read(0, page);
    expect(readPageHeader(page, 0)!.used).toBe(PAGE_HEADER_SIZE + 200);
    // Nothing new: sealing again does not waste a page.
    expect(await log.sealAndFlush()).toBe(1024);
  });

  it('keeps the headers of in-memory pages whole: the tail page current, left pages sealed', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 16 });
    const log = new HybridLog({
      device,
      memory: 8192,
      pageSize: 1024,
      mutableFraction: 0.9,
      epoch: 3,
      tailAddress: 2048,
    });
    const headerOf = (address: number) => readPageHeader(log.ring.bytes, log.offsetOf(address));
    const expectHeader = (address: number, used: number) => {
      const h = headerOf(address);
      expect(h).not.toBeNull();
      expect(h!.address).toBe(address);
      expect(h!.epoch).toBe(3);
      expect(h!.flags).toBe(0);
      expect(h!.used).toBe(used);
    };
    expectHeader(2048, PAGE_HEADER_SIZE);
    await allocate(log, 200);
    expectHeader(2048, PAGE_HEADER_SIZE + 200);
    for (let i = 0; i < 4; i++) await allocate(log, 200); // the 5th does not fit: opens 3072
    expectHeader(2048, PAGE_HEADER_SIZE + 800);
    expectHeader(3072, PAGE_HEADER_SIZE + 200);
    // A fold-over seals the tail page as it is and opens the next one.
    await log.sealAndFlush();
    expectHeader(3072, PAGE_HEADER_SIZE + 200);
    expectHeader(4096, PAGE_HEADER_SIZE);
    // After a blob, the next page opens with a whole header too.
    const blobAt = await log.writeBlob(Buffer.from('k'), Buffer.alloc(1500, 1));
    expect(blobAt).toBe(5120);
    const a = await allocate(log, 64);
    expect(a).toBe(7168 + PAGE_HEADER_SIZE);
    expectHeader(7168, PAGE_HEADER_SIZE + 64);
    await log.sealAndFlush();
    const page = Buffer.alloc(1024);
    await device.read(7168, page);
    expect(readPageHeader(page, 0)!.used).toBe(PAGE_HEADER_SIZE + 64);
    expect(verifyRecordsPage(page, 0, 1024, readPageHeader(page, 0)!)).toBe(true);
  });

  it('prepares the next page before it opens, and a blob that takes that page leaves it frameless', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 16 });
    const P = 1024;
    const log = new HybridLog({
      device,
      memory: 4 * P,
      pageSize: P,
      mutableFraction: 0.5,
      epoch: 5,
    });
    // Fill pages 0..4 (the ring wraps), then page 5 up to its last eighth.
    while (log.tail < 5 * P + 7 * (P / 8)) await allocate(log, 8);
    await log.waitFlushed(4 * P);
    // A few more inserts run the preparation steps: page 5 is the tail.
    for (let i = 0; i < 8; i++) await allocate(log, 8);
    expect(log.tailPageStart).toBe(5 * P);
    // What page 6's opening would make read-only already is, and its flush
    // is issued; page 6's frame (page 2's) is free: head moved over page 2.
    expect(log.readOnly).toBe(5 * P);
    expect(log.head).toBe(3 * P);
    await log.waitFlushed(5 * P);
    invariants(log);
    // A blob takes page 6 (and 7): no frame of the ring is page 6's.
    const blobAt = await log.writeBlob(Buffer.from('key'), Buffer.alloc(1500, 9));
    expect(blobAt).toBe(6 * P);
    expect(log.isFramedPage(6)).toBe(false);
    expect(log.isFramedPage(7)).toBe(false);
    // Records after it; the pages before and after flush, the blob stays whole.
    while (log.tail < 11 * P) await allocate(log, 64);
    await log.waitFlushed(10 * P);
    invariants(log);
    const page = Buffer.alloc(P);
    await device.read(6 * P, page);
    const blob = readPageHeader(page, 0)!;
    expect(blob.flags).toBe(PageFlag.BLOB);
    expect(blob.address).toBe(6 * P);
    for (const p of [5, 8, 9]) {
      await device.read(p * P, page);
      const h = readPageHeader(page, 0)!;
      expect(h.address).toBe(p * P);
      expect(verifyRecordsPage(page, 0, P, h)).toBe(true);
    }
  });
});
