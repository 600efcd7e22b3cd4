import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canDropPageCache,
  coldCache,
  evictFiles,
  keepEvicting,
  warmerState,
} from './page-cache.js';

/** Resident bytes of a file in the page cache (util-linux fincore), or undefined without fincore. */
function residentBytes(file: string): number | undefined {
  try {
    const out = execFileSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', file], {
      encoding: 'utf8',
    });
    return Number(out.trim());
  } catch {
    return undefined;
  }
}

const hasFincore = process.platform === 'linux' && residentBytes('/proc/self/exe') !== undefined;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'strata-bench-cache-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('page cache', () => {
  it('may drop the whole cache only as root on Linux', () => {
    const root = process.platform === 'linux' && process.getuid?.() === 0;
    expect(canDropPageCache()).toBe(root);
  });
  // dropPageCache() itself is not run here: it would evict every other
  // suite's files on a shared machine. That is what evictFiles avoids.

  it('orders states by coldness: a scenario is as cold as its warmest run', () => {
    expect(warmerState('dropped', 'evicted')).toBe('evicted');
    expect(warmerState('evicted', 'warm')).toBe('warm');
    expect(warmerState('dropped', 'dropped')).toBe('dropped');
  });

  it.skipIf(!hasFincore)(
    'evicts every file under the directory, dirty ones too, and only those',
    async () => {
      const nested = path.join(dir, 'a', 'b');
      await mkdir(nested, { recursive: true });
      const clean = path.join(dir, 'clean.bin');
      const dirty = path.join(nested, 'dirty.bin');
      const outside = path.join(os.tmpdir(), `strata-bench-cache-outside-${process.pid}.bin`);
      const bytes = Buffer.alloc(4 << 20, 7);
      try {
        await writeFile(clean, bytes);
        await writeFile(outside, bytes);
        execFileSync('sync', [clean, outside]);
        await readFile(clean);
        await readFile(outside);
        await writeFile(dirty, bytes); // not synced: dirty pages, which DONTNEED alone skips
        expect(residentBytes(clean)).toBe(bytes.length);
        expect(residentBytes(dirty)).toBe(bytes.length);

        expect(await evictFiles(dir)).toBe(true);

        expect(residentBytes(clean)).toBe(0);
        expect(residentBytes(dirty)).toBe(0);
        expect(residentBytes(outside)).toBe(bytes.length); // not the bench's file: kept
        expect((await readFile(dirty)).equals(bytes)).toBe(true); // written back, not lost
      } finally {
        await rm(outside, { force: true });
      }
    },
  );

  it.skipIf(!hasFincore)(
    'keeps evicting until stopped: pages read during a run leave the cache again',
    async () => {
      const sub = path.join(dir, 'loop');
      await mkdir(sub, { recursive: true });
      const file = path.join(sub, 'data.bin');
      const bytes = Buffer.alloc(1 << 20, 3);
      await writeFile(file, bytes);
      const stop = keepEvicting(sub, 1);
      try {
        // Read into the cache after the loop started: a later pass takes it out.
        await readFile(file);
        for (let i = 0; i < 1000 && residentBytes(file) !== 0; i++) {
          await new Promise((r) => setTimeout(r, 10));
        }
        expect(residentBytes(file)).toBe(0);
      } finally {
        expect(await stop()).toBeGreaterThan(0);
      }
      // Stopped: what is read now stays cached.
      await readFile(file);
      expect(residentBytes(file)).toBe(bytes.length);
    },
  );

  it.skipIf(process.platform !== 'linux')('evicts with the default mode, says so', async () => {
    await writeFile(path.join(dir, 'f.bin'), Buffer.alloc(4096, 1));
    expect(await coldCache('evict', dir)).toBe('evicted');
    expect(await coldCache('warm', dir)).toBe('warm');
  });

  it.skipIf(process.platform !== 'linux' || canDropPageCache())(
    'falls back from --drop-caches to evicting its own files when not root',
    async () => {
      expect(await coldCache('drop', dir)).toBe('evicted');
    },
  );
});
