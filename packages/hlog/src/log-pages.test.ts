import { crc32 } from 'node:zlib';
import { MemoryDevice } from '@strata/io';
import { type ReadMode, readMode } from '@strata/pagebuf';
import { afterEach, describe, expect, it } from 'vitest';
import { LogPage, LogPages } from './log-pages.js';
import {
  PAGE_HEADER_SIZE,
  PageCheck,
  PageFlag,
  sealPageChecksum,
  writePageHeader,
} from './page-header.js';
import { createRecordSpace, RecordFlag, recordSize, writeRecordHeader } from './record-layout.js';

const P = 4096;

/** A records page at `address` holding `n` one-byte-key records, sealed. */
function recordsPage(address: number, n: number, epoch = 1): Buffer {
  const s = createRecordSpace(P);
  const size = recordSize(1, 8, false);
  let off = PAGE_HEADER_SIZE;
  for (let i = 0; i < n; i++) {
    writeRecordHeader(s, off, 0, RecordFlag.VALID, 0, 1, 8, 0, size);
    off += size;
  }
  writePageHeader(s.bytes, 0, off, 0, address, epoch);
  sealPageChecksum(s.bytes, 0);
  return s.bytes;
}

/** A blob at `address` of `length` bytes (header included), its checksum over all of them. */
function blob(address: number, length: number, epoch = 1): Buffer {
  const bytes = Buffer.alloc(Math.ceil(length / P) * P, 0x5a);
  writePageHeader(bytes, 0, length, PageFlag.BLOB, address, epoch);
  bytes.writeUInt32LE(crc32(bytes.subarray(8, length)), 4);
  return bytes;
}

function flip(bytes: Buffer, at: number): void {
  bytes.writeUInt8(bytes.readUInt8(at) ^ 1, at);
}

const devices: MemoryDevice[] = [];
afterEach(async () => {
  for (const d of devices.splice(0)) await d.close();
});

async function deviceWith(...pages: Buffer[]): Promise<MemoryDevice> {
  const device = new MemoryDevice({ segmentSize: 1 << 20 });
  devices.push(device);
  let a = 0;
  for (const p of pages) {
    await device.write(a, p);
    a += p.length;
  }
  return device;
}

/** Every page the reader reports: kind, address, and the reason of a bad one. */
async function reportsOf(
  device: MemoryDevice,
  mode: ReadMode,
  more: { end?: number; minEpoch?: number; verifyRecords?: boolean } = {},
): Promise<string[]> {
  const pages = new LogPages({
    device,
    pageSize: P,
    start: 0,
    mode,
    ...(more.end !== undefined ? { end: more.end } : {}),
    ...(more.verifyRecords !== undefined ? { verifyRecords: more.verifyRecords } : {}),
  });
  pages.minEpoch = more.minEpoch ?? 0;
  const out: string[] = [];
  try {
    while (await pages.next()) {
      const name = Object.keys(LogPage)[pages.kind];
      out.push(
        pages.kind === LogPage.RECORDS
          ? `${name}@${pages.address}:${pages.used}`
          : pages.kind === LogPage.BLOB
            ? `${name}@${pages.address}x${pages.blobPages}`
            : `${name}@${pages.address}:${pages.reason}`,
      );
    }
  } finally {
    await pages.close();
  }
  return out;
}

const MODES: readonly [string, ReadMode][] = [
  ['single', readMode.single()],
  ['adaptive', readMode.adaptive({ minReadSize: P, maxReadSize: 8 * P })],
];

describe.each(MODES)('LogPages (%s reads)', (_name, mode) => {
  it('hands out records pages and blobs, each verified', async () => {
    const device = await deviceWith(recordsPage(0, 3), blob(P, 2 * P + 100), recordsPage(4 * P, 1));
    const used1 = PAGE_HEADER_SIZE + 3 * recordSize(1, 8, false);
    expect(await reportsOf(device, mode)).toEqual([
      `RECORDS@0:${used1}`,
      `BLOB@${P}x3`,
      `RECORDS@${4 * P}:${PAGE_HEADER_SIZE + recordSize(1, 8, false)}`,
    ]);
  });

  it('reports a flipped byte in a page or a blob as bad, then goes on after it', async () => {
    const bad = recordsPage(0, 3);
    flip(bad, PAGE_HEADER_SIZE + 20);
    const badBlob = blob(P, 2 * P);
    flip(badBlob, P + 7);
    const device = await deviceWith(bad, badBlob, recordsPage(3 * P, 1));
    const got = await reportsOf(device, mode);
    expect(got[0]).toBe('BAD@0:page checksum mismatch');
    expect(got[1]).toBe(`BAD@${P}:blob checksum mismatch`);
    // After a bad blob the reader goes on page by page (its length is not trusted).
    expect(got.at(-1)).toBe(`RECORDS@${3 * P}:${PAGE_HEADER_SIZE + recordSize(1, 8, false)}`);
  });

  it('checks the record structure, not only the checksum', async () => {
    const s = createRecordSpace(P);
    s.bytes.fill(0, PAGE_HEADER_SIZE, 64);
    writePageHeader(s.bytes, 0, 64, 0, 0, 1);
    sealPageChecksum(s.bytes, 0);
    expect(await reportsOf(await deviceWith(s.bytes), mode)).toEqual(['BAD@0:bad record']);
    // A reader that walks the slots itself (scan) checks them there instead.
    const walked = await reportsOf(await deviceWith(s.bytes), mode, { verifyRecords: false });
    expect(walked).toEqual(['RECORDS@0:64']);
  });

  it('names stale, foreign and copied pages', async () => {
    const foreign = Buffer.alloc(P, 7);
    const device = await deviceWith(recordsPage(0, 1, 5), recordsPage(0, 1, 5), foreign);
    expect(await reportsOf(device, mode, { minEpoch: 6 })).toEqual([
      'BAD@0:stale page (epoch 5 < 6)',
      `BAD@${P}:page address mismatch`,
      `BAD@${2 * P}:no page header`,
    ]);
  });

  it('reports a page or a blob cut short by the end of the range, once', async () => {
    const device = await deviceWith(recordsPage(0, 1), blob(P, 3 * P));
    expect(await reportsOf(device, mode, { end: 2 * P })).toEqual([
      `RECORDS@0:${PAGE_HEADER_SIZE + recordSize(1, 8, false)}`,
      `SHORT@${P}:page cut short by the end of the device`,
    ]);
    const torn = recordsPage(0, 100);
    const short = await deviceWith(torn.subarray(0, 1024));
    expect(await reportsOf(short, mode)).toEqual([
      'SHORT@0:page cut short by the end of the device',
    ]);
  });
});

describe('LogPages', () => {
  it('assembles pages that reads split in two', async () => {
    const device = await deviceWith(recordsPage(0, 1), recordsPage(P, 100));
    // Reads of half a page: every page arrives in two frames.
    const mode = readMode.adaptive({ minReadSize: P / 2, maxReadSize: P / 2 });
    expect(await reportsOf(device, mode)).toEqual([
      `RECORDS@0:${PAGE_HEADER_SIZE + recordSize(1, 8, false)}`,
      `RECORDS@${P}:${PAGE_HEADER_SIZE + 100 * recordSize(1, 8, false)}`,
    ]);
  });

  it('walks a page of the frame in hand again after a seek back, without a read', async () => {
    const device = await deviceWith(recordsPage(0, 1), recordsPage(P, 2));
    const mode = readMode.adaptive({ minReadSize: 2 * P, maxReadSize: 2 * P });
    const pages = new LogPages({ device, pageSize: P, start: 0, end: 2 * P, mode });
    expect(await pages.next()).toBe(true);
    const read = pages.bytesRead;
    pages.seek(0, 2 * P);
    expect(await pages.next()).toBe(true);
    expect(pages.address).toBe(0);
    expect(pages.bytesRead).toBe(read);
    expect(pages.reusedFrames).toBe(1);
    expect(await pages.next()).toBe(true);
    expect(pages.address).toBe(P);
    expect(pages.check).toBe(PageCheck.RECORDS);
    await pages.close();
  });
});
