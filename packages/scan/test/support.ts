import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashKey, Store, type StoreOptions } from '@strata/hlog';

/** Test helpers: stores on real files with tiny memory, so most data is on disk. */

const dirs: string[] = [];

export const tiny: Partial<StoreOptions> = {
  memory: 4096,
  pageSize: 1024,
  segmentSize: 8192,
  indexBuckets: 16,
  expiry: false,
  checkpointOnClose: false,
};

export async function openTiny(options: Partial<StoreOptions> = {}): Promise<Store> {
  const dir = await mkdtemp(join(tmpdir(), 'strata-scan-'));
  dirs.push(dir);
  return Store.open({ ...tiny, ...options, dir });
}

/** Opens the store of the last `openTiny` again (a restart). */
export function reopenLast(options: Partial<StoreOptions> = {}): Promise<Store> {
  const dir = dirs[dirs.length - 1];
  if (dir === undefined) throw new Error('no store opened yet');
  return Store.open({ ...tiny, ...options, dir });
}

export async function removeTempDirs(): Promise<void> {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
}

export const k = (s: string): Buffer => Buffer.from(s);

/** Small deterministic PRNG (mulberry32), so a failing seed can be replayed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Pairs of distinct keys whose hashes agree in their low 24 bits, so the
 * index gives both the same bucket and tag at test sizes: the older one is
 * reached only through the newer one's record (a chain that a liveness check
 * must follow, across device pages when they are far apart).
 */
export function collidingPairs(wanted: number, prefix = 'c:'): Array<[string, string]> {
  const seen = new Map<number, string>();
  const pairs: Array<[string, string]> = [];
  for (let i = 0; pairs.length < wanted; i++) {
    const key = `${prefix}${i}`;
    const low = hashKey(Buffer.from(key)) % 2 ** 24;
    const other = seen.get(low);
    if (other === undefined) seen.set(low, key);
    else {
      pairs.push([other, key]);
      seen.delete(low);
    }
  }
  return pairs;
}
