import { type FileHandle, open } from 'node:fs/promises';
import type { FileDevice } from '@strata/io';
import { PageReader, readMode } from '@strata/pagebuf';
import { measureBestPlainRead, measurePlainRead } from '../plain-read.js';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { GiB, KiB, MiB, mbPerSecond, sizeLabel } from '../sizes.js';
import { median } from '../stats.js';
import { type DataFile, DevicePerVariant, lcg, scan, writeDataFile } from './pagebuf-support.js';

/**
 * Adaptive read-ahead against a fixed small read (Tarantool's xlog cursor:
 * 16 KB fixed -> 128 KB..8 MB adaptive cut recovery from 25 s to 13 s), and
 * a random-access pattern that read-ahead must not inflate.
 *
 * Every variant reads through its own device (`plain`: its own file
 * handle), opened at setup and kept open, so the kernel's per-file
 * read-ahead state of one variant never carries over to another.
 *
 * Sequential variants read the whole file and touch each frame:
 * - `fixed16k`: 16 KiB reads, one at a time (the fixed read-ahead);
 * - `fixed16k-ahead`: 16 KiB reads with 3 in flight (overlap without growth);
 * - `adaptive`: 128 KiB doubling to 8 MiB, one read ahead;
 * - `plain`: plain `FileHandle.read` at the best read size found at setup.
 * Random variants read `randomReads` pages of `randomPageSize` at seeded
 * random page addresses (a point lookup per page), and report bytes read
 * from the device over bytes the caller used:
 * - `random-adaptive`: the adaptive reader, seeking before each page;
 * - `random-ahead128k`: a reader that always reads 128 KiB pages with one
 *   ahead, i.e. read-ahead that does not notice the access is random.
 */

type Params = {
  fileBytes: number;
  fixedReadSize: number;
  randomReads: number;
  randomPageSize: number;
  seed: number;
};

interface State {
  data: DataFile;
  devices: DevicePerVariant;
  /** Kept open across runs, like the devices' handles. */
  plain: FileHandle;
  bestPlain: { mbps: number; readSize: number };
  plainBuffer: Uint8Array;
}

const FIXED = 'fixed16k';
const FIXED_AHEAD = 'fixed16k-ahead';
const ADAPTIVE = 'adaptive';
const PLAIN = 'plain';
const RANDOM_ADAPTIVE = 'random-adaptive';
const RANDOM_AHEAD = 'random-ahead128k';

/** Random page reads through `reader`; returns MB/s of used bytes and the read amplification. */
async function randomReads(
  reader: PageReader,
  device: FileDevice,
  p: Params,
): Promise<{ mbps: number; amplification: number; used: number }> {
  const pages = Math.floor(p.fileBytes / p.randomPageSize);
  const next = lcg(p.seed);
  device.resetStats();
  let used = 0;
  let h = 0;
  const start = performance.now();
  for (let i = 0; i < p.randomReads; i++) {
    const address = Math.floor(next() * pages) * p.randomPageSize;
    await reader.seek(address);
    const r = await reader.next();
    if (r.done) throw new Error(`no page at ${address}`);
    // The caller uses one page from where it asked.
    const n = Math.min(r.value.length, p.randomPageSize);
    h ^= r.value.buffer[r.value.offset + n - 1]!;
    used += n;
  }
  const ms = performance.now() - start;
  await reader.close();
  const read = device.stats().bytesRead;
  if (h === -1) throw new Error('unreachable');
  return { mbps: mbPerSecond(used, ms), amplification: read / used, used };
}

export const pagebufReadahead = defineScenario<Params, State>({
  name: 'pagebuf-readahead',
  description:
    'sequential MB/s: adaptive read-ahead vs fixed 16 KiB reads vs plain; random page reads: read amplification',
  params: {
    full: {
      fileBytes: GiB,
      fixedReadSize: 16 * KiB,
      randomReads: 4096,
      randomPageSize: 16 * KiB,
      seed: 42,
    },
    ci: {
      fileBytes: 64 * MiB,
      fixedReadSize: 16 * KiB,
      randomReads: 512,
      randomPageSize: 16 * KiB,
      seed: 42,
    },
  },
  readsDisk: true,
  runs: { full: 5, ci: 2 },
  variants: [
    higher(FIXED, 'MB/s'),
    higher(FIXED_AHEAD, 'MB/s'),
    higher(ADAPTIVE, 'MB/s'),
    higher(PLAIN, 'MB/s'),
    higher(RANDOM_ADAPTIVE, 'MB/s'),
    higher(RANDOM_AHEAD, 'MB/s'),
  ],
  ratios: [
    `${ADAPTIVE}/${FIXED}`,
    `${ADAPTIVE}/${FIXED_AHEAD}`,
    `${ADAPTIVE}/${PLAIN}`,
    `${RANDOM_ADAPTIVE}/${RANDOM_AHEAD}`,
  ],

  async setup(ctx) {
    const data = await writeDataFile(ctx.dir, ctx.params.fileBytes, ctx.log);
    const plain = await open(data.path, 'r');
    const best = await measureBestPlainRead({
      handle: plain,
      length: ctx.params.fileBytes,
      before: () => ctx.dropCaches(),
    });
    ctx.log(`best plain read: ${best.mbps.toFixed(0)} MB/s at ${sizeLabel(best.readSize)}`);
    return {
      data,
      devices: new DevicePerVariant(data),
      plain,
      bestPlain: { mbps: best.mbps, readSize: best.readSize },
      plainBuffer: new Uint8Array(best.readSize),
    };
  },

  async run(variant, ctx): Promise<number | Measurement> {
    const p = ctx.params;
    const { devices, plain, bestPlain, plainBuffer } = ctx.state;
    const device = devices.get(variant.name);
    switch (variant.name) {
      case PLAIN: {
        const r = await measurePlainRead({
          handle: plain,
          readSize: bestPlain.readSize,
          length: p.fileBytes,
          buffer: plainBuffer,
        });
        return r.mbps;
      }
      case FIXED:
      case FIXED_AHEAD:
      case ADAPTIVE: {
        const mode =
          variant.name === FIXED
            ? readMode.single()
            : variant.name === FIXED_AHEAD
              ? readMode.frames(4)
              : readMode.adaptive();
        device.resetStats();
        const r = await scan(device, mode, p.fixedReadSize, p.fileBytes, 0);
        if (r.bytes !== p.fileBytes) throw new Error(`${variant.name} read ${r.bytes} bytes`);
        const stats = device.stats();
        return {
          value: mbPerSecond(r.bytes, r.milliseconds),
          samples: { reads: stats.reads, amplification: stats.bytesRead / r.bytes },
        };
      }
      case RANDOM_ADAPTIVE:
      case RANDOM_AHEAD: {
        const reader = new PageReader({
          device,
          start: 0,
          end: p.fileBytes,
          pageSize: variant.name === RANDOM_ADAPTIVE ? p.randomPageSize : 128 * KiB,
          mode: variant.name === RANDOM_ADAPTIVE ? readMode.adaptive() : readMode.double(),
        });
        const r = await randomReads(reader, device, p);
        return { value: r.mbps, samples: { amplification: r.amplification } };
      }
      default:
        throw new Error(`pagebuf-readahead: unknown variant ${variant.name}`);
    }
  },

  metrics(results, ctx) {
    const perRun = (a: string, b: string) => {
      const av = results.get(a).values;
      const bv = results.get(b).values;
      return median(av.map((v, i) => v / bv[i]!));
    };
    return {
      random_read_amplification: median(results.samples(RANDOM_ADAPTIVE, 'amplification')),
      random_read_amplification_ahead128k: median(results.samples(RANDOM_AHEAD, 'amplification')),
      adaptive_over_best_plain: perRun(ADAPTIVE, PLAIN),
      best_plain_mbps: results.median(PLAIN),
      best_plain_read_size_kib: ctx.state.bestPlain.readSize / KiB,
      setup_best_plain_mbps: ctx.state.bestPlain.mbps,
    };
  },

  async teardown(ctx) {
    await ctx.state.devices.closeAll();
    await ctx.state.plain.close();
  },
});
