import type { Address, ByteCount } from './address.js';
import type { DeviceStatsSnapshot } from './device-stats.js';

/**
 * A device: a flat, append-mostly address space of bytes stored in segments
 * of `segmentSize` bytes (segment n holds `[n * segmentSize, (n+1) * segmentSize)`).
 *
 * Contract (checked by the conformance suite in `@strata/io/testing`):
 * - `read` fills `into` from `address` and resolves with the bytes read; it
 *   reads fewer only at the end of the device (`endAddress`). Holes read as 0.
 * - `write` stores all of `from` at `address` or rejects.
 * - `read` or `write` below `beginAddress` (truncated) rejects with ERR_ADDRESS_OUT_OF_RANGE,
 *   as does an IO reaching past 2^48 or a negative address.
 * - A misaligned address or length (when `alignment > 1`) rejects with ERR_INVALID_ARGUMENT.
 * - `truncateUntil(a)` drops every whole segment below `a`; `beginAddress`
 *   becomes the start of the segment holding `a` (no-op if that is not above
 *   `beginAddress`); `endAddress` is raised to `beginAddress` if it was below.
 * - Operations beyond `maxInFlight` wait in a FIFO queue; none fails for being busy.
 * - After `close()`, every operation rejects with ERR_DEVICE_CLOSED. Operations
 *   already in flight complete; queued ones reject with ERR_DEVICE_CLOSED;
 *   `close()` resolves once the in-flight ones are done. Closing twice is fine.
 * - Other failures reject with a `StrataError` (an OS failure is an `IoError`
 *   with `osCode`, `address` and `segment`).
 * - Buffers passed in belong to the caller again once the promise settles.
 */
export interface Device {
  readonly name: string;
  readonly segmentSize: ByteCount;
  /** Required alignment of addresses and lengths (1 = none). */
  readonly alignment: ByteCount;
  /** Operations issued to the backing store at once; more wait in a FIFO queue. */
  readonly maxInFlight: number;
  /** First readable address: data below it was truncated away. */
  readonly beginAddress: Address;
  /** One past the highest byte ever written (the device's end). */
  readonly endAddress: Address;

  read(address: Address, into: Uint8Array): Promise<ByteCount>;
  write(address: Address, from: Uint8Array): Promise<void>;
  /** Make every completed write durable. */
  sync(): Promise<void>;
  truncateUntil(address: Address): Promise<void>;
  close(): Promise<void>;
  readonly closed: boolean;

  stats(): DeviceStatsSnapshot;
  resetStats(): void;
}

export interface DeviceOptions {
  /** Bytes per segment, a power of two. Default 1 GiB. */
  segmentSize?: ByteCount;
  /** Address and length alignment; 1 means none. Default 1. */
  alignment?: ByteCount;
  /** Operations in flight at once; more wait in a queue. Default 32. */
  maxInFlight?: number;
}

export const DEFAULT_SEGMENT_SIZE: ByteCount = 1 << 30;
export const DEFAULT_MAX_IN_FLIGHT = 32;
