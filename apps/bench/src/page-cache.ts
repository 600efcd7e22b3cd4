import { execFile } from 'node:child_process';
import type { Dirent } from 'node:fs';
import { open, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const DROP_CACHES_PATH = '/proc/sys/vm/drop_caches';

/**
 * What the bench does to the page cache before a run of a scenario that
 * reads disk: `evict` (default) its own files only, `drop` the whole
 * machine's (`--drop-caches`, root on Linux), `warm` nothing (`--warm`).
 */
export type CacheMode = 'evict' | 'drop' | 'warm';
export const CACHE_MODES: readonly CacheMode[] = ['evict', 'drop', 'warm'];

/**
 * What was done, as the JSON report's `params.cache`: `dropped` the whole
 * machine's cache, `evicted` the scenario's own files, or `warm` (nothing,
 * or it could not be done).
 */
export type CacheState = 'dropped' | 'evicted' | 'warm';

/** How cold each state is, to report the warmest one seen over a scenario's runs. */
const COLDNESS: Record<CacheState, number> = { warm: 0, evicted: 1, dropped: 2 };

/** The warmer of two states (a scenario is only as cold as its warmest run). */
export function warmerState(a: CacheState, b: CacheState): CacheState {
  return COLDNESS[a] <= COLDNESS[b] ? a : b;
}

/** How the bench evicts its own files, as the notes say. */
export const EVICT_METHOD =
  'fdatasync, then posix_fadvise(POSIX_FADV_DONTNEED) through GNU dd iflag=nocache count=0';
export const DROP_METHOD = 'sync, then 3 > /proc/sys/vm/drop_caches';

/** Whether this process may drop the whole page cache: root on Linux. */
export function canDropPageCache(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0;
}

/**
 * Writes dirty pages back (`sync`), then asks Linux to drop the page cache,
 * dentries and inodes (`3 > /proc/sys/vm/drop_caches`), so that the next
 * read comes from the device. Resolves false, without throwing, when that
 * is not possible (not root, not Linux, a read-only /proc in a container).
 */
export async function dropPageCache(): Promise<boolean> {
  if (!canDropPageCache()) return false;
  try {
    await execFileAsync('sync');
  } catch {
    // No sync binary: drop_caches still drops every clean page.
  }
  try {
    await writeFile(DROP_CACHES_PATH, '3');
    return true;
  } catch {
    return false;
  }
}

/** Every regular file under `dir`, recursively (a file or directory gone meanwhile is skipped). */
async function filesUnder(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(full)));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

/** fdatasync: POSIX_FADV_DONTNEED skips dirty pages, so write them back first. */
async function writeBack(file: string): Promise<void> {
  try {
    const handle = await open(file, 'r');
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
  } catch {
    // Gone since the listing (a server compacting, a temp file): nothing to evict.
  }
}

// One shell for all files (a dd each): cheaper than a process per file from Node.
// A file removed since the listing is skipped, never recreated (dd if=, not of=).
const EVICT_SCRIPT =
  'status=0; for f do [ -f "$f" ] || continue; ' +
  'dd if="$f" iflag=nocache count=0 status=none || status=1; done; exit $status';
const FILES_PER_SHELL = 256;

/**
 * Evicts every file under `dir` from the page cache, leaving the rest of the
 * machine's cache alone: `fdatasync` each file, then GNU dd's
 * `iflag=nocache count=0`, which is `posix_fadvise(fd, 0, 0,
 * POSIX_FADV_DONTNEED)` (Node has no binding). Needs no root. Resolves
 * false, without throwing, when it cannot (not Linux, no GNU dd).
 */
export async function evictFiles(dir: string): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  const files = await filesUnder(dir);
  for (const file of files) await writeBack(file);
  try {
    for (let i = 0; i < files.length; i += FILES_PER_SHELL) {
      await execFileAsync('sh', ['-c', EVICT_SCRIPT, 'sh', ...files.slice(i, i + FILES_PER_SHELL)]);
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes the next read of the scenario's files (under `dir`) come from the
 * device, as `mode` asks; falls back from `drop` to `evict` when the whole
 * cache cannot be dropped (not root). Resolves what was done.
 */
export async function coldCache(mode: CacheMode, dir: string): Promise<CacheState> {
  if (mode === 'warm') return 'warm';
  if (mode === 'drop' && (await dropPageCache())) return 'dropped';
  return (await evictFiles(dir)) ? 'evicted' : 'warm';
}

/**
 * Evicts every file under `dir` from the page cache again and again
 * (`evictFiles`, then `everyMs`) until the returned stop is called: a run
 * that reads the same files for seconds keeps reading the device, not the
 * pages its own earlier reads left in the cache. Resolves, once stopped,
 * how many passes were made (0: eviction is not possible here).
 */
export function keepEvicting(dir: string, everyMs = 20): () => Promise<number> {
  let stopped = false;
  let passes = 0;
  const loop = (async () => {
    while (!stopped) {
      if (!(await evictFiles(dir))) return;
      passes++;
      if (!stopped) await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return passes;
  };
}
