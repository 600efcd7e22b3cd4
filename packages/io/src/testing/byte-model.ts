/**
 * The expected contents of a device: a flat byte array with begin and end,
 * which randomized tests update alongside the device and read back from.
 */
export class ByteModel {
  readonly bytes: Uint8Array;
  begin = 0;
  end = 0;

  constructor(capacity: number) {
    this.bytes = new Uint8Array(capacity);
  }

  write(address: number, data: Uint8Array): void {
    this.bytes.set(data, address);
    if (data.length > 0 && address + data.length > this.end) this.end = address + data.length;
  }

  /** What a read of `length` bytes at `address` must return: the count, and the bytes. */
  read(address: number, length: number): Uint8Array {
    const n = address >= this.end ? 0 : Math.min(length, this.end - address);
    return this.bytes.subarray(address, address + n);
  }

  truncate(begin: number): void {
    if (begin <= this.begin) return;
    this.begin = begin;
    if (this.end < begin) this.end = begin;
  }
}
