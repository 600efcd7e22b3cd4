import { crc32 } from 'node:zlib';

/**
 * The clean-close file (a commit point, or a clean close: where the log is
 * one moment): two slots, written in turn. A commit writes the slot its
 * sequence number picks and syncs it, with no new file, rename or
 * directory sync (one fdatasync where a replaced file needs three), and a
 * write torn by a crash leaves the other slot, the previous point, whole.
 *
 * A slot: magic (u32), crc32 of the rest (u32), sequence (f64), point
 * (f64), 8 zero bytes; all little-endian. Files of older stores hold the
 * point as decimal text, read as such.
 */
export const SLOT_BYTES = 32;
export const RECORD_BYTES = 2 * SLOT_BYTES;
const MAGIC = 0x31434353; // "SCC1"

export interface CleanCloseSlot {
  readonly seq: number;
  readonly point: number;
}

/** Slot `seq % 2`'s bytes for `point`. */
export function encodeSlot(seq: number, point: number): Buffer {
  const b = Buffer.alloc(SLOT_BYTES);
  b.writeUInt32LE(MAGIC, 0);
  b.writeDoubleLE(seq, 8);
  b.writeDoubleLE(point, 16);
  b.writeUInt32LE(crc32(b.subarray(8)), 4);
  return b;
}

/** The whole file with `point` in slot 1 as sequence 1 (a new file). */
export function newRecord(point: number): Buffer {
  const b = Buffer.alloc(RECORD_BYTES);
  encodeSlot(1, point).copy(b, SLOT_BYTES);
  return b;
}

/** Where slot `seq` goes in the file. */
export function slotOffset(seq: number): number {
  return (seq % 2) * SLOT_BYTES;
}

function decodeSlot(b: Buffer): CleanCloseSlot | null {
  if (b.length < SLOT_BYTES || b.readUInt32LE(0) !== MAGIC) return null;
  if (b.readUInt32LE(4) !== crc32(b.subarray(8, SLOT_BYTES))) return null;
  const seq = b.readDoubleLE(8);
  const point = b.readDoubleLE(16);
  if (!Number.isSafeInteger(seq) || seq < 1 || !Number.isSafeInteger(point) || point < 0) {
    return null;
  }
  return { seq, point };
}

/**
 * The newest valid slot of a clean-close file, or of an older store's
 * decimal text (sequence 0: the next write replaces that file whole); null
 * when neither reads.
 */
export function decodeRecord(bytes: Buffer): CleanCloseSlot | null {
  if (bytes.length === RECORD_BYTES) {
    const a = decodeSlot(bytes.subarray(0, SLOT_BYTES));
    const b = decodeSlot(bytes.subarray(SLOT_BYTES));
    if (a === null) return b;
    if (b === null) return a;
    return a.seq > b.seq ? a : b;
  }
  const text = bytes.toString('latin1').trim();
  if (!/^\d{1,16}$/.test(text)) return null;
  const point = Number(text);
  return Number.isSafeInteger(point) ? { seq: 0, point } : null;
}
