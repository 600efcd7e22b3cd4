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

const hlog = await import(pathToFileURL(process.argv[2]).href);
const { Store } = hlog;

// The machine is shared: CPU time of this process (all its threads), not
// wall time, is what each phase is divided by.
function cpu() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
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
  let t = cpu();
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < N; i++) {
      const v = store.upsert(keys[i], values[i & 15]);
      if (v.status === 'pending') await v.pending;
    }
  }
  const set = (2 * N) / ((cpu() - t) / 1000);
  const logBytes = store.log.tail - store.log.begin;
  // In-memory GETs: the newest keys, whose records are in the ring.
  const hot = Math.min(N, 100_000);
  t = cpu();
  let sink = 0;
  for (let r = 0; r < 5; r++) {
    for (let i = N - hot; i < N; i++) {
      const v = store.read(keys[i]);
      if (v.status === 'found') sink += v.length;
    }
  }
  const get = (5 * hot) / ((cpu() - t) / 1000);
  // Device GETs: the oldest keys (on the device only), 64 in flight.
  // With 16 MiB of frames, about the first 40% of the second round's keys are on the device only.
  const cold = Math.floor(N / 4);
  t = cpu();
  let next = 0;
  const worker = async () => {
    while (next < cold) {
      const r = await store.get(keys[next++]);
      if (r.status === 'found') sink += r.value.length;
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  const disk = cold / ((cpu() - t) / 1000);
  await store.close();
  return {
    ...sealCost(),
    set: Math.round(set),
    get: Math.round(get),
    disk: Math.round(disk),
    bytesPerKey: logBytes / (2 * N),
    sink,
  };
}

/**
 * ns per record to seal a 1 MiB page of such records (record checksums
 * when this build has them, then the page's) and, with them, to verify one.
 */
function sealCost() {
  const { createRecordSpace, writeRecordHeader, recordSize, keyOffsetOf, valueOffsetOf } = hlog;
  const P = 1 << 20;
  const s = createRecordSpace(P);
  s.u32[0] = 0x47505453;
  let off = 32;
  const offs = [];
  for (let i = 0; ; i++) {
    const key = keys[i % N];
    const value = values[i & 15];
    const size = recordSize(key.length, value.length, false);
    if (off + size > P) break;
    writeRecordHeader(s, off, 0, 0, 0, key.length, value.length, 0, size);
    key.copy(s.bytes, keyOffsetOf(s, off));
    value.copy(s.bytes, valueOffsetOf(s, off));
    offs.push(off);
    off += size;
  }
  s.u32[2] = off;
  const rounds = 100;
  let t = cpu();
  for (let r = 0; r < rounds; r++) {
    if (hlog.sealRecordChecksums !== undefined) hlog.sealRecordChecksums(s, 0);
    hlog.sealPageChecksum(s.bytes, 0);
  }
  const sealNs = ((cpu() - t) * 1e6) / (rounds * offs.length);
  let verifyNs = 0;
  if (hlog.verifyRecord !== undefined) {
    t = cpu();
    let ok = 0;
    for (let r = 0; r < rounds; r++)
      for (const o of offs) ok += hlog.verifyRecord(s, o, P - o) === 0 ? 1 : 0;
    verifyNs = ((cpu() - t) * 1e6) / (rounds * offs.length);
    if (ok !== rounds * offs.length) throw new Error('a record did not verify');
  }
  return {
    sealNsPerRecord: Number(sealNs.toFixed(1)),
    verifyNsPerRecord: Number(verifyNs.toFixed(1)),
  };
}

try {
  const r = await run();
  console.log(JSON.stringify(r));
} finally {
  await rm(dir, { recursive: true, force: true });
}
