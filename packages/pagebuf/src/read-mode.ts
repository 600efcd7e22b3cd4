import { type ByteCount, InvalidArgumentError } from '@strata/io';

export const DEFAULT_MIN_READ_SIZE: ByteCount = 128 * 1024;
export const DEFAULT_MAX_READ_SIZE: ByteCount = 8 * 1024 * 1024;
/**
 * Two reads of up to 8 MiB in flight while the caller works: on our test VM
 * one 8 MiB read ahead left the disk idle between reads as often as not when
 * processing took as long as reading; two matched double buffering of 32 MiB
 * pages (see `pagebuf-scan`), for 24 MiB of frames at most.
 */
export const DEFAULT_READS_AHEAD = 2;

/**
 * How a page reader buffers:
 * - `single`: one frame; page n+1 is read only after the caller is done
 *   with page n. Right for bounded work (one SCAN call) that rarely needs a
 *   second page.
 * - `double`: two frames; page n+1 is read while the caller processes page n.
 * - `frames`: `count` frames; up to `count - 1` pages are read ahead.
 * - `adaptive`: reads grow from `minReadSize`, doubling after each full
 *   sequential read up to `maxReadSize`, with `readsAhead` reads in flight
 *   while the caller works; a short or non-sequential read drops back to the
 *   minimum and gives the memory back. Right for whole-log work.
 */
export type ReadMode =
  | { readonly kind: 'single' }
  | { readonly kind: 'double' }
  | { readonly kind: 'frames'; readonly count: number }
  | {
      readonly kind: 'adaptive';
      readonly minReadSize: ByteCount;
      readonly maxReadSize: ByteCount;
      readonly readsAhead: number;
      /**
       * Device reads outstanding at once, at most (default: all of them,
       * `readsAhead + 1`). Under the cap, the next read ahead is issued as
       * soon as one completes, so the frames still fill ahead of the caller;
       * 1 makes the file see strictly sequential reads (concurrent reads of
       * one file can look random to the kernel's own readahead).
       */
      readonly concurrentReads?: number;
    };

export interface AdaptiveModeOptions {
  /** First (and post-reset) read-ahead size. Default 128 KiB. */
  minReadSize?: ByteCount;
  /** Largest read-ahead size. Default 8 MiB. */
  maxReadSize?: ByteCount;
  /** Reads in flight while the caller processes a frame. Default 2. */
  readsAhead?: number;
  /** Device reads outstanding at once, 1..readsAhead + 1. Default readsAhead + 1. */
  concurrentReads?: number;
}

const SINGLE: ReadMode = Object.freeze({ kind: 'single' });
const DOUBLE: ReadMode = Object.freeze({ kind: 'double' });

/** Constructors for each `ReadMode`. */
export const readMode = {
  single: (): ReadMode => SINGLE,
  double: (): ReadMode => DOUBLE,
  frames: (count: number): ReadMode => checkReadMode({ kind: 'frames', count }),
  adaptive: (options: AdaptiveModeOptions = {}): ReadMode =>
    checkReadMode({
      kind: 'adaptive',
      minReadSize: options.minReadSize ?? DEFAULT_MIN_READ_SIZE,
      maxReadSize: options.maxReadSize ?? DEFAULT_MAX_READ_SIZE,
      readsAhead: options.readsAhead ?? DEFAULT_READS_AHEAD,
      ...(options.concurrentReads === undefined
        ? {}
        : { concurrentReads: options.concurrentReads }),
    }),
} as const;

/**
 * Parses the names used on command lines and in bench variants: `single`,
 * `double`, `frames<N>` (e.g. `frames4`) and `adaptive` (default sizes).
 */
export function parseReadMode(name: string): ReadMode {
  if (name === 'single') return readMode.single();
  if (name === 'double') return readMode.double();
  if (name === 'adaptive') return readMode.adaptive();
  const m = /^frames(\d+)$/.exec(name);
  if (m?.[1] !== undefined) return readMode.frames(Number(m[1]));
  throw new InvalidArgumentError(
    `unknown read mode '${name}' (single, double, frames<N>, adaptive)`,
  );
}

/** The name `parseReadMode` accepts for a mode (adaptive sizes are not encoded). */
export function readModeName(mode: ReadMode): string {
  return mode.kind === 'frames' ? `frames${mode.count}` : mode.kind;
}

/** Frames a reader in this mode holds at most: the caller's plus those read ahead. */
export function framesForMode(mode: ReadMode): number {
  switch (mode.kind) {
    case 'single':
      return 1;
    case 'double':
      return 2;
    case 'frames':
      return mode.count;
    case 'adaptive':
      return 1 + mode.readsAhead;
  }
}

/** Throws `InvalidArgumentError` for a malformed mode; returns it otherwise. */
export function checkReadMode(mode: ReadMode): ReadMode {
  switch (mode.kind) {
    case 'single':
    case 'double':
      return mode;
    case 'frames':
      if (!Number.isInteger(mode.count) || mode.count < 1) {
        throw new InvalidArgumentError(
          `frames mode needs a positive frame count, got ${mode.count}`,
        );
      }
      return mode;
    case 'adaptive':
      if (!Number.isInteger(mode.minReadSize) || mode.minReadSize < 1) {
        throw new InvalidArgumentError(
          `minReadSize must be a positive integer, got ${mode.minReadSize}`,
        );
      }
      if (!Number.isInteger(mode.maxReadSize) || mode.maxReadSize < mode.minReadSize) {
        throw new InvalidArgumentError(
          `maxReadSize must be an integer >= minReadSize (${mode.minReadSize}), got ${mode.maxReadSize}`,
        );
      }
      if (!Number.isInteger(mode.readsAhead) || mode.readsAhead < 0) {
        throw new InvalidArgumentError(
          `readsAhead must be an integer >= 0, got ${mode.readsAhead}`,
        );
      }
      if (
        mode.concurrentReads !== undefined &&
        (!Number.isInteger(mode.concurrentReads) ||
          mode.concurrentReads < 1 ||
          mode.concurrentReads > mode.readsAhead + 1)
      ) {
        throw new InvalidArgumentError(
          `concurrentReads must be an integer in 1..readsAhead + 1 (${mode.readsAhead + 1}), got ${mode.concurrentReads}`,
        );
      }
      return mode;
  }
}
