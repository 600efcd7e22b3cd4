// A/B measure of the per-record checksum (record-checksum.ts): in-memory
// SET and GET through the synchronous core (pages sealed and flushed as the
// tail moves: the sealing is in the SET figure), and GETs of keys on the
// device (each read verified). Run with the hlog dist to measure:
//   node record-checksum-bench.mjs <path to packages/hlog/dist/index.js> [keys]
// Prints one JSON line: ops per second of each phase, and log bytes per key.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const { Store } = await import(pathToFileURL(process.argv[2]).href);
const N = Number(process.argv[3] ?? 400_000);
const dir = await mkdtemp(join(tmpdir(), 'hlog-bench-'));
const keys = Array.from({ length: N }, (_, i) =>
  Buffer.from(`key:${i.toString().padStart(8, '0')}`),
);
// Values of 32 to 47 bytes: the 8-byte rounding averages out over them.
const values = Array.from({ length: 16 }, (_, i) => Buffer.alloc(32 + i, 'v'));

async function run() {
  // 16 MiB of frames: pages become read-only, sealed and flushed while SETs run.
  const store = await Store.open({
    dir,
    memory: 16 << 20,
    pageSize: 1 << 20,
    expiry: false,
    indexBuckets: 1 << 17,
    logger: { warn: () => {} },
  });
  let t = performance.now();
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < N; i++) {
      const v = store.upsert(keys[i], values[i & 15]);
      if (v.status === 'pending') await v.pending;
    }
  }
  const set = (2 * N) / ((performance.now() - t) / 1000);
  const logBytes = store.log.tail - store.log.begin;
  // In-memory GETs: the newest keys, whose records are in the ring.
  const hot = Math.min(N, 100_000);
  t = performance.now();
  let sink = 0;
  for (let r = 0; r < 5; r++) {
    for (let i = N - hot; i < N; i++) {
      const v = store.read(keys[i]);
      if (v.status === 'found') sink += v.length;
    }
  }
  const get = (5 * hot) / ((performance.now() - t) / 1000);
  // Device GETs: the oldest keys (on the device only), 64 in flight.
  const cold = Math.min(N - 300_000, 100_000);
  t = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < cold) {
      const r = await store.get(keys[next++]);
      if (r.status === 'found') sink += r.value.length;
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  const disk = cold / ((performance.now() - t) / 1000);
  await store.close();
  return {
    set: Math.round(set),
    get: Math.round(get),
    disk: Math.round(disk),
    bytesPerKey: logBytes / (2 * N),
    sink,
  };
}

try {
  const r = await run();
  console.log(JSON.stringify(r));
} finally {
  await rm(dir, { recursive: true, force: true });
}
