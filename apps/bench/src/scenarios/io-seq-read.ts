import { randomFillSync } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { FileDevice } from '@strata/io';
import { measurePlainRead } from '../plain-read.js';
import { defineScenario, higher } from '../scenario.js';
import { GiB, KiB, MiB, mbPerSecond, nextPowerOfTwo, sizeLabel } from '../sizes.js';

/**
 * Sequential read throughput of the file device, for several read sizes and
 * reads in flight, beside plain `FileHandle.read` of the same file: the
 * physical limit later scan and recovery work is held to.
 */

type Params = {
  /** Size of the data file. */
  fileBytes: number;
  readSizes: readonly number[];
  /** Reads in flight for the file device variants. */
  inFlight: readonly number[];
};

/** One variant: `file-<size>-q<n>` (FileDevice) or `fs-<size>` (plain reads). */
interface Plan {
  name: string;
  kind: 'file' | 'fs';
  readSize: number;
  inFlight: number;
}

/** Each variant's own reader, opened once in setup. */
type Reader = Plan & ({ kind: 'file'; device: FileDevice } | { kind: 'fs'; handle: FileHandle });

interface State {
  readers: Map<string, Reader>;
  /** One buffer per lane, each as large as the largest read. */
  buffers: Uint8Array[];
}

const NAME = 'seq';
const fileVariant = (size: number, q: number) => `file-${sizeLabel(size)}-q${q}`;
const fsVariant = (size: number) => `fs-${sizeLabel(size)}`;

function plan(p: Params): Plan[] {
  return p.readSizes.flatMap((readSize): Plan[] => [
    ...p.inFlight.map((inFlight) => ({
      name: fileVariant(readSize, inFlight),
      kind: 'file' as const,
      readSize,
      inFlight,
    })),
    { name: fsVariant(readSize), kind: 'fs', readSize, inFlight: 1 },
  ]);
}

/** Reads `[0, total)` in order with `lanes.length` reads in flight; returns bytes read. */
async function readSequential(
  device: FileDevice,
  total: number,
  lanes: readonly Uint8Array[],
): Promise<number> {
  let next = 0;
  let bytes = 0;
  const lane = async (buffer: Uint8Array) => {
    while (next < total) {
      const address = next;
      next += buffer.byteLength;
      // Not `bytes += await ...`: that reads `bytes` before the await and
      // loses the other lanes' updates.
      const n = await device.read(address, buffer);
      bytes += n;
    }
  };
  await Promise.all(lanes.map(lane));
  return bytes;
}

/** Writes `fileBytes` of random data as segment 0 of a device in `dir`. */
async function writeDataFile(dir: string, fileBytes: number, segmentSize: number): Promise<void> {
  const writer = new FileDevice({ dir, name: NAME, segmentSize });
  try {
    const chunk = new Uint8Array(Math.min(8 * MiB, fileBytes));
    randomFillSync(chunk);
    for (let address = 0; address < fileBytes; address += chunk.byteLength) {
      chunk[0] = address / chunk.byteLength; // no two chunks identical
      const length = Math.min(chunk.byteLength, fileBytes - address);
      await writer.write(address, chunk.subarray(0, length));
    }
    await writer.sync();
  } finally {
    await writer.close();
  }
}

export const ioSeqRead = defineScenario<Params, State>({
  name: 'io-seq-read',
  description: 'sequential read MB/s: FileDevice (read sizes x reads in flight) vs plain fs reads',
  params: {
    full: {
      fileBytes: GiB,
      readSizes: [16 * KiB, 64 * KiB, 256 * KiB, MiB, 8 * MiB],
      inFlight: [1, 2, 4],
    },
    ci: {
      fileBytes: 64 * MiB,
      readSizes: [64 * KiB, MiB, 8 * MiB],
      inFlight: [1, 4],
    },
  },
  readsDisk: true,
  variants: (p) => plan(p).map((v) => higher(v.name, 'MB/s')),
  // The device at one read in flight against plain reads (its overhead), and
  // at the most reads in flight (what keeping reads in flight buys).
  ratios: (p) => {
    const qs = [...new Set([Math.min(...p.inFlight), Math.max(...p.inFlight)])];
    return p.readSizes.flatMap((size) =>
      qs.map((q) => `${fileVariant(size, q)}/${fsVariant(size)}`),
    );
  },

  async setup(ctx) {
    const { fileBytes, readSizes, inFlight } = ctx.params;
    // One segment holds the whole file, so `<dir>/seq.0` is the same bytes
    // for the plain reads.
    const segmentSize = Math.max(nextPowerOfTwo(fileBytes), MiB);
    ctx.log(`writing a ${fileBytes / MiB} MiB data file in ${ctx.dir}`);
    await writeDataFile(ctx.dir, fileBytes, segmentSize);

    // Every variant reads through its own open file (a FileDevice, or a
    // FileHandle for plain reads), kept open across runs as a device keeps
    // its segment handles. The kernel's readahead state lives in the open
    // file: separate ones keep one variant's access pattern from carrying
    // into the next.
    const readers = new Map<string, Reader>();
    try {
      for (const p of plan(ctx.params)) {
        readers.set(
          p.name,
          p.kind === 'file'
            ? {
                ...p,
                kind: 'file',
                device: new FileDevice({ dir: ctx.dir, name: NAME, segmentSize }),
              }
            : { ...p, kind: 'fs', handle: await open(path.join(ctx.dir, `${NAME}.0`), 'r') },
        );
      }
    } catch (error) {
      await closeReaders(readers);
      throw error;
    }
    const largest = Math.max(...readSizes);
    const buffers = Array.from({ length: Math.max(...inFlight) }, () => new Uint8Array(largest));
    return { readers, buffers };
  },

  async run(variant, ctx) {
    const { fileBytes } = ctx.params;
    const { readers, buffers } = ctx.state;
    const reader = readers.get(variant.name)!;
    if (reader.kind === 'fs') {
      const r = await measurePlainRead({
        handle: reader.handle,
        readSize: reader.readSize,
        length: fileBytes,
        buffer: buffers[0],
      });
      if (r.bytes !== fileBytes) throw new Error(`plain read got ${r.bytes} of ${fileBytes} bytes`);
      return r.mbps;
    }
    const lanes = buffers.slice(0, reader.inFlight).map((b) => b.subarray(0, reader.readSize));
    const start = performance.now();
    const bytes = await readSequential(reader.device, fileBytes, lanes);
    const ms = performance.now() - start;
    if (bytes !== fileBytes) throw new Error(`device read ${bytes} of ${fileBytes} bytes`);
    return mbPerSecond(bytes, ms);
  },

  metrics(results) {
    const best = (prefix: string) =>
      Math.max(
        ...results.variants.filter((v) => v.variant.name.startsWith(prefix)).map((v) => v.median),
      );
    const bestPlain = best('fs-');
    const bestFile = best('file-');
    return {
      best_plain_mbps: bestPlain,
      best_file_mbps: bestFile,
      best_file_over_plain: bestFile / bestPlain,
    };
  },

  async teardown(ctx) {
    await closeReaders(ctx.state.readers);
  },
});

async function closeReaders(readers: Map<string, Reader>): Promise<void> {
  await Promise.all(
    [...readers.values()].map((r) => (r.kind === 'file' ? r.device.close() : r.handle.close())),
  );
}
