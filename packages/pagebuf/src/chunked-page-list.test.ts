import { isStrataError } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { type Chunk, ChunkedList, ChunkedPageList } from './chunked-page-list.js';

function codeOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return isStrataError(e) ? e.code : e;
  }
  return undefined;
}

describe('ChunkedPageList', () => {
  it('appends and gets across chunk boundaries', () => {
    const list = new ChunkedPageList({ chunkSize: 4 });
    for (let i = 0; i < 10; i++) expect(list.append(i * 4096)).toBe(i);
    expect(list.length).toBe(10);
    expect(list.size).toBe(10);
    expect(list.chunkCount).toBe(3);
    for (let i = 0; i < 10; i++) expect(list.get(i)).toBe(i * 4096);
    expect(list.last()).toBe(9 * 4096);
    list.set(5, 7);
    expect(list.get(5)).toBe(7);
    expect(codeOf(() => list.get(10))).toBe('ERR_INDEX_OUT_OF_RANGE');
    expect(codeOf(() => list.get(-1))).toBe('ERR_INDEX_OUT_OF_RANGE');
    expect(codeOf(() => list.get(1.5))).toBe('ERR_INDEX_OUT_OF_RANGE');
  });

  it('stores 48-bit addresses exactly in the default Float64Array chunks', () => {
    const list = new ChunkedPageList();
    const big = 2 ** 48 - 4096;
    list.append(big);
    expect(list.get(0)).toBe(big);
  });

  it('never copies earlier entries: one chunk allocation per chunkSize appends', () => {
    let allocations = 0;
    const chunks: Chunk<number>[] = [];
    const list = new ChunkedList<number>({
      chunkSize: 1024,
      createChunk: (size) => {
        allocations++;
        const c = new Float64Array(size);
        chunks.push(c);
        return c;
      },
    });
    for (let i = 0; i < 10_000; i++) list.append(i);
    expect(allocations).toBe(Math.ceil(10_000 / 1024));
    // Entries live where they were first written.
    expect(chunks[0]![1023]).toBe(1023);
    expect(chunks[9]![10_000 - 9 * 1024 - 1]).toBe(9_999);
  });

  it('holds millions of entries with O(1) get', () => {
    const n = 5_000_000;
    const list = new ChunkedPageList({ chunkSize: 4096 });
    for (let i = 0; i < n; i++) list.append(i * 8);
    expect(list.length).toBe(n);
    expect(list.chunkCount).toBe(Math.ceil(n / 4096));
    let sum = 0;
    for (let i = 0; i < n; i += 997) sum += list.get(i) - i * 8;
    expect(sum).toBe(0);
    expect(list.get(n - 1)).toBe((n - 1) * 8);
  });

  it('truncates from the front by whole chunks, keeping indices stable', () => {
    const list = new ChunkedPageList({ chunkSize: 8 });
    for (let i = 0; i < 40; i++) list.append(i);
    expect(list.chunkCount).toBe(5);

    list.truncateFront(10);
    expect(list.firstIndex).toBe(10);
    expect(list.length).toBe(40);
    expect(list.size).toBe(30);
    expect(list.chunkCount).toBe(4); // chunk 0 dropped; chunk 1 holds 10..15
    expect(list.get(10)).toBe(10);
    expect(list.get(39)).toBe(39);
    expect(codeOf(() => list.get(9))).toBe('ERR_INDEX_OUT_OF_RANGE');

    list.truncateFront(5); // never moves backwards
    expect(list.firstIndex).toBe(10);

    list.truncateFront(32);
    expect(list.chunkCount).toBe(1);
    expect([...list]).toEqual([32, 33, 34, 35, 36, 37, 38, 39]);

    // Appends continue with the next index.
    expect(list.append(40)).toBe(40);
    expect(list.get(40)).toBe(40);
    expect(codeOf(() => list.truncateFront(42))).toBe('ERR_INDEX_OUT_OF_RANGE');
  });

  it('truncates everything and keeps going, at and off chunk boundaries', () => {
    for (const cut of [16, 13]) {
      const list = new ChunkedPageList({ chunkSize: 4 });
      for (let i = 0; i < cut; i++) list.append(i);
      list.clear();
      expect(list.size).toBe(0);
      expect(list.firstIndex).toBe(cut);
      expect(list.last()).toBeUndefined();
      expect([...list]).toEqual([]);
      for (let i = cut; i < cut + 10; i++) expect(list.append(i * 2)).toBe(i);
      for (let i = cut; i < cut + 10; i++) expect(list.get(i)).toBe(i * 2);
      expect(list.chunkCount).toBeLessThanOrEqual(4);
    }
  });

  it('stays correct and bounded as a sliding window over millions of entries', () => {
    const list = new ChunkedPageList({ chunkSize: 256 });
    const window = 10_000;
    for (let i = 0; i < 2_000_000; i++) {
      list.append(i);
      if (i % 1000 === 999 && i >= window) list.truncateFront(i + 1 - window);
    }
    expect(list.firstIndex).toBe(2_000_000 - window);
    expect(list.chunkCount).toBeLessThanOrEqual(Math.ceil(window / 256) + 1);
    expect(list.get(list.firstIndex)).toBe(list.firstIndex);
    expect(list.get(1_999_999)).toBe(1_999_999);
    let count = 0;
    list.forEach((v, i) => {
      if (v !== i) throw new Error(`entry ${i} holds ${v}`);
      count++;
    });
    expect(count).toBe(window);
  });

  it('iterates with forEach over ranges and with the iterator from an index', () => {
    const list = new ChunkedPageList({ chunkSize: 4, arrayType: Uint32Array });
    for (let i = 0; i < 11; i++) list.append(i + 100);
    const seen: [number, number][] = [];
    list.forEach(
      (v, i) => {
        seen.push([i, v]);
      },
      3,
      9,
    );
    expect(seen).toEqual([
      [3, 103],
      [4, 104],
      [5, 105],
      [6, 106],
      [7, 107],
      [8, 108],
    ]);
    expect([...list.values(8)]).toEqual([108, 109, 110]);
    expect(codeOf(() => list.forEach(() => {}, 0, 12))).toBe('ERR_INDEX_OUT_OF_RANGE');
  });

  it('stores any value type in a generic ChunkedList', () => {
    const list = new ChunkedList<{ page: number }>({
      chunkSize: 2,
      createChunk: (size) => new Array<{ page: number }>(size),
    });
    for (let i = 0; i < 5; i++) list.append({ page: i });
    list.truncateFront(2);
    expect([...list].map((e) => e.page)).toEqual([2, 3, 4]);
  });

  it('rejects a chunk size that is not a power of two', () => {
    expect(codeOf(() => new ChunkedPageList({ chunkSize: 100 }))).toBe('ERR_INVALID_ARGUMENT');
    expect(codeOf(() => new ChunkedPageList({ chunkSize: 0 }))).toBe('ERR_INVALID_ARGUMENT');
  });
});
