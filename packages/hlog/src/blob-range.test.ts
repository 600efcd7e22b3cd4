import { MemoryDevice } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { chunkTableSize } from './blob-layout.js';
import { readBlob, readBlobRange } from './blob-read.js';
import { Store } from './hlog-store.js';
import {
  BLOB_PREFIX_SIZE,
  blobChecksum,
  PAGE_HEADER_SIZE,
  PageFlag,
  setBlobChecksum,
  writeBlobPrefix,
  writePageHeader,
} from './page-header.js';
import { RecordType } from './record-layout.js';
import { StoreCore } from './store.js';

const k = (s: string) => Buffer.from(s);
const CHUNK = 512;

function store() {
  const device = new MemoryDevice({ segmentSize: 1 << 20 });
  const core = new StoreCore({
    device,
    memory: 8192,
    pageSize: 2048,
    indexBuckets: 64,
    blobChunkSize: CHUNK,
  });
  return { device, core };
}

/** A value whose every byte differs from its neighbours': a misplaced range shows. */
function pattern(n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7 + (i >>> 8)) & 0xff;
  return b;
}

/** Writes small keys until everything before now is on the device only. */
async function evict(core: StoreCore): Promise<void> {
  const until = core.log.tail;
  for (let i = 0; core.log.head <= until; i++) await core.set(k(`filler-${i}`), k('x'.repeat(40)));
}

async function bytesReadFor(device: MemoryDevice, f: () => Promise<unknown>): Promise<number> {
  const before = device.stats().bytesRead;
  await f();
  return device.stats().bytesRead - before;
}

describe('ranged reads', () => {
  it('reads ranges of a blob across chunk borders, past the end and empty', async () => {
    const { core } = store();
    const value = pattern(10 * CHUNK + 100);
    await core.set(k('big'), value);
    const cases: [number, number][] = [
      [0, 1],
      [CHUNK - 1, 2],
      [CHUNK, CHUNK],
      [3 * CHUNK - 5, 2 * CHUNK + 10],
      [10 * CHUNK, 100],
      [10 * CHUNK + 99, 50],
      [0, value.length],
    ];
    for (const [offset, length] of cases) {
      const r = await core.getRange(k('big'), offset, length);
      expect(r.status).toBe('found');
      if (r.status !== 'found') continue;
      expect(r.totalLength).toBe(value.length);
      expect(r.from).toBe(offset);
      expect(r.value.equals(value.subarray(offset, offset + length))).toBe(true);
      expect(r.blob).toBeGreaterThan(0);
    }
    // Past the end and zero length: no bytes, the length still told.
    for (const [offset, length] of [
      [value.length, 10],
      [value.length + 1000, 10],
      [5, 0],
    ] as const) {
      const r = await core.getRange(k('big'), offset, length);
      expect(r.status === 'found' && r.value.length).toBe(0);
      expect(r.status === 'found' && r.totalLength).toBe(value.length);
    }
    expect((await core.getRange(k('none'), 0, 10)).status).toBe('notFound');
    await core.set(k('hash'), k('serialized'), { type: RecordType.HASH });
    expect(await core.getRange(k('hash'), 0, 10)).toEqual({
      status: 'wrongType',
      type: RecordType.HASH,
      old: null,
    });
  });

  it('answers a value in memory at once, a view into its record', async () => {
    const { core } = store();
    await core.set(k('small'), k('hello world'));
    const v = core.readRange(k('small'), 6, 100);
    expect(v.status).toBe('found');
    if (v.status !== 'found') return;
    expect(v.bytes).toBe(core.log.ring.bytes);
    expect(v.bytes.toString('utf8', v.offset, v.offset + v.length)).toBe('world');
    expect(v.totalLength).toBe(11);
    expect(v.blob).toBe(-1);
    // The picker sees the length first: the last 3 bytes in one step.
    const last3 = {
      from: 0,
      to: 0,
      pick(total: number) {
        this.from = total - 3;
        this.to = total;
      },
    };
    const p = core.readPicked(k('small'), last3);
    expect(p.status === 'found' && p.bytes.toString('utf8', p.offset, p.offset + p.length)).toBe(
      'rld',
    );
  });

  it('reads a value on the device: inline whole, a blob only in the chunks it needs', async () => {
    const { core, device } = store();
    const value = pattern(40 * CHUNK);
    await core.set(k('big'), value);
    await core.set(k('small'), k('on the device'));
    await evict(core);
    const small = core.readRange(k('small'), 3, 3);
    expect(small.status).toBe('pending');
    const r = await core.getRange(k('small'), 3, 3);
    expect(r.status === 'found' && r.value.toString()).toBe('the');

    const head = PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE + 3 + chunkTableSize(value.length, 9);
    // The record (one first read of a record), the blob's head and table, one chunk.
    const one = await bytesReadFor(device, async () => {
      const g = await core.getRange(k('big'), 5 * CHUNK + 10, 1);
      expect(g.status === 'found' && g.value[0]).toBe(value[5 * CHUNK + 10]);
    });
    expect(one).toBeLessThanOrEqual(512 + head + CHUNK);
    expect(one).toBeGreaterThanOrEqual(head + CHUNK);
    // Two chunks for a range across a border.
    const two = await bytesReadFor(device, async () => {
      const g = await core.getRange(k('big'), 6 * CHUNK - 1, 2);
      expect(
        g.status === 'found' && g.value.equals(value.subarray(6 * CHUNK - 1, 6 * CHUNK + 1)),
      ).toBe(true);
    });
    expect(two).toBe(one + CHUNK);
    // A whole read still reads (and verifies) everything.
    const whole = await bytesReadFor(device, async () => {
      const g = await core.get(k('big'));
      expect(g.status === 'found' && g.value.equals(value)).toBe(true);
    });
    expect(whole).toBeGreaterThanOrEqual(value.length);
  });

  it('finds a flipped byte in a chunk with ERR_CORRUPT_RECORD; the other chunks still read', async () => {
    const { core, device } = store();
    const value = pattern(8 * CHUNK);
    await core.set(k('big'), value);
    const found = await core.getRange(k('big'), 0, 1);
    if (found.status !== 'found') throw new Error('not found');
    const valueAt =
      found.blob + PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE + 3 + chunkTableSize(value.length, 9);
    // Flip one byte of chunk 3 on the device.
    const byte = Buffer.alloc(1);
    await device.read(valueAt + 3 * CHUNK + 17, byte);
    byte[0] = byte[0]! ^ 0x10;
    await device.write(valueAt + 3 * CHUNK + 17, byte);
    // Through the store, the error names the key (the blob reader's own says which chunk).
    await expect(core.getRange(k('big'), 3 * CHUNK + 100, 1)).rejects.toMatchObject({
      code: 'ERR_CORRUPT_RECORD',
      message: expect.stringMatching(/^corrupt record for key 'big' at .*chunk 3/),
    });
    await expect(core.getRange(k('big'), 2 * CHUNK, CHUNK + 1)).rejects.toMatchObject({
      code: 'ERR_CORRUPT_RECORD',
    });
    for (const chunk of [0, 2, 4, 7]) {
      const r = await core.getRange(k('big'), chunk * CHUNK, CHUNK);
      expect(
        r.status === 'found' && r.value.equals(value.subarray(chunk * CHUNK, (chunk + 1) * CHUNK)),
      ).toBe(true);
    }
    // The whole value's checksum catches it too.
    await expect(core.get(k('big'))).rejects.toMatchObject({ code: 'ERR_CORRUPT_RECORD' });
  });

  it('finds a changed chunk table', async () => {
    const { core, device } = store();
    await core.set(k('big'), pattern(4 * CHUNK));
    const found = await core.getRange(k('big'), 0, 1);
    if (found.status !== 'found') throw new Error('not found');
    const entry = found.blob + PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE + 3 + 4 + 4;
    const word = Buffer.alloc(4);
    await device.read(entry, word);
    word.writeUInt32LE(word.readUInt32LE(0) ^ 1, 0);
    await device.write(entry, word);
    await expect(core.getRange(k('big'), 2 * CHUNK, 1)).rejects.toMatchObject({
      code: 'ERR_CORRUPT_RECORD',
      message: expect.stringContaining('chunk table'),
    });
  });
});

describe('blobs of other formats', () => {
  it('reads a blob written before chunk tables (verified whole) and one of another chunk size', async () => {
    const { core, device } = store();
    const value = pattern(5 * CHUNK + 3);
    const key = k('old');
    // The format before tables: prefix `keyLength, 0`, key, value.
    const at = 1 << 19;
    const head = Buffer.alloc(PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE + key.length);
    writePageHeader(head, 0, head.length + value.length, PageFlag.BLOB, at, 1);
    writeBlobPrefix(head, key.length, 0);
    key.copy(head, PAGE_HEADER_SIZE + BLOB_PREFIX_SIZE);
    setBlobChecksum(head, blobChecksum(head, head.subarray(PAGE_HEADER_SIZE), value));
    await device.write(at, head);
    await device.write(at + head.length, value);
    const r = await readBlobRange(core, at, key.length, value.length, CHUNK + 1, 2 * CHUNK);
    expect(
      r.bytes.subarray(r.offset, r.offset + CHUNK - 1).equals(value.subarray(CHUNK + 1, 2 * CHUNK)),
    ).toBe(true);
    expect((await readBlob(core, at, key.length, value.length)).equals(value)).toBe(true);
    // A flipped byte anywhere fails the whole checksum.
    await device.write(at + head.length + 4 * CHUNK, Buffer.from([value[4 * CHUNK]! ^ 1]));
    await expect(readBlobRange(core, at, key.length, value.length, 0, 1)).rejects.toMatchObject({
      code: 'ERR_CORRUPT',
    });

    // A blob of 512-byte chunks read by a log that writes 1 KiB ones.
    const big = pattern(6 * CHUNK);
    await core.set(k('big'), big);
    const found = await core.getRange(k('big'), 0, 1);
    if (found.status !== 'found') throw new Error('not found');
    const other = new StoreCore({ device, memory: 8192, pageSize: 2048, blobChunkSize: 1024 });
    const o = await readBlobRange(other, found.blob, 3, big.length, 3 * CHUNK - 2, 3 * CHUNK + 2);
    expect(
      o.bytes.subarray(o.offset, o.offset + 4).equals(big.subarray(3 * CHUNK - 2, 3 * CHUNK + 2)),
    ).toBe(true);
    expect(o.bytes.length).toBe(2 * CHUNK);
  });
});

describe('ranged reads after a restart', () => {
  it('reads a range of a blob the recovered log holds, in its chunks', async () => {
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const options = {
      device,
      memory: 8192,
      pageSize: 2048,
      indexBuckets: 64,
      blobChunkSize: CHUNK,
      checkpoints: null,
      expiry: false as const,
    };
    const value = pattern(20 * CHUNK);
    const first = await Store.open(options);
    await first.set(k('big'), value);
    await first.close();
    const again = await Store.open(options);
    try {
      const read = await bytesReadFor(device, async () => {
        const r = await again.getRange(k('big'), 7 * CHUNK + 3, 10);
        expect(
          r.status === 'found' && r.value.equals(value.subarray(7 * CHUNK + 3, 7 * CHUNK + 13)),
        ).toBe(true);
      });
      expect(read).toBeLessThan(512 + 200 + CHUNK);
    } finally {
      await again.close();
    }
  });
});
