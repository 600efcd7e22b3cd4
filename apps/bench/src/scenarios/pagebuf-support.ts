import { randomFillSync } from 'node:crypto';
import path from 'node:path';
import { FileDevice } from '@strata/io';
import { type Frame, PageReader, type ReadMode } from '@strata/pagebuf';
import { MiB, nextPowerOfTwo } from '../sizes.js';

/**
 * Helpers shared by the pagebuf scenarios: a file-backed log, a scan loop
 * over a page reader, and a CPU loop whose cost per byte is calibrated.
 */

export interface DataFile {
  dir: string;
  name: string;
  segmentSize: number;
  bytes: number;
  /** The log's single segment file: the same bytes, for plain `fs` reads. */
  path: string;
}

/** Writes `bytes` of random data through a file device with one segment (so one file). */
export async function writeDataFile(
  dir: string,
  bytes: number,
  log: (line: string) => void,
): Promise<DataFile> {
  const name = 'log';
  const segmentSize = Math.max(nextPowerOfTwo(bytes), MiB);
  const device = new FileDevice({ dir, name, segmentSize });
  const chunk = new Uint8Array(Math.min(8 * MiB, bytes));
  randomFillSync(chunk);
  log(`writing a ${(bytes / MiB).toFixed(0)} MiB log in ${dir}`);
  for (let address = 0; address < bytes; address += chunk.byteLength) {
    chunk[0] = address / chunk.byteLength; // no two chunks identical
    await device.write(address, chunk.subarray(0, Math.min(chunk.byteLength, bytes - address)));
  }
  await device.sync();
  await device.close();
  return { dir, name, segmentSize, bytes, path: path.join(dir, `${name}.0`) };
}

/**
 * A device of its own over the log. Each variant reads through its own
 * device, opened at setup and kept: the kernel's read-ahead state lives in
 * the open file, so variants sharing one would disturb each other (a random
 * pattern shrinks the window the next sequential one starts from).
 */
export function openLog(data: DataFile): FileDevice {
  return new FileDevice({ dir: data.dir, name: data.name, segmentSize: data.segmentSize });
}

/** One device per name, opened once; `closeAll` at teardown. */
export class DevicePerVariant {
  readonly #devices = new Map<string, FileDevice>();
  constructor(readonly data: DataFile) {}

  get(name: string): FileDevice {
    let device = this.#devices.get(name);
    if (device === undefined) {
      device = openLog(this.data);
      this.#devices.set(name, device);
    }
    return device;
  }

  async closeAll(): Promise<void> {
    for (const device of this.#devices.values()) await device.close();
    this.#devices.clear();
  }
}

/**
 * The per-page work of a scan: an FNV-style hash over the frame's bytes,
 * `visits` byte visits in all (whole passes, then a prefix), so the cost can
 * be set to any multiple of one pass. Returns the hash so the JIT cannot drop it.
 */
export function checksum(
  buffer: Uint8Array,
  offset: number,
  length: number,
  visits: number,
  seed: number,
): number {
  let h = seed | 0;
  let left = visits;
  while (left > 0) {
    const n = Math.min(length, left);
    const end = offset + n;
    for (let i = offset; i < end; i++) h = Math.imul(h ^ buffer[i]!, 16777619);
    left -= n;
  }
  return h;
}

/** Nanoseconds per byte visit of `checksum`, measured after a warm-up. */
export function measureChecksumNsPerVisit(pageSize: number): number {
  const page = new Uint8Array(pageSize);
  randomFillSync(page);
  let h = 0;
  const warm = performance.now();
  while (performance.now() - warm < 100) h = checksum(page, 0, pageSize, pageSize, h);
  let visits = 0;
  const start = performance.now();
  while (performance.now() - start < 300) {
    h = checksum(page, 0, pageSize, pageSize, h);
    visits += pageSize;
  }
  const ns = ((performance.now() - start) * 1e6) / visits;
  if (h === 0x7fffffff) process.stderr.write(''); // keep h alive
  return ns;
}

export interface ScanResult {
  bytes: number;
  milliseconds: number;
  /** Time spent in the per-frame work. */
  processMs: number;
  frames: number;
  hash: number;
}

/**
 * Reads `[0, end)` through a page reader in `mode`, doing `visitsPerByte`
 * checksum visits per byte of each frame (0 = just touch the frame).
 */
export async function scan(
  device: FileDevice,
  mode: ReadMode,
  pageSize: number,
  end: number,
  visitsPerByte: number,
): Promise<ScanResult> {
  const reader = new PageReader({ device, start: 0, end, pageSize, mode });
  let bytes = 0;
  let frames = 0;
  let hash = 0;
  let processMs = 0;
  const start = performance.now();
  for await (const f of reader) {
    bytes += f.length;
    frames++;
    if (visitsPerByte > 0) {
      const t = performance.now();
      hash = work(f, visitsPerByte, hash);
      processMs += performance.now() - t;
    } else {
      hash ^= f.buffer[f.offset]!;
    }
  }
  const milliseconds = performance.now() - start;
  await reader.close();
  return { bytes, milliseconds, processMs, frames, hash };
}

function work(f: Frame, visitsPerByte: number, hash: number): number {
  return checksum(f.buffer, f.offset, f.length, Math.round(f.length * visitsPerByte), hash);
}

/** A small seeded generator (LCG): the same random addresses for every run and variant. */
export function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}
