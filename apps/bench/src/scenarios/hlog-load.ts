import { fork } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Store } from '@strata/hlog';
import { MemoryDevice } from '@strata/io';
import { bytesToMiB, startRssSampler } from '../rss.js';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { KiB, MiB } from '../sizes.js';
import { median } from '../stats.js';
import { loadMap, loadStore } from './hlog-support.js';

/**
 * Insert N keys (16-byte keys, 100-byte values) into the store, on files,
 * with log memory about 1/16 of the data, beside a `Map<string, Buffer>`
 * keyed by `key.toString('latin1')` that holds everything in RAM.
 *
 * Per-insert cost must stay flat as the log grows (page allocation is O(1)
 * however many pages exist), and the inserts that open a new page must not
 * be much slower than the others. `prep_p99_us` shows the inserts that
 * prepare the next page ahead of its opening (they move `head` or
 * `readOnly`), so that work moved off the page-opening insert stays visible. `store` runs on files in the scenario's
 * directory; `store-memdev` on a MemoryDevice (a fast fake disk), which
 * separates the engine's own costs from the disk's write latency.
 *
 * Each variant's run happens in a child process of its own (the bench CLI
 * forked with a job in its environment), so `peak_rss_mb` is that variant's
 * alone: the process's peak RSS (`maxRSS`), not polluted by a 10M-entry Map
 * loaded earlier in the same process. `bytes_per_key` is (peak RSS - RSS
 * before the store or Map was created) / keys: everything the variant made
 * resident, per key (the store's log memory, index and heap; for
 * `store-memdev` also the fake disk's copy of the log).
 */

type Params = {
  keys: number;
  keyBytes: number;
  valueBytes: number;
  pageSize: number;
  /** Log memory over data bytes (records of ~136 bytes). */
  memoryShare: number;
  indexBuckets: number;
  mutableFraction: number;
};

const STORE = 'store';
/** The same store over a MemoryDevice: the engine without the disk's jitter. */
const STORE_MEMDEV = 'store-memdev';
const MAP = 'map';
const RECORD_BYTES = 136;

function memoryFor(p: Params): number {
  const data = p.keys * RECORD_BYTES;
  const pages = Math.max(16, Math.round((data * p.memoryShare) / p.pageSize));
  return pages * p.pageSize;
}

interface Job {
  variant: string;
  params: Params;
  dir: string;
  run: number;
}

type Reply = { ok: true; measurement: Measurement } | { ok: false; error: string };

/** Environment variable that carries a child's job (JSON). */
const CHILD_JOB = 'STRATA_BENCH_HLOG_LOAD_JOB';

/** Runs in a child process when the bench CLI is the entry point (not under a test runner). */
function isolated(): boolean {
  return path.basename(process.argv[1] ?? '') === 'cli.js' && process.env[CHILD_JOB] === undefined;
}

/**
 * Forks the bench CLI (harmlessly asked for `--help`, output discarded)
 * with the job in its environment: this module, loaded in the child, runs
 * the job and sends the measurement back.
 */
function measureInChild(job: Job): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = fork(process.argv[1]!, ['--help'], {
      env: { ...process.env, [CHILD_JOB]: JSON.stringify(job) },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    let reply: Reply | undefined;
    child.on('message', (m) => {
      reply = m as Reply;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (reply?.ok) resolve(reply.measurement);
      else if (reply) reject(new Error(`hlog-load child (${job.variant}): ${reply.error}`));
      else reject(new Error(`hlog-load child (${job.variant}) exited: ${code ?? signal}`));
    });
  });
}

const childJob = process.env[CHILD_JOB];
if (childJob !== undefined && process.send !== undefined) {
  const send = (reply: Reply): void => {
    process.send!(reply, undefined, {}, () => process.disconnect());
  };
  measure(JSON.parse(childJob) as Job).then(
    (measurement) => send({ ok: true, measurement }),
    (e: unknown) =>
      send({ ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  );
}

/** RSS now, and a way to read the peak since then. */
function rssWatch(): { base: number; peak(): number } {
  const base = process.memoryUsage.rss();
  if (process.env[CHILD_JOB] !== undefined) {
    // A process of its own: the kernel's peak is this variant's.
    return { base, peak: () => process.resourceUsage().maxRSS * 1024 };
  }
  const sampler = startRssSampler(20);
  return { base, peak: () => sampler.stop() };
}

async function measure(job: Job): Promise<Measurement> {
  const p = job.params;
  const rss = rssWatch();
  if (job.variant === MAP) {
    const map = new Map<string, Buffer>();
    const r = await loadMap(map, p.keys, p.valueBytes, p.keyBytes);
    const peak = rss.peak();
    if (map.size !== p.keys) throw new Error(`map holds ${map.size} keys`);
    const tenth = Math.max(1, Math.floor(p.keys / 10));
    return {
      value: p.keys / (r.ms / 1000),
      samples: {
        insert_cost_last_over_first: r.lastMs / tenth / (r.firstMs / tenth),
        rest_p99_us: r.rest.percentile(99),
        peak_rss_mb: bytesToMiB(peak),
        rss_base_mb: bytesToMiB(rss.base),
        bytes_per_key: (peak - rss.base) / p.keys,
      },
    };
  }
  const dir = path.join(job.dir, `store-${job.run}`);
  await rm(dir, { recursive: true, force: true });
  const memory = memoryFor(p);
  const store = await Store.open({
    ...(job.variant === STORE_MEMDEV
      ? { device: new MemoryDevice({ segmentSize: 256 * MiB }) }
      : { dir }),
    memory,
    pageSize: p.pageSize,
    segmentSize: 256 * MiB,
    indexBuckets: p.indexBuckets,
    mutableFraction: p.mutableFraction,
    checkpoints: null,
    expiry: false,
  });
  try {
    const r = await loadStore(store, p.keys, p.valueBytes, p.keyBytes);
    const peak = rss.peak();
    const st = store.stats();
    if (st.index.entries < p.keys * 0.99) throw new Error(`index holds ${st.index.entries} keys`);
    if (st.log.memoryBytes > memory) throw new Error('log memory over budget');
    const alloc = r.alloc.percentile(99);
    const rest = r.rest.percentile(99);
    return {
      value: p.keys / (r.ms / 1000),
      samples: {
        insert_cost_last_over_first: r.lastMs / r.firstMs,
        alloc_p99_us: alloc,
        rest_p99_us: rest,
        alloc_p99_over_rest_p99: alloc / rest,
        prep_p99_us: r.prep.percentile(99),
        index_bytes_per_key: st.index.bytes / p.keys,
        peak_rss_mb: bytesToMiB(peak),
        rss_base_mb: bytesToMiB(rss.base),
        bytes_per_key: (peak - rss.base) / p.keys,
        log_memory_mb: bytesToMiB(st.log.memoryBytes),
        pages_opened: r.alloc.count,
        allocation_waits: st.log.allocationWaits,
        index_mb: bytesToMiB(st.index.bytes),
        rss_end_mb: bytesToMiB(process.memoryUsage.rss()),
        device_write_p99_us: st.device.writeLatencyUs.p99,
        device_write_max_us: st.device.writeLatencyUs.max,
      },
    };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export const hlogLoad = defineScenario<Params, undefined>({
  name: 'hlog-load',
  description: 'insert N keys into the hybrid log store (memory ~1/16 of the data) vs a Map',
  params: {
    full: {
      keys: 10_000_000,
      keyBytes: 16,
      valueBytes: 100,
      pageSize: 256 * KiB,
      memoryShare: 1 / 16,
      // Sized for the keys (~5.5 per bucket), as FASTER's index is: then the
      // first and the last inserts pay the same cache misses in the index,
      // and insert_cost_last_over_first measures the log. (Growth is tested
      // by the unit tests and costs ~1.3-1.6x here from cache misses alone.)
      indexBuckets: 1 << 21,
      mutableFraction: 0.9,
    },
    ci: {
      keys: 200_000,
      keyBytes: 16,
      valueBytes: 100,
      pageSize: 64 * KiB,
      memoryShare: 1 / 16,
      indexBuckets: 1 << 15,
      mutableFraction: 0.9,
    },
  },
  variants: [higher(STORE, 'ops/s'), higher(STORE_MEMDEV, 'ops/s'), higher(MAP, 'ops/s')],
  ratios: [`${STORE}/${MAP}`, `${STORE_MEMDEV}/${MAP}`],
  runs: { full: 3, ci: 2 },
  warmup: { full: 0, ci: 1 },

  async run(variant, ctx): Promise<Measurement> {
    const job: Job = { variant: variant.name, params: ctx.params, dir: ctx.dir, run: ctx.run };
    return isolated() ? measureInChild(job) : measure(job);
  },

  metrics(results) {
    const s = (key: string) => median(results.samples(STORE, key));
    return {
      ops_per_sec: results.median(STORE),
      insert_cost_last_over_first: s('insert_cost_last_over_first'),
      alloc_p99_us: s('alloc_p99_us'),
      rest_p99_us: s('rest_p99_us'),
      alloc_p99_over_rest_p99: s('alloc_p99_over_rest_p99'),
      prep_p99_us: s('prep_p99_us'),
      index_bytes_per_key: s('index_bytes_per_key'),
      peak_rss_mb: s('peak_rss_mb'),
      bytes_per_key: s('bytes_per_key'),
      map_ops_per_sec: results.median(MAP),
      map_insert_cost_last_over_first: median(results.samples(MAP, 'insert_cost_last_over_first')),
      map_peak_rss_mb: median(results.samples(MAP, 'peak_rss_mb')),
      map_bytes_per_key: median(results.samples(MAP, 'bytes_per_key')),
    };
  },
});
