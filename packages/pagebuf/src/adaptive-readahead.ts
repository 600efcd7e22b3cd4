import { type Address, type ByteCount, InvalidArgumentError } from '@strata/io';
import { DEFAULT_MAX_READ_SIZE, DEFAULT_MIN_READ_SIZE } from './read-mode.js';

/**
 * - `sequential`: the reads so far run one after the other; read a whole
 *   window, and let the reader keep reads in flight ahead of the caller.
 * - `probing`: the last access jumped; read only what the caller needs and
 *   nothing ahead, until `probeReads` full reads in a row show the access is
 *   sequential again. This is what keeps random access from over-reading
 *   (RocksDB likewise starts read-ahead only after two sequential reads): two
 *   random accesses that happen to be adjacent do not start it.
 */
export type ReadaheadPhase = 'sequential' | 'probing';

/** What `decide` found about the address asked for. */
export type RequestTransition =
  /** The request continues where the last read ended. */
  | 'sequential'
  /** The request jumped: window back to the minimum, phase `probing`. */
  | 'reset-non-sequential';

/** What `completed` did to the window. */
export type CompletionTransition =
  /** A full sequential read: the window doubled. */
  | 'grow'
  /** A full read while probing, not yet enough of them in a row to read ahead. */
  | 'probe'
  /** A full sequential read with the window already at the maximum. */
  | 'hold'
  /** The `probeReads`-th full read in a row while probing: read-ahead starts again at the minimum. */
  | 'start-readahead'
  /** A short read (end of the device): window back to the minimum. */
  | 'reset-short';

export interface AdaptiveReadaheadOptions {
  minReadSize?: ByteCount;
  maxReadSize?: ByteCount;
  /** Full sequential reads, after a jump, before read-ahead resumes. Default 2. */
  probeReads?: number;
}

export const DEFAULT_PROBE_READS = 2;

/**
 * The adaptive read-ahead policy, apart from any IO so it can be stepped
 * through in tests. The reader drives it with three calls per read:
 *
 * 1. `decide(address, demand)` before reading at `address` the `demand`
 *    bytes the caller needs at least; returns how many bytes to read.
 * 2. `issued(address, length)` once the reader settled on the read's real
 *    length (it may clip to a page boundary or the range end).
 * 3. `completed(requested, got)` when that read's bytes are consumed, in
 *    issue order.
 *
 * The window starts at `minReadSize`, doubles after each full sequential
 * read up to `maxReadSize`, and returns to the minimum after a short read or
 * a jump. The reader sizes its buffers to `window`, so a reset is also when
 * it gives memory back.
 */
export class AdaptiveReadahead {
  readonly minReadSize: ByteCount;
  readonly maxReadSize: ByteCount;
  readonly probeReads: number;
  #window: ByteCount;
  #probeStreak = 0;
  #phase: ReadaheadPhase = 'sequential';
  #nextAddress: Address;
  #lastRequest: RequestTransition = 'sequential';

  /** A new policy treats `startAddress` as the continuation of a declared sequential scan. */
  constructor(options: AdaptiveReadaheadOptions = {}, startAddress: Address = 0) {
    this.minReadSize = options.minReadSize ?? DEFAULT_MIN_READ_SIZE;
    this.maxReadSize = options.maxReadSize ?? DEFAULT_MAX_READ_SIZE;
    if (!Number.isInteger(this.minReadSize) || this.minReadSize < 1) {
      throw new InvalidArgumentError(
        `minReadSize must be a positive integer, got ${this.minReadSize}`,
      );
    }
    if (!Number.isInteger(this.maxReadSize) || this.maxReadSize < this.minReadSize) {
      throw new InvalidArgumentError(
        `maxReadSize must be an integer >= minReadSize, got ${this.maxReadSize}`,
      );
    }
    this.probeReads = options.probeReads ?? DEFAULT_PROBE_READS;
    if (!Number.isInteger(this.probeReads) || this.probeReads < 1) {
      throw new InvalidArgumentError(
        `probeReads must be a positive integer, got ${this.probeReads}`,
      );
    }
    this.#window = this.minReadSize;
    this.#nextAddress = startAddress;
  }

  /** Bytes a sequential read asks for now. */
  get window(): ByteCount {
    return this.#window;
  }

  get phase(): ReadaheadPhase {
    return this.#phase;
  }

  /** Where the next read must start to count as sequential. */
  get nextAddress(): Address {
    return this.#nextAddress;
  }

  /** What the last `decide` found. */
  get lastRequest(): RequestTransition {
    return this.#lastRequest;
  }

  /** Whether the reader may keep reads in flight beyond the one the caller waits for. */
  get readsAhead(): boolean {
    return this.#phase === 'sequential';
  }

  /**
   * Bytes to read at `address`, given the caller needs `demand` bytes there.
   * A jump resets the window first (see `lastRequest`).
   */
  decide(address: Address, demand: ByteCount): ByteCount {
    if (address !== this.#nextAddress) {
      this.#window = this.minReadSize;
      this.#phase = 'probing';
      this.#probeStreak = 0;
      this.#lastRequest = 'reset-non-sequential';
    } else {
      this.#lastRequest = 'sequential';
    }
    return this.#phase === 'sequential' ? Math.max(this.#window, demand) : demand;
  }

  /** Records the read the reader actually issued at `address`. */
  issued(address: Address, length: ByteCount): void {
    this.#nextAddress = address + length;
  }

  /** Feeds back a consumed read: `got < requested` means the device ended there. */
  completed(requested: ByteCount, got: ByteCount): CompletionTransition {
    if (got < requested) {
      this.#window = this.minReadSize;
      this.#probeStreak = 0;
      return 'reset-short';
    }
    if (this.#phase === 'probing') {
      if (++this.#probeStreak < this.probeReads) return 'probe';
      this.#phase = 'sequential';
      return 'start-readahead';
    }
    if (this.#window >= this.maxReadSize) return 'hold';
    this.#window = Math.min(this.#window * 2, this.maxReadSize);
    return 'grow';
  }
}
