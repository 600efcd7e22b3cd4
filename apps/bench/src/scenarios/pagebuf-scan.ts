import { type FileHandle, open } from 'node:fs/promises';
import { parseReadMode, type ReadMode, readMode } from '@strata/pagebuf';
import { measureBestPlainRead, measurePlainRead } from '../plain-read.js';
import { defineScenario, higher, type Variant } from '../scenario.js';
import { GiB, KiB, MiB, mbPerSecond, sizeLabel } from '../sizes.js';
import { median } from '../stats.js';
import {
  type DataFile,
  DevicePerVariant,
  measureChecksumNsPerVisit,
  scan,
  writeDataFile,
} from './pagebuf-support.js';

/**
 * A whole-log scan (DBSIZE, recovery) over a file-backed log, with a CPU
 * cost per page about equal to the page's read time, in each buffering mode:
 * does reading page n+1 while page n is processed pay (Garnet: 9.8 s -> 6.8 s,
 * 1.44x), and how close does adaptive read-ahead come to a plain read of the
 * same file?
 *
 * Pages are 32 MiB (FASTER's and Garnet's default log page). The page size
 * matters on Linux: the device does buffered IO, and the kernel's own
 * read-ahead (`read_ahead_kb`, often several MiB) already reads small pages
 * ahead while the CPU works, so `single` overlaps IO and CPU by accident;
 * FASTER avoids the page cache (unbuffered IO) and gets no such help. The
 * `-p1m` variants scan the same file in 1 MiB pages to show that effect.
 *
 * Every variant reads through its own device (`plain`: its own file
 * handle), opened at setup and kept open, so the kernel's per-file
 * read-ahead state of one variant never carries over to another.
 *
 * The per-page work is a checksum loop (see `checksum`) calibrated at setup
 * so that processing a page takes as long as reading it at the best plain
 * sequential speed measured then (`processingCost: 'single-read'` uses the
 * slower single-buffered read time instead). Processing and reading then
 * cost the same: with no overlap a scan runs at half the device's speed,
 * with perfect overlap at its full speed.
 */

type Params = {
  fileBytes: number;
  pageSize: number;
  modes: readonly string[];
  /** Page size of the `-p1m`-style variants (the kernel read-ahead contrast). */
  smallPageSize: number;
  smallModes: readonly string[];
  /**
   * What the per-page work is calibrated to: a page's read time at the best
   * plain sequential speed (`best-plain-read`: processing keeps pace with the
   * device at its best, so a perfect overlap reaches the plain read), or as a
   * single-buffered scan sees it (`single-read`, slower: a lower ceiling).
   */
  processingCost: 'best-plain-read' | 'single-read';
};

interface State {
  data: DataFile;
  singleReadUs: number;
  devices: DevicePerVariant;
  /** Kept open across runs, like the devices' handles. */
  plain: FileHandle;
  /** Checksum visits per byte so that processing a page takes about its read time. */
  visitsPerByte: number;
  pageReadUs: number;
  pageProcessUs: number;
  bestPlain: { mbps: number; readSize: number };
  plainBuffer: Uint8Array;
}

const PLAIN = 'plain';
const MODES = ['single', 'double', 'frames4', 'adaptive'];

const smallVariant = (mode: string, p: Params) => `${mode}-p${sizeLabel(p.smallPageSize)}`;

/** The read mode and page size of a variant name: `double`, or `double-p1m`. */
function parseVariant(name: string, p: Params): { mode: ReadMode; pageSize: number } {
  const dash = name.indexOf('-p');
  return dash < 0
    ? { mode: parseReadMode(name), pageSize: p.pageSize }
    : { mode: parseReadMode(name.slice(0, dash)), pageSize: p.smallPageSize };
}

export const pagebufScan = defineScenario<Params, State>({
  name: 'pagebuf-scan',
  description:
    'whole-log scan MB/s with per-page CPU work ~ page read time: single, double, frames4, adaptive vs plain read',
  params: {
    full: {
      fileBytes: GiB,
      pageSize: 32 * MiB,
      modes: MODES,
      smallPageSize: MiB,
      smallModes: ['single', 'double'],
      processingCost: 'best-plain-read',
    },
    ci: {
      fileBytes: 64 * MiB,
      pageSize: 8 * MiB,
      modes: MODES,
      smallPageSize: MiB,
      smallModes: ['single', 'double'],
      processingCost: 'best-plain-read',
    },
  },
  readsDisk: true,
  runs: { full: 7, ci: 2 },
  variants: (p): Variant[] => [
    ...p.modes.map((m) => higher(m, 'MB/s')),
    higher(PLAIN, 'MB/s'),
    ...p.smallModes.map((m) => higher(smallVariant(m, p), 'MB/s')),
  ],
  ratios: (p) => [
    'double/single',
    'adaptive/single',
    'frames4/single',
    'adaptive/double',
    `adaptive/${PLAIN}`,
    ...(p.smallModes.includes('single') && p.smallModes.includes('double')
      ? [`${smallVariant('double', p)}/${smallVariant('single', p)}`]
      : []),
  ],

  async setup(ctx) {
    const { fileBytes, pageSize } = ctx.params;
    const data = await writeDataFile(ctx.dir, fileBytes, ctx.log);
    const devices = new DevicePerVariant(data);
    const plain = await open(data.path, 'r');

    // The best plain sequential read of the file (cache dropped before each
    // read size): the `plain` variant's read size, and the device's speed.
    const best = await measureBestPlainRead({
      handle: plain,
      length: fileBytes,
      before: () => ctx.dropCaches(),
    });
    ctx.log(`best plain read: ${best.mbps.toFixed(0)} MB/s at ${sizeLabel(best.readSize)}`);

    // A page's read time as a single-buffered scan sees it (cold, averaged
    // over two scans)...
    let readMs = 0;
    for (let i = 0; i < 2; i++) {
      await ctx.dropCaches();
      const r = await scan(devices.get('calibration'), readMode.single(), pageSize, fileBytes, 0);
      readMs += r.milliseconds / 2;
    }
    const pages = fileBytes / pageSize;
    const singleReadUs = (readMs * 1000) / pages;
    // ...or at the device's best sequential speed: the faster of the best
    // plain read and the single-buffered scan (one disturbed measurement on a
    // shared machine must not make the work heavier than the device is fast).
    const bestReadUs = Math.min((pageSize / (best.mbps * 1e6)) * 1e6, singleReadUs);
    const pageReadUs = ctx.params.processingCost === 'single-read' ? singleReadUs : bestReadUs;
    // Measured over a whole page, not a cache-sized piece, as the scan will run it.
    const nsPerVisit = measureChecksumNsPerVisit(pageSize);
    const visitsPerByte = (pageReadUs * 1000) / (nsPerVisit * pageSize);
    const pageProcessUs = (visitsPerByte * pageSize * nsPerVisit) / 1000;
    ctx.log(
      `page read ${singleReadUs.toFixed(0)} us single-buffered, ${bestReadUs.toFixed(0)} us at ` +
        `the best plain speed (${sizeLabel(pageSize)} pages, cold); processing ${ctx.params.processingCost}: ` +
        `checksum ${nsPerVisit.toFixed(3)} ns/byte -> ${visitsPerByte.toFixed(2)} visits/byte`,
    );
    return {
      data,
      devices,
      plain,
      visitsPerByte,
      singleReadUs,
      pageReadUs,
      pageProcessUs,
      bestPlain: { mbps: best.mbps, readSize: best.readSize },
      plainBuffer: new Uint8Array(best.readSize),
    };
  },

  async run(variant, ctx) {
    const { fileBytes } = ctx.params;
    const { devices, plain, visitsPerByte, bestPlain, plainBuffer } = ctx.state;
    if (variant.name === PLAIN) {
      const r = await measurePlainRead({
        handle: plain,
        readSize: bestPlain.readSize,
        length: fileBytes,
        buffer: plainBuffer,
      });
      return r.mbps;
    }
    const { mode, pageSize } = parseVariant(variant.name, ctx.params);
    const r = await scan(devices.get(variant.name), mode, pageSize, fileBytes, visitsPerByte);
    if (r.bytes !== fileBytes) {
      throw new Error(`${variant.name} scanned ${r.bytes} of ${fileBytes}`);
    }
    return {
      value: mbPerSecond(r.bytes, r.milliseconds),
      samples: {
        // Share of the scan's wall time spent in the per-page work: 0.5 means
        // no overlap at all (read, then process), 1.0 means IO fully hidden.
        process_share: r.processMs / r.milliseconds,
      },
    };
  },

  metrics(results, ctx) {
    const cpuBound = mbPerSecond(ctx.params.pageSize, ctx.state.pageProcessUs / 1000);
    const perRun = (a: string, b: string) => {
      const av = results.get(a).values;
      const bv = results.get(b).values;
      return median(av.map((v, i) => v / bv[i]!));
    };
    return {
      adaptive_over_best_plain: perRun('adaptive', PLAIN),
      double_over_single: perRun('double', 'single'),
      best_plain_mbps: results.median(PLAIN),
      best_plain_read_size_kib: ctx.state.bestPlain.readSize / KiB,
      // The best over every read size at setup (the `plain` variant re-reads
      // at that size in every round, beside the others).
      setup_best_plain_mbps: ctx.state.bestPlain.mbps,
      page_read_us: ctx.state.pageReadUs,
      single_page_read_us: ctx.state.singleReadUs,
      page_process_us: ctx.state.pageProcessUs,
      // The ceiling of any scan here: the per-page work alone, as calibrated
      // (= the cold single-buffered read speed, by construction).
      cpu_bound_mbps: cpuBound,
      adaptive_over_cpu_bound: results.median('adaptive') / cpuBound,
      double_over_cpu_bound: results.median('double') / cpuBound,
    };
  },

  async teardown(ctx) {
    await ctx.state.devices.closeAll();
    await ctx.state.plain.close();
  },
});
