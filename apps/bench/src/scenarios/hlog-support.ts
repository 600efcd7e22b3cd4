import type { StoreCore } from '@strata/hlog';
import { Zipfian } from '../zipfian.js';

/** Shared pieces of the hlog-* scenarios: keys, values, load loops, samplers. */

/** A key buffer: a fixed printable prefix, then 4 bytes that `writeKey` sets. */
export function newKey(bytes = 16): Buffer {
  const key = Buffer.alloc(bytes, 0x30);
  key[0] = 0x6b;
  return key;
}

/**
 * Makes `key` key number `i` (its last 4 bytes, big-endian): one store per
 * key, so the timed loops measure lookups, not key formatting.
 */
export function writeKey(key: Buffer, i: number): void {
  key.writeUInt32BE(i >>> 0, key.length - 4);
}

/** Makes value bytes depend on `i` (so copies are real), no allocation. */
export function stampValue(value: Buffer, i: number): void {
  value.writeUInt32LE(i >>> 0, 0);
  value[value.length - 1] = i & 0xff;
}

/** Lets the flush worker and IO completions run (a server's event loop turns between batches). */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * `lanes` readers over one key sequence, each awaiting the reads `found`
 * answers with a promise (a synchronous answer stays in the loop, which
 * yields every 4096 keys): ops/s. Throws unless every key was found.
 */
export async function readInLanes(
  seq: Uint32Array,
  lanes: number,
  found: (key: Buffer) => boolean | Promise<boolean>,
): Promise<number> {
  let next = 0;
  let hits = 0;
  const lane = async (): Promise<void> => {
    const key = newKey();
    while (next < seq.length) {
      writeKey(key, seq[next++]!);
      const r = found(key);
      if (r === true || (r !== false && (await r))) hits++;
      if ((next & 4095) === 0) await yieldToLoop();
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: lanes }, lane));
  const ms = performance.now() - start;
  if (hits !== seq.length) throw new Error(`${seq.length - hits} of ${seq.length} reads missed`);
  return seq.length / (ms / 1000);
}

/** Keeps every `stride`-th value of a stream of latencies, for percentiles. */
export class LatencySample {
  private readonly values: Float64Array;
  private n = 0;
  private seen = 0;

  constructor(
    capacity: number,
    private readonly stride = 1,
  ) {
    this.values = new Float64Array(Math.max(1, capacity));
  }

  add(us: number): void {
    if (this.seen++ % this.stride !== 0 || this.n >= this.values.length) return;
    this.values[this.n++] = us;
  }

  get count(): number {
    return this.seen;
  }

  percentile(p: number): number {
    if (this.n === 0) return 0;
    const sorted = this.values.slice(0, this.n).sort();
    return sorted[Math.min(this.n - 1, Math.floor((p / 100) * this.n))]!;
  }
}

/**
 * Loads keys [0, n) with the store's synchronous core (awaiting only the
 * operations that go pending) and returns per-phase timings. Latencies are
 * split three ways: inserts that opened a page (`alloc`), inserts that
 * prepared the next one (moved `head` or `readOnly` without opening a page:
 * `prep`), and the others (`rest`, every 8th kept).
 */
export async function loadStore(
  store: StoreCore,
  n: number,
  valueBytes: number,
  keyBytes = 16,
): Promise<{
  ms: number;
  firstMs: number;
  lastMs: number;
  alloc: LatencySample;
  prep: LatencySample;
  rest: LatencySample;
}> {
  const key = newKey(keyBytes);
  const value = Buffer.alloc(valueBytes, 0x61);
  const tenth = Math.max(1, Math.floor(n / 10));
  const alloc = new LatencySample(Math.ceil(n / 64) + 1024);
  const prep = new LatencySample(Math.ceil(n / 32) + 1024);
  const rest = new LatencySample(Math.ceil(n / 8) + 1, 8);
  const log = store.log;
  let firstMs = 0;
  let lastMs = 0;
  const start = performance.now();
  let phase = start;
  for (let i = 0; i < n; i++) {
    writeKey(key, i);
    stampValue(value, i);
    const page = log.tailPageStart;
    const head = log.head;
    const readOnly = log.readOnly;
    const t0 = performance.now();
    const v = store.upsert(key, value);
    if (v.status === 'pending') await v.pending;
    const us = (performance.now() - t0) * 1000;
    if (log.tailPageStart !== page) alloc.add(us);
    else if (log.head !== head || log.readOnly !== readOnly) prep.add(us);
    else rest.add(us);
    if (i === tenth - 1) firstMs = performance.now() - phase;
    if (i === n - tenth - 1) phase = performance.now();
    if ((i & 255) === 255) await yieldToLoop();
  }
  const end = performance.now();
  lastMs = end - phase;
  return { ms: end - start, firstMs, lastMs, alloc, prep, rest };
}

/** The same load into a `Map<string, Buffer>` keyed by latin1 strings (copies of the value). */
export async function loadMap(
  map: Map<string, Buffer>,
  n: number,
  valueBytes: number,
  keyBytes = 16,
): Promise<{ ms: number; firstMs: number; lastMs: number; rest: LatencySample }> {
  const key = newKey(keyBytes);
  const value = Buffer.alloc(valueBytes, 0x61);
  const tenth = Math.max(1, Math.floor(n / 10));
  const rest = new LatencySample(Math.ceil(n / 8) + 1, 8);
  let firstMs = 0;
  const start = performance.now();
  let phase = start;
  for (let i = 0; i < n; i++) {
    writeKey(key, i);
    stampValue(value, i);
    const t0 = performance.now();
    map.set(key.toString('latin1'), Buffer.from(value));
    rest.add((performance.now() - t0) * 1000);
    if (i === tenth - 1) firstMs = performance.now() - phase;
    if (i === n - tenth - 1) phase = performance.now();
    if ((i & 255) === 255) await yieldToLoop();
  }
  const end = performance.now();
  return { ms: end - start, firstMs, lastMs: end - phase, rest };
}

/** A seeded 32-bit generator (xorshift), in [0, 1). */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

/** `count` key numbers in [0, n): uniform, or zipfian (zipfian.ts: YCSB's generator, theta 0.99, scrambled). */
export function keySequence(
  n: number,
  count: number,
  kind: 'uniform' | 'zipf',
  seed = 7,
): Uint32Array {
  const next = rng(seed);
  const out = new Uint32Array(count);
  if (kind === 'uniform') {
    for (let i = 0; i < count; i++) out[i] = Math.floor(next() * n);
    return out;
  }
  const zipf = new Zipfian(n, 0.99, next);
  for (let i = 0; i < count; i++) out[i] = zipf.next();
  return out;
}
