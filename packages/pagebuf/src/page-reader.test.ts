import { type Device, FaultDevice, isStrataError } from '@strata/io';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type DeviceKind,
  makeDevice,
  patternBytes,
  ReadLog,
  type TestDevice,
} from '../test/devices.js';
import type { Frame } from './frame.js';
import { FramePool } from './frame-pool.js';
import { PageReader } from './page-reader.js';
import { type ReadMode, readMode, readModeName } from './read-mode.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const PAGE = 4 * KiB;
const SEGMENT = 64 * KiB;
/** Ends mid-page, five segments and a bit. */
const DEVICE_BYTES = 5 * SEGMENT + 7 * PAGE + 123;

const open: TestDevice[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.dispose();
});

async function device(
  kind: DeviceKind,
  bytes = DEVICE_BYTES,
  geometry: { segmentSize?: number; alignment?: number } = {},
): Promise<TestDevice> {
  const t = await makeDevice(kind, patternBytes(bytes), {
    segmentSize: geometry.segmentSize ?? SEGMENT,
    ...(geometry.alignment === undefined ? {} : { alignment: geometry.alignment }),
  });
  open.push(t);
  return t;
}

interface FrameShape {
  address: number;
  length: number;
  bufferAddress: number;
  offset: number;
  bufferLength: number;
}

/** Reads everything, checking each frame's layout invariants, and returns the bytes and frame shapes. */
async function drain(reader: PageReader): Promise<{ bytes: Buffer; frames: FrameShape[] }> {
  const parts: Buffer[] = [];
  const frames: FrameShape[] = [];
  let expected = reader.position;
  let lastSequence = -1;
  for await (const f of reader) {
    expect(f.address).toBe(expected);
    expect(f.offset).toBe(f.address - f.bufferAddress);
    expect(f.end).toBe(f.address + f.length);
    expect(f.length).toBeGreaterThan(0);
    expect(f.offset + f.length).toBeLessThanOrEqual(f.buffer.length);
    // Sequence numbers run on across seeks: consecutive within one drain.
    if (frames.length > 0) expect(f.sequence).toBe(lastSequence + 1);
    lastSequence = f.sequence;
    parts.push(Buffer.from(f.bytes()));
    frames.push({
      address: f.address,
      length: f.length,
      bufferAddress: f.bufferAddress,
      offset: f.offset,
      bufferLength: f.buffer.length,
    });
    expected = f.end;
  }
  return { bytes: Buffer.concat(parts), frames };
}

const smallAdaptive = readMode.adaptive({ minReadSize: 8 * KiB, maxReadSize: 64 * KiB });
const MODES: [string, ReadMode][] = [
  ['single', readMode.single()],
  ['double', readMode.double()],
  ['frames3', readMode.frames(3)],
  ['adaptive', smallAdaptive],
  [
    'adaptive-2-ahead',
    readMode.adaptive({ minReadSize: 8 * KiB, maxReadSize: 32 * KiB, readsAhead: 2 }),
  ],
  [
    'adaptive-chained',
    readMode.adaptive({
      minReadSize: 8 * KiB,
      maxReadSize: 32 * KiB,
      readsAhead: 2,
      concurrentReads: 1,
    }),
  ],
];

/** [name, start, end] with `end` as an offset from the device end when negative-ish markers are needed. */
const RANGES: [string, number, number][] = [
  ['the whole device', 0, DEVICE_BYTES],
  ['mid-page to mid-page across segments', 1000, 3 * SEGMENT + 2 * PAGE + 17],
  ['page-aligned inside one segment', 2 * PAGE, 6 * PAGE],
  ['past the device end', SEGMENT + 5, DEVICE_BYTES + 3 * PAGE],
  ['the last few bytes', DEVICE_BYTES - 10, DEVICE_BYTES],
  ['one byte', 12_345, 12_346],
  ['nothing', 3 * PAGE, 3 * PAGE],
  ['entirely past the end', DEVICE_BYTES + 1, DEVICE_BYTES + 2 * PAGE],
];

describe.each(['memory', 'file'] as const)('PageReader on a %s device', (kind) => {
  describe.each(MODES)('%s', (_name, mode) => {
    it.each(RANGES)('yields exactly the device bytes: %s', async (_what, start, end) => {
      const t = await device(kind);
      const reader = new PageReader({ device: t.device, start, end, pageSize: PAGE, mode });
      const { bytes, frames } = await drain(reader);
      const want = t.data.subarray(Math.min(start, DEVICE_BYTES), Math.min(end, DEVICE_BYTES));
      expect(bytes.length).toBe(want.length);
      expect(bytes.equals(want)).toBe(true);
      for (const f of frames) {
        if (mode.kind === 'adaptive') {
          // Frames end on a page boundary unless the range or the device ends first.
          const fEnd = f.address + f.length;
          if (fEnd % PAGE !== 0) expect(fEnd === end || fEnd === DEVICE_BYTES).toBe(true);
        } else {
          // Fixed modes lay each frame out as its page.
          expect(f.bufferAddress % PAGE).toBe(0);
          expect(f.bufferLength).toBe(PAGE);
          expect(f.offset).toBe(f.address % PAGE);
        }
      }
      expect(reader.pool.inUse).toBe(0);
      await reader.close();
    });
  });

  it('defaults the end to the device end', async () => {
    const t = await device(kind);
    const reader = new PageReader({
      device: t.device,
      start: 0,
      pageSize: PAGE,
      mode: readMode.double(),
    });
    expect(reader.end).toBe(DEVICE_BYTES);
    expect((await drain(reader)).bytes.equals(t.data)).toBe(true);
  });

  it('honours the device alignment for unaligned ranges', async () => {
    const bytes = 3 * SEGMENT + 5 * 512;
    const t = await device(kind, bytes, { alignment: 512 });
    for (const mode of [readMode.single(), readMode.frames(4), smallAdaptive]) {
      const start = 1000;
      const end = 2 * SEGMENT + 3001;
      const reader = new PageReader({ device: t.device, start, end, pageSize: PAGE, mode });
      const got = await drain(reader);
      expect(got.bytes.equals(t.data.subarray(start, end))).toBe(true);
      const tail = new PageReader({ device: t.device, start: bytes - 700, pageSize: PAGE, mode });
      expect((await drain(tail)).bytes.equals(t.data.subarray(bytes - 700))).toBe(true);
    }
  });
});

describe('PageReader read-ahead', () => {
  /** For each frame: the reads issued by the time the caller holds it. */
  async function readsAheadPerFrame(mode: ReadMode, pages: number): Promise<number[]> {
    const t = await device('memory');
    const log = new ReadLog(t.device);
    const reader = new PageReader({
      device: log,
      start: 0,
      end: pages * PAGE,
      pageSize: PAGE,
      mode,
    });
    const ahead: number[] = [];
    for await (const f of reader) {
      const issued = log.events.filter((e) => e.startsWith('read')).length;
      ahead.push(issued - (f.sequence + 1));
    }
    return ahead;
  }

  it('single reads the next page only when asked', async () => {
    expect(await readsAheadPerFrame(readMode.single(), 6)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('double has page n+1 in flight while the caller holds page n', async () => {
    expect(await readsAheadPerFrame(readMode.double(), 6)).toEqual([1, 1, 1, 1, 1, 0]);
  });

  it('frames(N) keeps N-1 pages in flight', async () => {
    expect(await readsAheadPerFrame(readMode.frames(4), 8)).toEqual([3, 3, 3, 3, 3, 2, 1, 0]);
  });

  it('reuses its frame objects and buffers: nothing is allocated per frame', async () => {
    const t = await device('memory');
    const reader = new PageReader({
      device: t.device,
      start: 0,
      pageSize: PAGE,
      mode: readMode.double(),
    });
    const frames = new Set<Frame>();
    const buffers = new Set<Buffer>();
    let n = 0;
    for (let round = 0; round < 5; round++) {
      await reader.seek(0);
      for await (const f of { [Symbol.asyncIterator]: () => reader }) {
        frames.add(f);
        buffers.add(f.buffer);
        n++;
      }
    }
    expect(n).toBe(5 * Math.ceil(DEVICE_BYTES / PAGE));
    expect(frames.size).toBe(2);
    expect(buffers.size).toBe(2);
    expect(reader.pool.stats().allocations).toBe(1);
    expect(reader.stats().memoryHighWater).toBe(2 * PAGE);
  });

  it('shares a pool between readers and reports exhaustion with ERR_POOL_EXHAUSTED', async () => {
    const t = await device('memory');
    const pool = new FramePool({ frameSize: PAGE, maxFrames: 3, preallocate: true });
    const a = new PageReader({
      device: t.device,
      start: 0,
      pageSize: PAGE,
      mode: readMode.double(),
      pool,
    });
    const b = new PageReader({
      device: t.device,
      start: 0,
      pageSize: PAGE,
      mode: readMode.single(),
      pool,
    });
    const [fa, fb] = [await a.next(), await b.next()];
    expect(fa.done === false && fb.done === false).toBe(true);
    expect(pool.inUse).toBe(3);
    const c = new PageReader({
      device: t.device,
      start: 0,
      pageSize: PAGE,
      mode: readMode.single(),
      pool,
    });
    await expect(c.next()).rejects.toMatchObject({ code: 'ERR_POOL_EXHAUSTED' });
    await a.close();
    await b.close();
    expect(pool.inUse).toBe(0);
    expect(pool.allocatedBytes).toBe(3 * PAGE); // a shared pool is not trimmed by its readers
    expect(
      () =>
        new PageReader({
          device: t.device,
          start: 0,
          pageSize: 2 * PAGE,
          mode: readMode.single(),
          pool,
        }),
    ).toThrow(/smaller than a page/);
  });
});

describe('PageReader seek', () => {
  it('moves anywhere, and keeps the reads in flight when seeking to the next frame', async () => {
    const t = await device('memory');
    const log = new ReadLog(t.device);
    const reader = new PageReader({
      device: log,
      start: 0,
      pageSize: PAGE,
      mode: readMode.frames(3),
    });
    const first = await reader.next();
    expect(first.done === false && first.value.address).toBe(0);
    expect(reader.position).toBe(PAGE);
    await reader.seek(PAGE); // where it was going: pages 1 and 2 stay in flight
    expect(reader.stats().readsDropped).toBe(0);
    const got: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await reader.next();
      if (!r.done) {
        got.push(r.value.address);
        expect(r.value.bytes().equals(t.data.subarray(r.value.address, r.value.end))).toBe(true);
      }
    }
    expect(got).toEqual([PAGE, 2 * PAGE, 3 * PAGE]);
    expect(log.events).toEqual([0, 1, 2, 3, 4, 5].map((p) => `read ${p * PAGE}`));

    await reader.seek(10 * PAGE + 7, 12 * PAGE); // a jump, with a new end
    expect(reader.stats().readsDropped).toBe(2);
    const rest = await drain(reader);
    expect(rest.bytes.equals(t.data.subarray(10 * PAGE + 7, 12 * PAGE))).toBe(true);

    await reader.seek(DEVICE_BYTES - 5, DEVICE_BYTES + PAGE); // then to the device end
    expect((await drain(reader)).bytes.equals(t.data.subarray(DEVICE_BYTES - 5))).toBe(true);
    await expect(reader.seek(5, 4)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
    await reader.close();
  });
});

describe('PageReader early stop', () => {
  it('break releases the frames and drains the reads in flight', async () => {
    const t = await device('file');
    const slow = new FaultDevice(t.device, {
      latency: { minMs: 5, on: 'read' },
      closeInner: false,
    });
    const reader = new PageReader({
      device: slow,
      start: 0,
      pageSize: PAGE,
      mode: readMode.frames(4),
    });
    let seen = 0;
    for await (const f of reader) {
      expect(f.length).toBe(PAGE);
      if (++seen === 2) {
        expect(slow.stats().inFlight).toBeGreaterThan(0);
        break;
      }
    }
    expect(reader.closed).toBe(true);
    expect(reader.pool.inUse).toBe(0);
    expect(reader.memoryBytes).toBe(0);
    expect(slow.stats().inFlight).toBe(0);
    expect(reader.stats().readsDropped).toBe(3);
    expect(await reader.next()).toEqual({ done: true, value: undefined });
    await expect(reader.seek(0)).rejects.toMatchObject({ code: 'ERR_READER_CLOSED' });
    await reader.close(); // idempotent
  });

  it('drops failing reads in flight without surfacing them', async () => {
    const t = await device('memory');
    const faulty = new FaultDevice(t.device, {
      latency: { minMs: 2, on: 'read' },
      faults: [{ on: 'read', range: { from: 2 * PAGE, to: 4 * PAGE } }],
      closeInner: false,
    });
    const reader = new PageReader({
      device: faulty,
      start: 0,
      pageSize: PAGE,
      mode: readMode.frames(4),
    });
    const first = await reader.next();
    expect(first.done).toBe(false);
    // Pages 1..3 are in flight, 2 and 3 will fail; stopping now must not throw
    // nor leave an unhandled rejection behind (vitest fails the run if so).
    await reader.return();
    expect(faulty.stats().inFlight).toBe(0);
    expect(faulty.stats().errors).toBe(2);
    expect(reader.pool.inUse).toBe(0);
  });

  it('close() during a pending next() ends that next() and cleans up', async () => {
    const t = await device('memory');
    const slow = new FaultDevice(t.device, {
      latency: { minMs: 10, on: 'read' },
      closeInner: false,
    });
    const reader = new PageReader({
      device: slow,
      start: 0,
      pageSize: PAGE,
      mode: readMode.double(),
    });
    const pending = reader.next();
    await reader.close();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(slow.stats().inFlight).toBe(0);
    expect(reader.pool.inUse).toBe(0);
  });

  it('rejects overlapping calls with ERR_READER_BUSY', async () => {
    const t = await device('memory');
    const slow = new FaultDevice(t.device, {
      latency: { minMs: 20, on: 'read' },
      closeInner: false,
    });
    const reader = new PageReader({
      device: slow,
      start: 0,
      pageSize: PAGE,
      mode: readMode.single(),
    });
    const first = reader.next();
    await expect(reader.next()).rejects.toMatchObject({ code: 'ERR_READER_BUSY' });
    await expect(reader.seek(0)).rejects.toMatchObject({ code: 'ERR_READER_BUSY' });
    expect((await first).done).toBe(false);
    await reader.close();
  });
});

describe('PageReader device errors', () => {
  async function readUntilError(
    dev: Device,
    mode: ReadMode,
  ): Promise<{ delivered: number[]; error: unknown }> {
    const reader = new PageReader({ device: dev, start: 0, pageSize: PAGE, mode });
    const delivered: number[] = [];
    let error: unknown;
    try {
      for await (const f of reader) delivered.push(f.address);
    } catch (e) {
      error = e;
    }
    expect(reader.closed).toBe(true);
    expect(reader.pool.inUse).toBe(0);
    expect(await reader.next()).toEqual({ done: true, value: undefined });
    return { delivered, error };
  }

  it.each(MODES)(
    '%s: surfaces on the frame that needed the failed read, with its address',
    async (_n, mode) => {
      const t = await device('memory');
      const badFrom = 9 * PAGE + 100;
      const faulty = new FaultDevice(t.device, {
        faults: [{ on: 'read', range: { from: badFrom, to: badFrom + 1 } }],
        closeInner: false,
      });
      const { delivered, error } = await readUntilError(faulty, mode);
      // Everything before the bad read arrives, in order, before the error.
      const last = delivered.at(-1) ?? 0;
      expect(delivered.length).toBeGreaterThan(0);
      expect(isStrataError(error, 'ERR_PAGE_READ')).toBe(true);
      if (!isStrataError(error)) return;
      const cause = error.cause;
      expect(isStrataError(cause, 'ERR_INJECTED_FAULT')).toBe(true);
      expect(error.address).toBeGreaterThan(last);
      expect(error.address).toBeLessThanOrEqual(badFrom);
      if (mode.kind !== 'adaptive') expect(error.address).toBe(9 * PAGE);
      expect(error.message).toContain(`address ${error.address}`);
      expect(faulty.stats().inFlight).toBe(0);
    },
  );

  it('an error on the Nth read surfaces at frame N even when reads ahead succeed', async () => {
    const t = await device('memory');
    const faulty = new FaultDevice(t.device, {
      faults: [{ on: 'read', nth: 3 }],
      closeInner: false,
    });
    const { delivered, error } = await readUntilError(faulty, readMode.frames(4));
    expect(delivered).toEqual([0, PAGE]);
    expect(error).toMatchObject({ code: 'ERR_PAGE_READ', address: 2 * PAGE });
  });

  it('carries the IO error of a real file device (read below a truncated begin)', async () => {
    const t = await device('file');
    await t.device.truncateUntil(2 * SEGMENT);
    const reader = new PageReader({
      device: t.device,
      start: SEGMENT - PAGE,
      pageSize: PAGE,
      mode: readMode.double(),
    });
    const err = await reader.next().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'ERR_PAGE_READ', address: SEGMENT - PAGE });
    expect(isStrataError((err as Error).cause, 'ERR_ADDRESS_OUT_OF_RANGE')).toBe(true);
  });
});

describe('PageReader adaptive mode', () => {
  it('grows reads from 128 KiB to 8 MiB, reaching the maximum after 6 full reads', async () => {
    const t = await device('memory', 48 * MiB, { segmentSize: 16 * MiB });
    const reader = new PageReader({
      device: t.device,
      start: 0,
      pageSize: PAGE,
      mode: readMode.adaptive({ readsAhead: 1 }),
    });
    const lengths: number[] = [];
    const windows: number[] = [];
    for await (const f of reader) {
      lengths.push(f.length / KiB);
      windows.push(reader.window / KiB);
      if (lengths.length === 10) break;
    }
    // Two reads go out before the first completes (one ahead), so the first two
    // frames are both at the minimum; each consumed full read doubles the window.
    expect(windows).toEqual([256, 512, 1024, 2048, 4096, 8192, 8192, 8192, 8192, 8192]);
    expect(lengths).toEqual([128, 128, 256, 512, 1024, 2048, 4096, 8192, 8192, 8192]);
    // Never more than one frame per slot, each at most the maximum.
    expect(reader.stats().memoryHighWater).toBeLessThanOrEqual(2 * 8 * MiB);
  });

  it('by default keeps two reads in flight while the caller holds a frame', async () => {
    const t = await device('memory', 48 * MiB, { segmentSize: 16 * MiB });
    const log = new ReadLog(t.device);
    const reader = new PageReader({
      device: log,
      start: 0,
      pageSize: PAGE,
      mode: readMode.adaptive(),
    });
    const lengths: number[] = [];
    const windows: number[] = [];
    for await (const f of reader) {
      expect(log.events.length - (f.sequence + 1)).toBe(2);
      lengths.push(f.length / KiB);
      windows.push(reader.window / KiB);
      if (lengths.length === 9) break;
    }
    // Three reads go out at the minimum before the first completes.
    expect(lengths).toEqual([128, 128, 128, 256, 512, 1024, 2048, 4096, 8192]);
    expect(windows).toEqual([256, 512, 1024, 2048, 4096, 8192, 8192, 8192, 8192]);
    expect(reader.stats().memoryHighWater).toBeLessThanOrEqual(3 * 8 * MiB);
  });

  it('with concurrentReads 1, chains its reads: one outstanding at a time, still two ahead', async () => {
    const t = await device('memory', 4 * MiB, { segmentSize: 1 * MiB });
    let outstanding = 0;
    let most = 0;
    class Counting extends ReadLog {
      override async read(address: number, into: Uint8Array): Promise<number> {
        most = Math.max(most, ++outstanding);
        try {
          // A macrotask per read, so reads would overlap if the reader let them.
          await new Promise((resolve) => setImmediate(resolve));
          return await super.read(address, into);
        } finally {
          outstanding--;
        }
      }
    }
    const log = new Counting(t.device);
    const reader = new PageReader({
      device: log,
      start: 0,
      pageSize: PAGE,
      mode: readMode.adaptive({
        minReadSize: 64 * KiB,
        maxReadSize: 256 * KiB,
        concurrentReads: 1,
      }),
    });
    const ahead: number[] = [];
    const bytes: Buffer[] = [];
    for await (const f of reader) {
      bytes.push(Buffer.from(f.bytes()));
      // The caller works a while: the chain fills both slots ahead meanwhile.
      for (let i = 0; i < 6; i++) await new Promise((resolve) => setImmediate(resolve));
      ahead.push(log.events.length - (f.sequence + 1));
    }
    expect(most).toBe(1);
    expect(Buffer.concat(bytes).equals(patternBytes(4 * MiB))).toBe(true);
    // Two reads ahead of every frame but the last two.
    expect(ahead.slice(0, -2).every((n) => n === 2)).toBe(true);
    expect(ahead.slice(-2)).toEqual([1, 0]);
  });

  it('rejects concurrentReads outside 1..readsAhead + 1', () => {
    expect(() => readMode.adaptive({ concurrentReads: 0 })).toThrow(/concurrentReads/);
    expect(() => readMode.adaptive({ readsAhead: 1, concurrentReads: 3 })).toThrow(
      /concurrentReads/,
    );
    expect(readMode.adaptive({ concurrentReads: 3 })).toMatchObject({ concurrentReads: 3 });
  });

  it('drops back to the minimum and frees its memory after a short read at the device end', async () => {
    const bytes = 3 * MiB + 5 * PAGE + 77;
    const t = await device('memory', bytes, { segmentSize: MiB });
    const mode = readMode.adaptive({ minReadSize: 64 * KiB, maxReadSize: MiB });
    const reader = new PageReader({
      device: t.device,
      start: 0,
      end: 8 * MiB,
      pageSize: PAGE,
      mode,
    });
    const lengths: number[] = [];
    let sawShort = false;
    for await (const f of reader) {
      lengths.push(f.length);
      if (f.end === bytes) {
        sawShort = true;
        // The short read was just consumed: the window is back at the minimum.
        expect(reader.window).toBe(64 * KiB);
      }
    }
    expect(sawShort).toBe(true);
    expect(lengths.reduce((a, b) => a + b, 0)).toBe(bytes);
    expect(reader.stats().memoryHighWater).toBeGreaterThanOrEqual(MiB);
    expect(reader.memoryBytes).toBe(0);
  });

  it('after a non-sequential read: minimum window, memory freed, nothing read ahead, then grows again', async () => {
    const t = await device('memory', 40 * MiB, { segmentSize: 16 * MiB });
    const reader = new PageReader({
      device: t.device,
      start: 0,
      pageSize: PAGE,
      mode: readMode.adaptive({ readsAhead: 1 }),
    });
    for (let i = 0; i < 9; i++) await reader.next();
    expect(reader.window).toBe(8 * MiB);
    expect(reader.memoryBytes).toBeGreaterThanOrEqual(8 * MiB);

    await reader.seek(20 * MiB + 3 * PAGE);
    const probe = await reader.next();
    expect(probe.done).toBe(false);
    if (probe.done) return;
    expect(probe.value.address).toBe(20 * MiB + 3 * PAGE);
    expect(probe.value.length).toBe(PAGE); // only what the caller needs: the rest of the page
    expect(reader.window).toBe(128 * KiB);
    expect(reader.stats().inFlight).toBe(0); // nothing read ahead after a jump
    expect(reader.memoryBytes).toBe(128 * KiB); // the 8 MiB frames are gone
    expect(
      probe.value.bytes().equals(t.data.subarray(20 * MiB + 3 * PAGE, 20 * MiB + 4 * PAGE)),
    ).toBe(true);

    // One more page-sized probe, then read-ahead resumes from the minimum.
    const lengths: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await reader.next();
      if (!r.done) lengths.push(r.value.length / KiB);
    }
    expect(lengths).toEqual([4, 128, 128, 256, 512]);
    await reader.close();
  });

  it('random page reads do not over-read', async () => {
    const t = await device('memory', 32 * MiB, { segmentSize: 16 * MiB });
    const reader = new PageReader({
      device: t.device,
      start: 0,
      pageSize: 16 * KiB,
      mode: readMode.adaptive(),
    });
    t.device.resetStats();
    let used = 0;
    let x = 12345;
    for (let i = 0; i < 300; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      await reader.seek((x % 2048) * 16 * KiB);
      const r = await reader.next();
      if (!r.done) used += r.value.length;
    }
    const stats = reader.stats();
    expect(used).toBe(300 * 16 * KiB);
    expect(stats.bytesRead).toBe(used);
    expect(t.device.stats().bytesRead).toBe(used);
    await reader.close();
  });

  it('frees its frames at the end of the range', async () => {
    // 40 MiB: the window is at its 8 MiB maximum (no more resizes) when the range ends.
    const t = await device('memory', 40 * MiB, { segmentSize: 16 * MiB });
    const reader = new PageReader({
      device: t.device,
      start: 0,
      pageSize: PAGE,
      mode: readMode.adaptive(),
    });
    const { bytes } = await drain(reader);
    expect(bytes.equals(t.data)).toBe(true);
    expect(reader.memoryBytes).toBe(0);
  });
});

describe('PageReader options', () => {
  it('rejects bad geometry', async () => {
    const t = await device('memory', 64 * KiB, { alignment: 512 });
    const base = { device: t.device, start: 0, pageSize: PAGE, mode: readMode.single() };
    expect(() => new PageReader({ ...base, pageSize: 1000 })).toThrow(/pageSize/);
    expect(() => new PageReader({ ...base, start: 10, end: 5 })).toThrow(/end/);
    expect(() => new PageReader({ ...base, start: -1 })).toThrow(/start/);
    expect(
      () =>
        new PageReader({
          ...base,
          mode: readMode.adaptive({ minReadSize: 1000, maxReadSize: 4000 }),
        }),
    ).toThrow(/alignment/);
    const pool = new FramePool({ frameSize: PAGE, maxFrames: 2 });
    expect(() => new PageReader({ ...base, mode: readMode.adaptive(), pool })).toThrow(/no pool/);
  });

  it('names its mode', () => {
    expect(MODES.map(([, m]) => readModeName(m))).toEqual([
      'single',
      'double',
      'frames3',
      'adaptive',
      'adaptive',
      'adaptive',
    ]);
  });
});
