import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store, StoreOptions } from '../src/hlog-store.js';

/**
 * What the crash-consistency tests (consistent-recovery, commit-point) share:
 * a small store in a temporary directory (8 pages of 1 KiB, so writes reach
 * the device), and reading and writing string keys.
 */

const dirs: string[] = [];

/** Options for a small store in a new temporary directory (`removeStoreDirs` removes them). */
export async function smallStoreOptions(
  prefix: string,
  consistentRecovery: boolean,
): Promise<StoreOptions> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return {
    dir,
    memory: 8192,
    pageSize: 1024,
    segmentSize: 1 << 16,
    expiry: false,
    checkpointOnClose: false,
    consistentRecovery,
    logger: { warn: () => undefined },
  };
}

/** Removes the directories `smallStoreOptions` made (an `afterAll`). */
export async function removeStoreDirs(): Promise<void> {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
}

export const b = (s: string): Buffer => Buffer.from(s);

/** The value of `key` as a string, or null. */
export async function value(store: Store, key: string): Promise<string | null> {
  const r = await store.get(b(key));
  return r.status === 'found' ? r.value.toString() : null;
}

/** Writes `n` keys `prefix:i` = `v`; the log grows past memory, so pages reach the device. */
export async function fill(store: Store, prefix: string, n: number, v: string): Promise<void> {
  for (let i = 0; i < n; i++) await store.set(b(`${prefix}:${i}`), b(v));
}
