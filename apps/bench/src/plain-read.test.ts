import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureBestPlainRead, measurePlainRead } from './plain-read.js';

let dir: string;
let file: string;
const SIZE = 100_000; // not a multiple of any read size: the last read is short

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'strata-bench-plain-'));
  file = path.join(dir, 'data');
  await writeFile(file, Buffer.alloc(SIZE, 7));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('measurePlainRead', () => {
  it('reads the whole file into the given buffer', async () => {
    const buffer = new Uint8Array(4096);
    const r = await measurePlainRead({ path: file, readSize: 4096, buffer });
    expect(r.bytes).toBe(SIZE);
    expect(r.readSize).toBe(4096);
    expect(r.mbps).toBeGreaterThan(0);
    expect(buffer[0]).toBe(7);
  });

  it('stops at length', async () => {
    const r = await measurePlainRead({ path: file, readSize: 4096, length: 10_000 });
    expect(r.bytes).toBe(10_000);
  });

  it('reads through a kept handle and leaves it open', async () => {
    const handle = await open(file, 'r');
    try {
      const first = await measurePlainRead({ handle, readSize: 8192 });
      const second = await measurePlainRead({ handle, readSize: 8192 });
      expect([first.bytes, second.bytes]).toEqual([SIZE, SIZE]);
      expect((await handle.stat()).size).toBe(SIZE); // still open
    } finally {
      await handle.close();
    }
  });

  it('needs exactly one of path and handle', async () => {
    await expect(measurePlainRead({ readSize: 4096 })).rejects.toThrow(TypeError);
    const handle = await open(file, 'r');
    try {
      await expect(measurePlainRead({ path: file, handle, readSize: 4096 })).rejects.toThrow(
        TypeError,
      );
    } finally {
      await handle.close();
    }
  });

  it('rejects a buffer smaller than the read size', async () => {
    await expect(
      measurePlainRead({ path: file, readSize: 4096, buffer: new Uint8Array(10) }),
    ).rejects.toThrow(RangeError);
  });
});

describe('measureBestPlainRead', () => {
  it('tries every read size, calls before() each time, reports the best', async () => {
    let calls = 0;
    const best = await measureBestPlainRead({
      path: file,
      readSizes: [1024, 8192],
      attempts: 2,
      before: async () => {
        calls++;
      },
    });
    expect(calls).toBe(4);
    expect(best.results.map((r) => r.readSize)).toEqual([1024, 8192]);
    expect(best.results.every((r) => r.bytes === SIZE)).toBe(true);
    expect(best.mbps).toBe(Math.max(...best.results.map((r) => r.mbps)));
    expect([1024, 8192]).toContain(best.readSize);
  });

  it('accepts a kept handle', async () => {
    const handle = await open(file, 'r');
    try {
      const best = await measureBestPlainRead({ handle, readSizes: [4096] });
      expect(best.results[0]!.bytes).toBe(SIZE);
      expect(best.readSize).toBe(4096);
    } finally {
      await handle.close();
    }
  });
});
