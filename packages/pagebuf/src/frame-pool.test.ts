import { isStrataError } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { FramePool } from './frame-pool.js';

describe('FramePool', () => {
  it('preallocates every frame as a slice of one ArrayBuffer', () => {
    const pool = new FramePool({ frameSize: 4096, maxFrames: 4, preallocate: true });
    expect(pool.allocatedBytes).toBe(4 * 4096);
    expect(pool.stats().allocations).toBe(1);
    const frames = [pool.acquire(), pool.acquire(), pool.acquire(), pool.acquire()];
    const backing = new Set(frames.map((f) => f?.buffer));
    expect(backing.size).toBe(1);
    expect(new Set(frames).size).toBe(4);
    for (const f of frames) expect(f?.length).toBe(4096);
    // Slices must not overlap: writing one frame leaves the others alone.
    frames[0]!.fill(1);
    expect(frames[1]!.every((b) => b === 0)).toBe(true);
  });

  it('hands out at most maxFrames and reuses released frames without allocating', () => {
    const pool = new FramePool({ frameSize: 1024, maxFrames: 2, preallocate: true });
    const a = pool.acquire()!;
    const b = pool.acquire()!;
    expect(pool.acquire()).toBeUndefined();
    expect(pool.available).toBe(0);
    pool.release(a);
    expect(pool.acquire()).toBe(a);
    pool.release(a);
    pool.release(b);
    const before = pool.stats().allocations;
    for (let i = 0; i < 100_000; i++) {
      const f = pool.acquire()!;
      const g = pool.acquire()!;
      pool.release(f);
      pool.release(g);
    }
    expect(pool.stats().allocations).toBe(before);
    expect(pool.allocatedBytes).toBe(2 * 1024);
  });

  it('allocates lazily and reports its high-water marks', () => {
    const pool = new FramePool({ frameSize: 100, maxFrames: 8 });
    expect(pool.allocatedBytes).toBe(0);
    const held = [pool.acquire()!, pool.acquire()!, pool.acquire()!];
    expect(pool.stats()).toMatchObject({
      allocatedFrames: 3,
      inUse: 3,
      free: 0,
      allocatedBytes: 300,
      highWaterInUse: 3,
      highWaterBytes: 300,
      allocations: 3,
    });
    for (const f of held) pool.release(f);
    expect(pool.inUse).toBe(0);
    expect(pool.highWaterInUse).toBe(3);
    pool.resetHighWater();
    expect(pool.highWaterInUse).toBe(0);
    expect(pool.highWaterBytes).toBe(300);
  });

  it('gives memory back on trim', () => {
    const pool = new FramePool({ frameSize: 1000, maxFrames: 4 });
    const a = pool.acquire()!;
    const b = pool.acquire()!;
    pool.release(b);
    expect(pool.trim()).toBe(1000);
    expect(pool.allocatedBytes).toBe(1000);
    expect(pool.stats().releasedBytes).toBe(1000);
    pool.release(a);
    expect(pool.trim()).toBe(1000);
    expect(pool.allocatedBytes).toBe(0);
    // Still usable afterwards.
    expect(pool.acquire()?.length).toBe(1000);
  });

  it('resize drops free frames now and frames in use when released', () => {
    const pool = new FramePool({ frameSize: 1000, maxFrames: 3 });
    const held = pool.acquire()!;
    pool.release(pool.acquire()!);
    expect(pool.allocatedBytes).toBe(2000);
    pool.resize(4000);
    expect(pool.allocatedBytes).toBe(1000); // only the frame in use is left
    const big = pool.acquire()!;
    expect(big.length).toBe(4000);
    pool.release(held); // old size: dropped, not pooled
    expect(pool.allocatedBytes).toBe(4000);
    expect(pool.stats().free).toBe(0);
    pool.release(big);
    expect(pool.stats().free).toBe(1);
  });

  it('counts frames of an old size against maxFrames', () => {
    const pool = new FramePool({ frameSize: 10, maxFrames: 2 });
    const a = pool.acquire()!;
    pool.resize(20);
    const b = pool.acquire()!;
    expect(pool.acquire()).toBeUndefined();
    pool.release(a);
    expect(pool.acquire()?.length).toBe(20);
    pool.release(b);
  });

  it('rejects double and foreign releases with ERR_FRAME_OWNERSHIP', () => {
    const pool = new FramePool({ frameSize: 16, maxFrames: 1 });
    const a = pool.acquire()!;
    pool.release(a);
    const codes: unknown[] = [];
    for (const f of [a, Buffer.alloc(16)]) {
      try {
        pool.release(f);
      } catch (e) {
        codes.push(isStrataError(e) ? e.code : e);
      }
    }
    expect(codes).toEqual(['ERR_FRAME_OWNERSHIP', 'ERR_FRAME_OWNERSHIP']);
  });

  it('validates its options', () => {
    expect(() => new FramePool({ frameSize: 0, maxFrames: 1 })).toThrow(/frameSize/);
    expect(() => new FramePool({ frameSize: 1.5, maxFrames: 1 })).toThrow(/frameSize/);
    expect(() => new FramePool({ frameSize: 8, maxFrames: 0 })).toThrow(/maxFrames/);
    expect(() => new FramePool({ frameSize: 8, maxFrames: 1 }).resize(-1)).toThrow(/frameSize/);
  });
});
