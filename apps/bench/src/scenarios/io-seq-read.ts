import { randomFillSync } from 'node:crypto';
import path from 'node:path';
import { FileDevice } from '@strata/io';
import { measurePlainRead } from '../plain-read.js';
import { defineScenario, higher, type Variant } from '../scenario.js';
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

const fileVariant = (size: number, q: number) => `file-${sizeLabel(size)}-q${q}`;
const fsVariant = (size: number) => `fs-${sizeLabel(size)}`;
const NAME = 'seq';

interface State {
  device: FileDevice;
  /** The device's one segment file, read by the plain variants. */
  file: string;
  /** One buffer per lane, each as large as the largest read. */
  buffers: Uint8Array[];
}

function parseVariant(name: string): { kind: 'file' | 'fs'; readSize: number; inFlight: number } {
  const m = /^(file|fs)-(\d+)([kmg])(?:-q(\d+))?$/.exec(name);
  if (!m) throw new Error(`io-seq-read: bad variant ${name}`);
  const unit = m[3] === 'k' ? KiB : m[3] === 'm' ? MiB : GiB;
  return {
    kind: m[1] as 'file' | 'fs',
    readSize: Number(m[2]) * unit,
    inFlight: m[4] ? Number(m[4]) : 1,
  };
}

/** Reads `[0, total)` in order with `buffers.length` reads in flight; returns bytes read. */
async function readSequential(
  device: FileDevice,
  total: number,
  buffers: readonly Uint8Array[],
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
  await Promise.all(buffers.map(lane));
  return bytes;
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
  variants: (p) => {
    const variants: Variant[] = [];
    for (const size of p.readSizes) {
      for (const q of p.inFlight) variants.push(higher(fileVariant(size, q), 'MB/s'));
      variants.push(higher(fsVariant(size), 'MB/s'));
    }
    return variants;
  },
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
    const device = new FileDevice({ dir: ctx.dir, name: NAME, segmentSize });
    const chunk = new Uint8Array(Math.min(8 * MiB, fileBytes));
    randomFillSync(chunk);
    ctx.log(`writing a ${fileBytes / MiB} MiB data file in ${ctx.dir}`);
    for (let address = 0; address < fileBytes; address += chunk.byteLength) {
      chunk[0] = address / chunk.byteLength; // no two chunks identical
      await device.write(
        address,
        chunk.subarray(0, Math.min(chunk.byteLength, fileBytes - address)),
      );
    }
    await device.sync();
    const largest = Math.max(...readSizes);
    const buffers = Array.from({ length: Math.max(...inFlight) }, () => new Uint8Array(largest));
    return { device, file: path.join(ctx.dir, `${NAME}.0`), buffers };
  },

  async run(variant, ctx) {
    const { fileBytes } = ctx.params;
    const { device, file, buffers } = ctx.state;
    const { kind, readSize, inFlight } = parseVariant(variant.name);
    if (kind === 'fs') {
      const r = await measurePlainRead({
        path: file,
        readSize,
        length: fileBytes,
        buffer: buffers[0],
      });
      if (r.bytes !== fileBytes) throw new Error(`plain read got ${r.bytes} of ${fileBytes} bytes`);
      return r.mbps;
    }
    const lanes = buffers.slice(0, inFlight).map((b) => b.subarray(0, readSize));
    const start = performance.now();
    const bytes = await readSequential(device, fileBytes, lanes);
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
    await ctx.state.device.close();
  },
});
