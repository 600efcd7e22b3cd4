import type { Address, ByteCount } from './address.js';
import type { Device, DeviceOptions } from './device.js';
import { DeviceStatsRecorder, type DeviceStatsSnapshot, now } from './device-stats.js';
import {
  type AnyStrataError,
  DeviceClosedError,
  IoError,
  isStrataError,
  OutOfRangeError,
} from './errors.js';
import { IoQueue } from './io-queue.js';
import { SegmentLayout } from './segment-layout.js';

/** A promise shared by synchronous storage hooks so they allocate nothing. */
export const RESOLVED: Promise<void> = Promise.resolve();

/**
 * The shared half of every segmented device: argument, range, alignment and
 * closed checks; the in-flight limit; stats; splitting IO at segment
 * boundaries; begin/end tracking; truncation and close ordering.
 *
 * A subclass implements storage for one segment at a time. The hooks are
 * only called with a slot held, with pieces that lie inside one segment, and
 * never after `close()` resolved; `dropSegments` runs with every slot held
 * (no other IO in flight).
 */
export abstract class SegmentedDevice implements Device {
  readonly name: string;
  readonly segmentSize: ByteCount;
  readonly alignment: ByteCount;
  readonly maxInFlight: number;
  protected readonly layout: SegmentLayout;
  protected readonly recorder = new DeviceStatsRecorder();
  protected readonly queue: IoQueue;
  private begin: Address = 0;
  private end: Address = 0;
  private isClosed = false;
  private closing: Promise<void> | undefined;

  constructor(name: string, options: DeviceOptions = {}) {
    this.name = name;
    this.layout = new SegmentLayout(options);
    this.segmentSize = this.layout.segmentSize;
    this.alignment = this.layout.alignment;
    this.maxInFlight = this.layout.maxInFlight;
    this.queue = new IoQueue(this.maxInFlight, this.recorder);
  }

  get beginAddress(): Address {
    return this.begin;
  }

  get endAddress(): Address {
    return this.end;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** The segment holding `beginAddress`. */
  protected get beginSegment(): number {
    return this.layout.segmentOf(this.begin);
  }

  /** Fills `length` bytes of `into` at `intoOffset` from `segment` at `offset`; holes read as 0. */
  protected abstract readPiece(
    segment: number,
    offset: ByteCount,
    into: Uint8Array,
    intoOffset: ByteCount,
    length: ByteCount,
  ): Promise<void>;

  /** Stores `length` bytes of `from` at `fromOffset` into `segment` at `offset`. */
  protected abstract writePiece(
    segment: number,
    offset: ByteCount,
    from: Uint8Array,
    fromOffset: ByteCount,
    length: ByteCount,
  ): Promise<void>;

  /** Makes every completed write durable. */
  protected abstract syncStorage(): Promise<void>;

  /** Deletes every segment below `segment` (`beginAddress` is already its start). */
  protected abstract dropSegments(segment: number): Promise<void>;

  /** Releases the storage; every operation has finished. */
  protected abstract closeStorage(): Promise<void>;

  /** Sets the bounds found in existing storage; for constructors of persistent devices. */
  protected restoreBounds(begin: Address, end: Address): void {
    this.begin = begin;
    this.end = Math.max(begin, end);
  }

  async read(address: Address, into: Uint8Array): Promise<ByteCount> {
    try {
      this.checkAccess(address, into.length);
      const wait = this.queue.acquire();
      if (wait !== undefined) await wait;
      try {
        this.checkBegin(address);
        const start = now();
        const end = this.end;
        const length = address >= end ? 0 : Math.min(into.length, end - address);
        if (length > 0) {
          const segment = this.layout.segmentOf(address);
          const offset = address - segment * this.segmentSize;
          if (offset + length <= this.segmentSize) {
            await this.readPiece(segment, offset, into, 0, length);
          } else {
            await this.readSplit(address, into, length);
          }
        }
        this.recorder.recordRead(start, length);
        return length;
      } finally {
        this.queue.release();
      }
    } catch (e) {
      throw this.fail(e, address);
    }
  }

  async write(address: Address, from: Uint8Array): Promise<void> {
    try {
      const length = from.length;
      this.checkAccess(address, length);
      const wait = this.queue.acquire();
      if (wait !== undefined) await wait;
      try {
        this.checkBegin(address);
        const start = now();
        if (length > 0) {
          const segment = this.layout.segmentOf(address);
          const offset = address - segment * this.segmentSize;
          if (offset + length <= this.segmentSize) {
            await this.writePiece(segment, offset, from, 0, length);
            if (address + length > this.end) this.end = address + length;
          } else {
            await this.writeSplit(address, from, length);
          }
        }
        this.recorder.recordWrite(start, length);
      } finally {
        this.queue.release();
      }
    } catch (e) {
      throw this.fail(e, address);
    }
  }

  async sync(): Promise<void> {
    try {
      this.checkOpen();
      const wait = this.queue.acquire();
      if (wait !== undefined) await wait;
      try {
        const start = now();
        await this.syncStorage();
        this.recorder.recordSync(start);
      } finally {
        this.queue.release();
      }
    } catch (e) {
      throw this.fail(e, undefined);
    }
  }

  async truncateUntil(address: Address): Promise<void> {
    try {
      this.checkOpen();
      this.layout.checkTruncate(address);
      const segment = this.layout.segmentOf(address);
      const begin = segment * this.segmentSize;
      if (begin <= this.begin) return;
      // From here on, new IO below `begin` rejects; IO already queued
      // re-checks when it gets its slot; IO in flight finishes first.
      this.begin = begin;
      if (this.end < begin) this.end = begin;
      const wait = this.queue.acquireExclusive();
      if (wait !== undefined) await wait;
      try {
        await this.dropSegments(segment);
      } finally {
        this.queue.releaseExclusive();
      }
    } catch (e) {
      throw this.fail(e, address);
    }
  }

  close(): Promise<void> {
    if (this.closing === undefined) this.closing = this.shutdown();
    return this.closing;
  }

  stats(): DeviceStatsSnapshot {
    return this.recorder.snapshot();
  }

  resetStats(): void {
    this.recorder.reset();
  }

  /** Wraps an unexpected failure (an OS error) in an `IoError` carrying its code, address and segment. */
  protected ioError(
    op: string,
    cause: unknown,
    segment: number | undefined,
    address: Address | undefined,
  ): AnyStrataError {
    if (isStrataError(cause)) return cause;
    const osCode = osCodeOf(cause);
    const reason = cause instanceof Error ? cause.message : String(cause);
    const where =
      segment === undefined
        ? ''
        : ` in segment ${segment}${address === undefined ? '' : ` at ${address}`}`;
    return new IoError(`${this.name}: ${op} failed${where}: ${reason}`, {
      cause,
      osCode,
      address,
      segment,
    });
  }

  private async shutdown(): Promise<void> {
    this.isClosed = true;
    this.queue.rejectWaiters(() => new DeviceClosedError(this.name));
    await this.queue.whenIdle();
    await this.closeStorage();
  }

  private checkOpen(): void {
    if (this.isClosed) throw new DeviceClosedError(this.name);
  }

  private checkAccess(address: Address, length: ByteCount): void {
    this.checkOpen();
    this.layout.checkIo(address, length);
    this.checkBegin(address);
  }

  private checkBegin(address: Address): void {
    if (address < this.begin) {
      throw new OutOfRangeError(
        `${this.name}: address ${address} is below the begin address ${this.begin} (truncated)`,
        address,
      );
    }
  }

  private async readSplit(address: Address, into: Uint8Array, length: ByteCount): Promise<void> {
    let done = 0;
    while (done < length) {
      const pos = address + done;
      const segment = this.layout.segmentOf(pos);
      const offset = pos - segment * this.segmentSize;
      const n = Math.min(length - done, this.segmentSize - offset);
      await this.readPiece(segment, offset, into, done, n);
      done += n;
    }
  }

  private async writeSplit(address: Address, from: Uint8Array, length: ByteCount): Promise<void> {
    let done = 0;
    while (done < length) {
      const pos = address + done;
      const segment = this.layout.segmentOf(pos);
      const offset = pos - segment * this.segmentSize;
      const n = Math.min(length - done, this.segmentSize - offset);
      await this.writePiece(segment, offset, from, done, n);
      done += n;
      if (pos + n > this.end) this.end = pos + n;
    }
  }

  private fail(e: unknown, address: Address | undefined): AnyStrataError {
    this.recorder.recordError();
    if (isStrataError(e)) return e;
    return this.ioError(
      'operation',
      e,
      address === undefined ? undefined : this.layout.segmentOf(address),
      address,
    );
  }
}

function osCodeOf(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string') {
    return e.code;
  }
  return undefined;
}
