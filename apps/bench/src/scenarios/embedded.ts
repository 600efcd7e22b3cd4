import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Database, open as openStrata } from '@strata/store';
import type { ClassicLevel } from 'classic-level';
import type { RootDatabase } from 'lmdb';
import { bytesToMiB, startRssSampler } from '../rss.js';
import { defineScenario, higher, type Measurement, type Variant } from '../scenario.js';
import { KiB } from '../sizes.js';
import { keySequence, newKey, readInLanes, stampValue, writeKey } from './hlog-support.js';

/**
 * @strata/store as an embedded database beside lmdb (lmdb-js) and
 * classic-level, each with its default durability, 16-byte keys and
 * 100-byte values, in one process:
 * - `*-get`: random GETs of a database held in memory (strata's `read`,
 *   the synchronous status-returning path, and lmdb's synchronous `get`;
 *   level's `get`, `inFlight` at a time);
 * - `*-put`: overwrites of random keys of that database, `window` in
 *   flight, each window done when durable as the engine's defaults say:
 *   strata `sync: 'always'` (group-committed log commits, fsynced), lmdb's
 *   committed transactions once `flushed` (fsynced), level's `sync: false`
 *   (not fsynced: the OS has it);
 * - `*-load`: `loadKeys` new keys into an empty database, the same way;
 * - `*-scan`: every key of the in-memory database, in order (strata's
 *   `scan()`: SCAN in steps of 1000; lmdb's `getKeys`; level's `keys()`);
 * - `*-disk`: random GETs of a database 16x the memory budget (strata's
 *   log memory, level's block cache; lmdb maps the whole file and has no
 *   budget: the page cache is its memory), its files evicted from the page
 *   cache before each run (the bench's own files only, see page-cache.ts),
 *   `inFlight` at a time for strata and level.
 * Each variant's run reports the process's peak RSS during it
 * (`peak_rss_mib`; the three engines share the process, so this is the
 * whole process's) and how much it grew (`rss_growth_mib`).
 */

type Engine = 'strata' | 'lmdb' | 'level';
const ENGINES: readonly Engine[] = ['strata', 'lmdb', 'level'];
type Op = 'get' | 'put' | 'load' | 'scan' | 'disk';
const OPS: readonly Op[] = ['get', 'put', 'load', 'scan', 'disk'];

type Params = {
  /** Keys of the in-memory databases (get, put, scan). */
  keys: number;
  gets: number;
  puts: number;
  /** Keys of each `*-load` run, into an empty database. */
  loadKeys: number;
  /** Keys of the databases at 16x the memory budget. */
  diskKeys: number;
  diskGets: number;
  /** Puts in flight (then awaited together), async GETs in flight. */
  window: number;
  inFlight: number;
  pageSize: number;
};

const VALUE_BYTES = 100;
/** Bytes a record takes in strata's log (header, 16-byte key, 100-byte value), rounded up. */
const RECORD_BYTES = 160;

/** One engine's database, behind the few calls the bench makes. */
interface Db {
  /** Whether `key` is there: synchronously when the engine answers so. */
  get(key: Buffer): boolean | Promise<boolean>;
  put(key: Buffer, value: Buffer): Promise<unknown>;
  /** Resolves once every put so far is as durable as the engine's defaults make it. */
  settled(): Promise<unknown>;
  /** Counts every key, in order. */
  countKeys(): Promise<number>;
  close(): Promise<void>;
}

function strataDb(db: Database<Buffer, 'buffer'>): Db {
  return {
    get(key) {
      const r = db.read(key);
      if (r.status === 'pending') return r.pending.then((v) => v !== undefined);
      return r.status === 'found';
    },
    put: (key, value) => db.set(key, value),
    // A set resolves once durable (sync: 'always').
    settled: () => Promise.resolve(),
    async countKeys() {
      let n = 0;
      for await (const _ of db.scan({ count: 1000 })) n++;
      return n;
    },
    close: () => db.close(),
  };
}

function lmdbDb(db: RootDatabase<Buffer, Buffer>): Db {
  return {
    get: (key) => db.get(key) !== undefined,
    put: (key, value) => db.put(key, value),
    // With overlappingSync (the default off Windows) a put may resolve once
    // committed, before the fsync: `flushed` is when it is durable.
    settled: () => db.flushed,
    async countKeys() {
      let n = 0;
      for (const _ of db.getKeys()) n++;
      return n;
    },
    close: () => db.close(),
  };
}

function levelDb(db: ClassicLevel<Buffer, Buffer>): Db {
  return {
    get: (key) => db.get(key).then((v) => v !== undefined),
    put: (key, value) => db.put(key, value),
    // sync: false, level's default: not fsynced, nothing to wait for.
    settled: () => Promise.resolve(),
    async countKeys() {
      let n = 0;
      for await (const _ of db.keys()) n++;
      return n;
    },
    close: () => db.close(),
  };
}

/** Opens `engine`'s database in `dir`; `memory`: strata's log memory, level's block cache. */
async function openDb(engine: Engine, dir: string, memory: number, pageSize: number): Promise<Db> {
  if (engine === 'strata') {
    return strataDb(
      await openStrata(dir, { valueEncoding: 'buffer', keyEncoding: 'buffer', memory, pageSize }),
    );
  }
  // Loaded when the scenario runs: the rest of the bench needs neither.
  if (engine === 'lmdb') {
    const { open } = await import('lmdb');
    return lmdbDb(open<Buffer, Buffer>({ path: dir, keyEncoding: 'binary', encoding: 'binary' }));
  }
  const { ClassicLevel } = await import('classic-level');
  const db = new ClassicLevel<Buffer, Buffer>(dir, {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
    cacheSize: memory,
  });
  await db.open();
  return levelDb(db);
}

/** A fresh key buffer for key `i` (puts in flight must not share one). */
function keyFor(i: number): Buffer {
  const key = newKey();
  writeKey(key, i);
  return key;
}

/** A fresh value buffer stamped with `i`. */
function valueFor(i: number): Buffer {
  const value = Buffer.alloc(VALUE_BYTES, 0x61);
  stampValue(value, i);
  return value;
}

/** Puts `ids` (key i, value stamped `stamp + n`), `window` in flight then awaited together; ops/s. */
async function putAll(
  db: Db,
  ids: ArrayLike<number>,
  window: number,
  stamp: number,
): Promise<number> {
  const start = performance.now();
  const inFlight: Promise<unknown>[] = [];
  for (let n = 0; n < ids.length; n++) {
    inFlight.push(db.put(keyFor(ids[n]!), valueFor(stamp + n)));
    if (inFlight.length === window) {
      await Promise.all(inFlight);
      await db.settled();
      inFlight.length = 0;
    }
  }
  await Promise.all(inFlight);
  await db.settled();
  return ids.length / ((performance.now() - start) / 1000);
}

function pagesFor(bytes: number, pageSize: number): number {
  return Math.max(16, Math.ceil(bytes / pageSize)) * pageSize;
}

interface State {
  /** Where the in-memory databases live: outside `ctx.dir`, so evicting its files leaves them warm. */
  memDir: string;
  mem: Record<Engine, Db>;
  disk: Record<Engine, Db>;
  memMemory: number;
  diskMemory: number;
  seq: { gets: Uint32Array; puts: Uint32Array; disk: Uint32Array };
  /** Load runs so far (each into a directory of its own). */
  loads: number;
}

function variantName(engine: Engine, op: Op): string {
  return `${engine}-${op}`;
}

function parse(variant: Variant): { engine: Engine; op: Op } {
  const [engine, op] = variant.name.split('-') as [Engine, Op];
  return { engine, op };
}

/** Keys [0, n) into `db`, `window` at a time (setup: not measured). */
function fill(db: Db, n: number, window: number): Promise<number> {
  return putAll(
    db,
    Uint32Array.from({ length: n }, (_, i) => i),
    window,
    0,
  );
}

export const embedded = defineScenario<Params, State>({
  name: 'embedded',
  description:
    '@strata/store vs lmdb and classic-level: random get in memory, put, a load, a scan of every key, gets at 16x memory; ops/s and peak RSS',
  params: {
    full: {
      keys: 1_000_000,
      gets: 1_000_000,
      puts: 200_000,
      loadKeys: 1_000_000,
      diskKeys: 2_000_000,
      diskGets: 100_000,
      window: 1000,
      inFlight: 16,
      pageSize: 64 * KiB,
    },
    // CI: every scenario's CI run together stays within a couple of minutes.
    ci: {
      keys: 20_000,
      gets: 50_000,
      puts: 10_000,
      loadKeys: 20_000,
      diskKeys: 50_000,
      diskGets: 5_000,
      window: 1000,
      inFlight: 16,
      pageSize: 64 * KiB,
    },
  },
  variants: ENGINES.flatMap((e) => OPS.map((op) => higher(variantName(e, op), 'ops/s'))),
  ratios: OPS.flatMap((op) => [`strata-${op}/lmdb-${op}`, `strata-${op}/level-${op}`]),
  targets: { 'strata-get/lmdb-get': 0.8, 'strata-put/lmdb-put': 1.5 },

  async setup(ctx) {
    const p = ctx.params;
    const memDir = await mkdtemp(path.join(tmpdir(), 'strata-bench-embedded-mem-'));
    // Room for the keys and every put run's new versions: the GETs stay in memory.
    const memMemory = pagesFor((p.keys + 6 * p.puts) * RECORD_BYTES * 1.5, p.pageSize);
    const diskMemory = pagesFor((p.diskKeys * RECORD_BYTES) / 16, p.pageSize);
    ctx.log(
      `loading ${p.keys} keys in memory and ${p.diskKeys} keys at 16x ${bytesToMiB(diskMemory).toFixed(1)} MiB, per engine`,
    );
    const mem = {} as Record<Engine, Db>;
    const disk = {} as Record<Engine, Db>;
    for (const e of ENGINES) {
      mem[e] = await openDb(e, path.join(memDir, e), memMemory, p.pageSize);
      await fill(mem[e], p.keys, p.window);
      disk[e] = await openDb(e, path.join(ctx.dir, `disk-${e}`), diskMemory, p.pageSize);
      await fill(disk[e], p.diskKeys, p.window);
    }
    return {
      memDir,
      mem,
      disk,
      memMemory,
      diskMemory,
      seq: {
        gets: keySequence(p.keys, p.gets, 'uniform', 11),
        puts: keySequence(p.keys, p.puts, 'uniform', 12),
        disk: keySequence(p.diskKeys, p.diskGets, 'uniform', 13),
      },
      loads: 0,
    };
  },

  async run(variant, ctx): Promise<Measurement> {
    const p = ctx.params;
    const s = ctx.state;
    const { engine, op } = parse(variant);
    let cold = 0;
    if (op === 'disk') cold = (await ctx.dropCaches()) ? 1 : 0;
    const sampler = startRssSampler(20);
    const before = process.memoryUsage.rss();
    let value: number;
    if (op === 'get') {
      const db = s.mem[engine];
      value = await readInLanes(s.seq.gets, engine === 'level' ? p.inFlight : 1, (k) => db.get(k));
    } else if (op === 'put') {
      value = await putAll(s.mem[engine], s.seq.puts, p.window, (ctx.run + 2) * p.puts);
    } else if (op === 'scan') {
      const start = performance.now();
      const n = await s.mem[engine].countKeys();
      if (n !== p.keys) throw new Error(`${engine} scan: ${n} keys, not ${p.keys}`);
      value = n / ((performance.now() - start) / 1000);
    } else if (op === 'disk') {
      const db = s.disk[engine];
      value = await readInLanes(s.seq.disk, engine === 'lmdb' ? 1 : p.inFlight, (k) => db.get(k));
    } else {
      const dir = path.join(ctx.dir, `load-${engine}-${s.loads++}`);
      const db = await openDb(engine, dir, s.memMemory, p.pageSize);
      try {
        value = await fill(db, p.loadKeys, p.window);
      } finally {
        await db.close();
        await rm(dir, { recursive: true, force: true });
      }
    }
    const peak = sampler.stop();
    const samples: Record<string, number> = {
      peak_rss_mib: bytesToMiB(peak),
      rss_growth_mib: bytesToMiB(Math.max(0, peak - before)),
    };
    if (op === 'disk') samples.cold = cold;
    return { value, samples };
  },

  async teardown(ctx) {
    const s = ctx.state;
    for (const e of ENGINES) {
      await s.mem[e].close().catch(() => undefined);
      await s.disk[e].close().catch(() => undefined);
    }
    await rm(s.memDir, { recursive: true, force: true });
  },

  metrics: (results, ctx) => ({
    strata_memory_mib: bytesToMiB(ctx.state.memMemory),
    disk_memory_budget_mib: bytesToMiB(ctx.state.diskMemory),
    ...Object.fromEntries(
      OPS.map((op) => [
        `strata_${op}_over_lmdb`,
        results.median(`strata-${op}`) / results.median(`lmdb-${op}`),
      ]),
    ),
  }),
});
