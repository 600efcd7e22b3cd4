import type { Address, ByteCount, Device } from '@strata/io';
import { type Frame, MutableFrame } from './frame.js';

/** `reading`: a device read is in flight into `buffer`; `done`/`failed`: it settled. */
export type SlotState = 'idle' | 'reading' | 'done' | 'failed';

/**
 * One frame's worth of reader state, allocated once per frame of the mode
 * and reused for every read it carries: the buffer, the read's geometry, its
 * outcome, and the frame and iterator-result objects handed to the caller
 * (so yielding a frame allocates nothing but the read's promises).
 */
export class ReadSlot {
  state: SlotState = 'idle';
  buffer: Buffer | undefined = undefined;
  /** Device address of `buffer[0]`. */
  bufferAddress: Address = 0;
  /** First address the caller wants from this read. */
  address: Address = 0;
  /** One past the last address the caller wants from this read. */
  validEnd: Address = 0;
  /** Where the device read starts (`address` rounded down to the device alignment). */
  readAddress: Address = 0;
  readLength: ByteCount = 0;
  got: ByteCount = 0;
  error: unknown = undefined;
  /** Settles (never rejects) once the read did; `state` then says how. */
  settled: Promise<void> = Promise.resolve();

  readonly frame = new MutableFrame();
  readonly result: IteratorYieldResult<Frame> = { done: false, value: this.frame };

  /** Called once each read settles (after `state` says how): the reader may issue the next. */
  readonly #onSettled: () => void;

  constructor(onSettled: () => void = noop) {
    this.#onSettled = onSettled;
  }

  // Bound once so that issuing a read creates no closures.
  readonly #onRead = (n: ByteCount): void => {
    this.got = n;
    this.state = 'done';
    this.#onSettled();
  };
  readonly #onError = (e: unknown): void => {
    this.error = e;
    this.state = 'failed';
    this.#onSettled();
  };

  /** Issues the read described by the fields; a device that throws synchronously counts as a failed read. */
  start(device: Device): void {
    const buffer = this.buffer;
    if (buffer === undefined) throw new Error('read slot started without a buffer');
    const at = this.readAddress - this.bufferAddress;
    // A view object only for partial reads; a whole-frame read passes the frame itself.
    const into =
      at === 0 && this.readLength === buffer.length
        ? buffer
        : buffer.subarray(at, at + this.readLength);
    this.state = 'reading';
    this.got = 0;
    this.error = undefined;
    let pending: Promise<ByteCount>;
    try {
      pending = device.read(this.readAddress, into);
    } catch (e) {
      pending = Promise.reject(e);
    }
    this.settled = pending.then(this.#onRead, this.#onError);
  }

  /** Points the frame at this slot's valid bytes (`validEnd` already clipped to what was read). */
  fillFrame(sequence: number): void {
    const frame = this.frame;
    frame.buffer = this.buffer!;
    frame.bufferAddress = this.bufferAddress;
    frame.address = this.address;
    frame.offset = this.address - this.bufferAddress;
    frame.length = this.validEnd - this.address;
    frame.sequence = sequence;
  }
}

function noop(): void {}
