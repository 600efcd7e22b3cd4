import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Store } from '@strata/hlog';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { KiB, MiB } from '../sizes.js';
import {
  keySequence,
  loadMap,
  loadStore,
  newKey,
  readInLanes,
  stampValue,
  writeKey,
  yieldToLoop,
} from './hlog-support.js';

/**
 * GETs, uniform and zipfian (0.99), 16-byte keys and 100-byte values:
 * - `get` / `get-zipf`: the store with every record in memory, through its
 *   synchronous core (a view into the log, no copy), beside `map` /
 *   `map-zipf`: `Map<string, Buffer>.get(key.toString('latin1'))`;
 * - `set` beside `map-set`: SETs of existing keys (uniform), all in memory
 *   (copies of the GET variants' store and Map, loaded the same way):
 *   the store through its synchronous core (in place in the mutable region),
 *   the Map as `map.set(key.toString('latin1'), Buffer.from(value))`;
 * - `insert` beside `map-insert`: SETs of new keys into an empty store (its
 *   memory large enough for all of them, index growing online) and an empty
 *   Map;
 * - `disk` / `disk-zipf`: a store holding 16x its log memory, on files,
 *   `inFlight` reads outstanding; most GETs read the device (page cache
 *   made cold before each run: its files evicted, see the README).
 */

type Params = {
  keys: number;
  gets: number;
  /** Keys inserted by each `insert` / `map-insert` run. */
  insertKeys: number;
  diskKeys: number;
  diskGets: number;
  inFlight: number;
  pageSize: number;
};

interface State {
  mem: Store;
  map: Map<string, Buffer>;
  /** Copies for the SET variants, so that SETs leave the GET variants' data as loaded. */
  setMem: Store;
  setMap: Map<string, Buffer>;
  disk: Store;
  seq: {
    uniform: Uint32Array;
    zipf: Uint32Array;
    sets: Uint32Array;
    diskUniform: Uint32Array;
    diskZipf: Uint32Array;
  };
}

const RECORD_BYTES = 136;

function pagesFor(bytes: number, pageSize: number): number {
  return Math.max(16, Math.ceil(bytes / pageSize)) * pageSize;
}

async function getsFromStore(store: Store, seq: Uint32Array): Promise<number> {
  const key = newKey();
  let hits = 0;
  const start = performance.now();
  for (let i = 0; i < seq.length; i++) {
    writeKey(key, seq[i]!);
    const v = store.read(key);
    if (v.status === 'found') hits += v.bytes[v.offset]! >= 0 ? 1 : 0;
    else if (v.status === 'pending') hits += (await v.pending).status === 'found' ? 1 : 0;
    if ((i & 4095) === 4095) await yieldToLoop();
  }
  const ms = performance.now() - start;
  if (hits !== seq.length) throw new Error(`store: ${seq.length - hits} misses`);
  return seq.length / (ms / 1000);
}

async function getsFromMap(map: Map<string, Buffer>, seq: Uint32Array): Promise<number> {
  const key = newKey();
  let hits = 0;
  const start = performance.now();
  for (let i = 0; i < seq.length; i++) {
    writeKey(key, seq[i]!);
    const v = map.get(key.toString('latin1'));
    if (v !== undefined) hits += v[0]! >= 0 ? 1 : 0;
    if ((i & 4095) === 4095) await yieldToLoop();
  }
  const ms = performance.now() - start;
  if (hits !== seq.length) throw new Error(`map: ${seq.length - hits} misses`);
  return seq.length / (ms / 1000);
}

async function setsToStore(store: Store, seq: Uint32Array): Promise<number> {
  const key = newKey();
  const value = Buffer.alloc(100, 0x62);
  let pending = 0;
  const start = performance.now();
  for (let i = 0; i < seq.length; i++) {
    writeKey(key, seq[i]!);
    stampValue(value, i);
    const v = store.upsert(key, value);
    if (v.status === 'pending') {
      pending++;
      await v.pending;
    }
    if ((i & 4095) === 4095) await yieldToLoop();
  }
  const ms = performance.now() - start;
  if (pending !== 0) throw new Error(`store: ${pending} SETs went pending`);
  return seq.length / (ms / 1000);
}

async function setsToMap(map: Map<string, Buffer>, seq: Uint32Array): Promise<number> {
  const key = newKey();
  const value = Buffer.alloc(100, 0x62);
  const start = performance.now();
  for (let i = 0; i < seq.length; i++) {
    writeKey(key, seq[i]!);
    stampValue(value, i);
    map.set(key.toString('latin1'), Buffer.from(value));
    if ((i & 4095) === 4095) await yieldToLoop();
  }
  const ms = performance.now() - start;
  return seq.length / (ms / 1000);
}

/** Keys [0, n) into an empty store sized to hold them all in memory. */
async function insertsToStore(dir: string, n: number, pageSize: number): Promise<number> {
  const store = await Store.open({
    dir,
    memory: pagesFor(n * RECORD_BYTES * 1.25, pageSize),
    pageSize,
    indexBuckets: 1 << 16,
    checkpoints: null,
    expiry: false,
  });
  try {
    const ms = await insertTimed(n, (key, value) => {
      const v = store.upsert(key, value);
      if (v.status === 'pending') throw new Error('store: an in-memory insert went pending');
    });
    if (store.log.head > 0) throw new Error('insert: the store spilled to disk');
    return n / (ms / 1000);
  } finally {
    await store.close();
  }
}

async function insertsToMap(n: number): Promise<number> {
  const map = new Map<string, Buffer>();
  const ms = await insertTimed(n, (key, value) => {
    map.set(key.toString('latin1'), Buffer.from(value));
  });
  if (map.size !== n) throw new Error(`map holds ${map.size} keys`);
  return n / (ms / 1000);
}

async function insertTimed(
  n: number,
  insert: (key: Buffer, value: Buffer) => void,
): Promise<number> {
  const key = newKey();
  const value = Buffer.alloc(100, 0x61);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    writeKey(key, i);
    stampValue(value, i);
    insert(key, value);
    if ((i & 4095) === 4095) await yieldToLoop();
  }
  return performance.now() - start;
}

/** Whether `store` holds `key`: synchronously, or once its read from disk completes. */
function foundIn(store: Store): (key: Buffer) => boolean | Promise<boolean> {
  return (key) => {
    const v = store.read(key);
    if (v.status === 'pending') return v.pending.then((r) => r.status === 'found');
    return v.status === 'found';
  };
}

export const hlogRead = defineScenario<Params, State>({
  name: 'hlog-read',
  description:
    'GET and SET ops/s: store in memory vs Map (GETs uniform and zipfian); store at 16x memory on disk',
  params: {
    full: {
      keys: 1_000_000,
      gets: 2_000_000,
      insertKeys: 1_000_000,
      diskKeys: 2_000_000,
      diskGets: 200_000,
      inFlight: 16,
      pageSize: 256 * KiB,
    },
    ci: {
      keys: 200_000,
      gets: 400_000,
      insertKeys: 200_000,
      diskKeys: 200_000,
      diskGets: 20_000,
      inFlight: 16,
      pageSize: 64 * KiB,
    },
  },
  readsDisk: true,
  variants: [
    higher('get', 'ops/s'),
    higher('map', 'ops/s'),
    higher('get-zipf', 'ops/s'),
    higher('map-zipf', 'ops/s'),
    higher('set', 'ops/s'),
    higher('map-set', 'ops/s'),
    higher('insert', 'ops/s'),
    higher('map-insert', 'ops/s'),
    higher('disk', 'ops/s'),
    higher('disk-zipf', 'ops/s'),
  ],
  ratios: ['get/map', 'get-zipf/map-zipf', 'set/map-set', 'insert/map-insert', 'disk-zipf/disk'],

  async setup(ctx) {
    const p = ctx.params;
    ctx.log(`loading ${p.keys} keys in memory, ${p.diskKeys} keys at 16x memory`);
    const mem = await Store.open({
      dir: path.join(ctx.dir, 'mem'),
      memory: pagesFor(p.keys * RECORD_BYTES * 1.25, p.pageSize),
      pageSize: p.pageSize,
      indexBuckets: 1 << 16,
      checkpoints: null,
      expiry: false,
    });
    await loadStore(mem, p.keys, 100);
    if (mem.log.head > 0) throw new Error('in-memory store spilled to disk');
    const map = new Map<string, Buffer>();
    await loadMap(map, p.keys, 100);
    const setMem = await Store.open({
      dir: path.join(ctx.dir, 'set'),
      memory: pagesFor(p.keys * RECORD_BYTES * 1.25, p.pageSize),
      pageSize: p.pageSize,
      indexBuckets: 1 << 16,
      checkpoints: null,
      expiry: false,
    });
    await loadStore(setMem, p.keys, 100);
    const setMap = new Map<string, Buffer>();
    await loadMap(setMap, p.keys, 100);
    const disk = await Store.open({
      dir: path.join(ctx.dir, 'disk'),
      memory: pagesFor((p.diskKeys * RECORD_BYTES) / 16, p.pageSize),
      pageSize: p.pageSize,
      segmentSize: 256 * MiB,
      indexBuckets: 1 << 16,
      checkpoints: null,
      expiry: false,
    });
    await loadStore(disk, p.diskKeys, 100);
    return {
      mem,
      map,
      setMem,
      setMap,
      disk,
      seq: {
        uniform: keySequence(p.keys, p.gets, 'uniform', 1),
        zipf: keySequence(p.keys, p.gets, 'zipf', 2),
        sets: keySequence(p.keys, p.gets, 'uniform', 5),
        diskUniform: keySequence(p.diskKeys, p.diskGets, 'uniform', 3),
        diskZipf: keySequence(p.diskKeys, p.diskGets, 'zipf', 4),
      },
    };
  },

  async run(variant, ctx): Promise<number | Measurement> {
    const { mem, map, setMem, setMap, disk, seq } = ctx.state;
    switch (variant.name) {
      case 'get':
        return getsFromStore(mem, seq.uniform);
      case 'get-zipf':
        return getsFromStore(mem, seq.zipf);
      case 'map':
        return getsFromMap(map, seq.uniform);
      case 'map-zipf':
        return getsFromMap(map, seq.zipf);
      case 'set':
        return setsToStore(setMem, seq.sets);
      case 'map-set':
        return setsToMap(setMap, seq.sets);
      case 'insert': {
        const dir = path.join(ctx.dir, `insert-${ctx.run}`);
        try {
          return await insertsToStore(dir, ctx.params.insertKeys, ctx.params.pageSize);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }
      case 'map-insert':
        return insertsToMap(ctx.params.insertKeys);
      case 'disk':
      case 'disk-zipf': {
        const before = disk.stats().ops.diskReads ?? 0;
        const s = variant.name === 'disk' ? seq.diskUniform : seq.diskZipf;
        const opsPerSec = await readInLanes(s, ctx.params.inFlight, foundIn(disk));
        const reads = (disk.stats().ops.diskReads ?? 0) - before;
        return { value: opsPerSec, samples: { device_reads_per_get: reads / s.length } };
      }
      default:
        throw new Error(`hlog-read: unknown variant ${variant.name}`);
    }
  },

  metrics(results) {
    return {
      get_over_map: results.median('get') / results.median('map'),
      get_zipf_over_map_zipf: results.median('get-zipf') / results.median('map-zipf'),
      set_over_map: results.median('set') / results.median('map-set'),
      insert_over_map: results.median('insert') / results.median('map-insert'),
      disk_reads_per_sec: results.median('disk'),
      disk_zipf_reads_per_sec: results.median('disk-zipf'),
    };
  },

  async teardown(ctx) {
    await ctx.state.mem.close();
    await ctx.state.setMem.close();
    await ctx.state.disk.close();
  },
});
