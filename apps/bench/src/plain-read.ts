import { type FileHandle, open } from 'node:fs/promises';
import { KiB, MiB, mbPerSecond } from './sizes.js';

/**
 * The plain-read limit: how fast Node reads a file sequentially with
 * `FileHandle.read` into one reused buffer, one read in flight. Scenarios
 * that claim "near the device's sequential speed" (pagebuf scans, hlog
 * recovery, DBSIZE) measure it in the same run and report their ratio to it.
 */

/** Read sizes tried by `measureBestPlainRead` by default: 16 KiB to 8 MiB. */
export const PLAIN_READ_SIZES: readonly number[] = [16 * KiB, 64 * KiB, 256 * KiB, MiB, 8 * MiB];

export interface PlainReadResult {
  readSize: number;
  bytes: number;
  milliseconds: number;
  mbps: number;
}

export interface PlainReadOptions {
  /**
   * A handle kept open by the caller (not closed here), or a `path` to open,
   * read and close. Prefer a kept handle, opened in `setup`, when comparing
   * with a device: a device keeps its segment handles open, and the kernel's
   * readahead state lives in the open file, so that is like for like.
   */
  handle?: FileHandle;
  path?: string;
  readSize: number;
  /** Read `[0, length)`; default the whole file. */
  length?: number;
  /** A preallocated buffer of at least `readSize` bytes; allocated once if absent. */
  buffer?: Uint8Array;
}

/**
 * Reads the file from offset 0 sequentially, `readSize` bytes at a time into
 * the same buffer (nothing allocated per read), and times it (the open is
 * not timed). Stops at `length` or end of file.
 */
export async function measurePlainRead(options: PlainReadOptions): Promise<PlainReadResult> {
  const { readSize } = options;
  if (!Number.isInteger(readSize) || readSize <= 0) {
    throw new RangeError(`readSize must be a positive integer, got ${readSize}`);
  }
  const buffer = options.buffer ?? new Uint8Array(readSize);
  if (buffer.byteLength < readSize) {
    throw new RangeError(`buffer of ${buffer.byteLength} bytes < readSize ${readSize}`);
  }
  if ((options.path === undefined) === (options.handle === undefined)) {
    throw new TypeError('measurePlainRead needs one of path and handle');
  }
  const handle = options.handle ?? (await open(options.path!, 'r'));
  try {
    const length = options.length ?? (await handle.stat()).size;
    let position = 0;
    const start = performance.now();
    while (position < length) {
      const want = Math.min(readSize, length - position);
      const { bytesRead } = await handle.read(buffer, 0, want, position);
      if (bytesRead === 0) break;
      position += bytesRead;
    }
    const milliseconds = performance.now() - start;
    return { readSize, bytes: position, milliseconds, mbps: mbPerSecond(position, milliseconds) };
  } finally {
    if (options.handle === undefined) await handle.close();
  }
}

export interface BestPlainReadOptions {
  /** A handle kept open by the caller (preferred, see `PlainReadOptions.handle`)... */
  handle?: FileHandle;
  /** ...or a file to open once for every measurement, closed at the end. */
  path?: string;
  /** Read sizes to try; default `PLAIN_READ_SIZES`. */
  readSizes?: readonly number[];
  /** Read `[0, length)` each time; default the whole file. */
  length?: number;
  /** Attempts per read size; the fastest counts. Default 1. */
  attempts?: number;
  /**
   * Called before every read, e.g. the scenario's `ctx.dropCaches`, so the
   * limit is measured from the device and not from the page cache.
   */
  before?: () => Promise<unknown>;
  /** A preallocated buffer of at least the largest read size. */
  buffer?: Uint8Array;
}

export interface BestPlainRead {
  /** The best MB/s over every read size. */
  mbps: number;
  /** The read size that achieved it. */
  readSize: number;
  /** Each read size's best attempt, in the order tried. */
  results: PlainReadResult[];
}

/** The fastest plain sequential read of a file over several read sizes. */
export async function measureBestPlainRead(options: BestPlainReadOptions): Promise<BestPlainRead> {
  const readSizes = options.readSizes ?? PLAIN_READ_SIZES;
  if (readSizes.length === 0) throw new RangeError('no read sizes');
  const attempts = options.attempts ?? 1;
  const buffer = options.buffer ?? new Uint8Array(Math.max(...readSizes));
  if ((options.path === undefined) === (options.handle === undefined)) {
    throw new TypeError('measureBestPlainRead needs one of path and handle');
  }
  const handle = options.handle ?? (await open(options.path!, 'r'));
  const results: PlainReadResult[] = [];
  try {
    for (const readSize of readSizes) {
      let best: PlainReadResult | undefined;
      for (let i = 0; i < attempts; i++) {
        await options.before?.();
        const r = await measurePlainRead({
          handle,
          readSize,
          buffer,
          ...(options.length === undefined ? {} : { length: options.length }),
        });
        if (!best || r.mbps > best.mbps) best = r;
      }
      results.push(best!);
    }
  } finally {
    if (options.handle === undefined) await handle.close();
  }
  const best = results.reduce((a, b) => (b.mbps > a.mbps ? b : a));
  return { mbps: best.mbps, readSize: best.readSize, results };
}
