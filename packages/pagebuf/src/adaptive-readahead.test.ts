import { describe, expect, it } from 'vitest';
import { AdaptiveReadahead, type CompletionTransition } from './adaptive-readahead.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** One full sequential read of the policy's choice; returns its size and the transition. */
function fullRead(p: AdaptiveReadahead, demand = 4 * KiB): [number, CompletionTransition] {
  const at = p.nextAddress;
  const size = p.decide(at, demand);
  p.issued(at, size);
  return [size, p.completed(size, size)];
}

describe('AdaptiveReadahead', () => {
  it('starts at the minimum and doubles after each full sequential read up to the maximum', () => {
    const p = new AdaptiveReadahead({ minReadSize: 128 * KiB, maxReadSize: 8 * MiB });
    expect(p.window).toBe(128 * KiB);
    expect(p.phase).toBe('sequential');
    const steps: [number, CompletionTransition, number][] = [];
    for (let i = 0; i < 8; i++) {
      const [size, t] = fullRead(p);
      steps.push([size / KiB, t, p.window / KiB]);
    }
    expect(steps).toEqual([
      [128, 'grow', 256],
      [256, 'grow', 512],
      [512, 'grow', 1024],
      [1024, 'grow', 2048],
      [2048, 'grow', 4096],
      [4096, 'grow', 8192],
      // log2(8 MiB / 128 KiB) = 6 full reads reach the maximum; it holds there.
      [8192, 'hold', 8192],
      [8192, 'hold', 8192],
    ]);
  });

  it('returns to the minimum after a short read', () => {
    const p = new AdaptiveReadahead({ minReadSize: 128 * KiB, maxReadSize: 8 * MiB });
    for (let i = 0; i < 6; i++) fullRead(p);
    expect(p.window).toBe(8 * MiB);
    const at = p.nextAddress;
    const size = p.decide(at, 4 * KiB);
    p.issued(at, size);
    expect(p.completed(size, size - 1)).toBe('reset-short');
    expect(p.window).toBe(128 * KiB);
    // Growth starts over from the minimum.
    expect(fullRead(p)).toEqual([128 * KiB, 'grow']);
  });

  it('on a non-sequential read, resets and reads only the demand until reads are sequential again', () => {
    const p = new AdaptiveReadahead({ minReadSize: 128 * KiB, maxReadSize: 8 * MiB }, 0);
    for (let i = 0; i < 4; i++) fullRead(p);
    expect(p.window).toBe(2 * MiB);

    const jump = 100 * MiB;
    expect(p.decide(jump, 16 * KiB)).toBe(16 * KiB);
    expect(p.lastRequest).toBe('reset-non-sequential');
    expect(p.window).toBe(128 * KiB);
    expect(p.phase).toBe('probing');
    expect(p.readsAhead).toBe(false);
    p.issued(jump, 16 * KiB);
    expect(p.completed(16 * KiB, 16 * KiB)).toBe('probe');
    expect(p.phase).toBe('probing');

    // A second adjacent read: still only the demand, then read-ahead resumes.
    expect(p.decide(jump + 16 * KiB, 16 * KiB)).toBe(16 * KiB);
    expect(p.lastRequest).toBe('sequential');
    p.issued(jump + 16 * KiB, 16 * KiB);
    expect(p.completed(16 * KiB, 16 * KiB)).toBe('start-readahead');
    expect(p.phase).toBe('sequential');
    expect(p.readsAhead).toBe(true);
    expect(p.window).toBe(128 * KiB);

    // Continuing where the probes ended: a whole window, then growth.
    expect(p.decide(jump + 32 * KiB, 16 * KiB)).toBe(128 * KiB);
    expect(p.lastRequest).toBe('sequential');
    p.issued(jump + 32 * KiB, 128 * KiB);
    expect(p.completed(128 * KiB, 128 * KiB)).toBe('grow');
    expect(p.window).toBe(256 * KiB);
  });

  it('needs probeReads full reads in a row, and a jump in between starts over', () => {
    const p = new AdaptiveReadahead({ minReadSize: 64 * KiB, maxReadSize: MiB, probeReads: 3 });
    const read = (at: number) => {
      const size = p.decide(at, 4 * KiB);
      p.issued(at, size);
      return [size / KiB, p.completed(size, size)];
    };
    expect(read(MiB)).toEqual([4, 'probe']);
    expect(read(MiB + 4 * KiB)).toEqual([4, 'probe']);
    expect(read(5 * MiB)).toEqual([4, 'probe']); // jumped: the streak restarts
    expect(read(5 * MiB + 4 * KiB)).toEqual([4, 'probe']);
    expect(read(5 * MiB + 8 * KiB)).toEqual([4, 'start-readahead']);
    expect(read(5 * MiB + 12 * KiB)).toEqual([64, 'grow']);
    expect(() => new AdaptiveReadahead({ probeReads: 0 })).toThrow(/probeReads/);
  });

  it('keeps probing while the reads keep jumping (random access never reads ahead)', () => {
    const p = new AdaptiveReadahead({ minReadSize: 128 * KiB, maxReadSize: 8 * MiB });
    let requested = 0;
    for (let i = 0; i < 100; i++) {
      const at = ((i * 7919) % 1000) * 64 * KiB + 1;
      const size = p.decide(at, 4 * KiB);
      requested += size;
      p.issued(at, size);
      p.completed(size, size);
    }
    // Every access jumps (the first one too: the scan was declared at 0), so
    // each read is exactly the demand.
    expect(requested).toBe(100 * 4 * KiB);
  });

  it('reads at least the demand even when it exceeds the window', () => {
    const p = new AdaptiveReadahead({ minReadSize: 8 * KiB, maxReadSize: 64 * KiB });
    expect(p.decide(0, 32 * KiB)).toBe(32 * KiB);
  });

  it('validates its options', () => {
    expect(() => new AdaptiveReadahead({ minReadSize: 0 })).toThrow(/minReadSize/);
    expect(() => new AdaptiveReadahead({ minReadSize: 1024, maxReadSize: 512 })).toThrow(
      /maxReadSize/,
    );
  });
});
