import { RdbError } from './errors.js';
import { int64Entry, type PackedEntry } from './packed-entry.js';

// Listpack (src/listpack.c): <total bytes u32le> <count u16le> entries... 0xFF.
// Each entry is <encoding+data> <backlen>, backlen being the 1..5 byte length
// of encoding+data, so reading forwards skips it by size.

const LP_HEADER = 6;
const LP_EOF = 0xff;

function backlenSize(l: number): number {
  if (l <= 127) return 1;
  if (l < 16383) return 2;
  if (l < 2097151) return 3;
  if (l < 268435455) return 4;
  return 5;
}

/** The entries of a listpack blob; `base` is its offset in the input, for errors. */
export function readListpack(lp: Buffer, base = 0): PackedEntry[] {
  const bad = (why: string, at: number): RdbError =>
    new RdbError('ERR_RDB_CORRUPT', `invalid listpack: ${why}`, base + at);
  if (lp.length < LP_HEADER + 1) throw bad('shorter than its header', 0);
  const total = lp.readUInt32LE(0);
  if (total !== lp.length) throw bad(`header says ${total} bytes, blob has ${lp.length}`, 0);
  const declared = lp.readUInt16LE(4);
  const out: PackedEntry[] = [];
  let p = LP_HEADER;
  const end = lp.length - 1;
  const need = (n: number): void => {
    if (p + n > end) throw bad('entry runs past the end', p);
  };
  while (p < end) {
    const start = p;
    const b = lp[p] as number;
    let entry: PackedEntry;
    if (b < 0x80) {
      entry = b;
      p += 1;
    } else if ((b & 0xc0) === 0x80) {
      const len = b & 0x3f;
      need(1 + len);
      entry = lp.subarray(p + 1, p + 1 + len);
      p += 1 + len;
    } else if ((b & 0xe0) === 0xc0) {
      need(2);
      let v = ((b & 0x1f) << 8) | (lp[p + 1] as number);
      if (v >= 1 << 12) v -= 1 << 13;
      entry = v;
      p += 2;
    } else if ((b & 0xf0) === 0xe0) {
      need(2);
      const len = ((b & 0x0f) << 8) | (lp[p + 1] as number);
      need(2 + len);
      entry = lp.subarray(p + 2, p + 2 + len);
      p += 2 + len;
    } else {
      switch (b) {
        case 0xf0: {
          need(5);
          const len = lp.readUInt32LE(p + 1);
          need(5 + len);
          entry = lp.subarray(p + 5, p + 5 + len);
          p += 5 + len;
          break;
        }
        case 0xf1:
          need(3);
          entry = lp.readInt16LE(p + 1);
          p += 3;
          break;
        case 0xf2:
          need(4);
          entry = lp.readIntLE(p + 1, 3);
          p += 4;
          break;
        case 0xf3:
          need(5);
          entry = lp.readInt32LE(p + 1);
          p += 5;
          break;
        case 0xf4:
          need(9);
          entry = int64Entry(lp.readBigInt64LE(p + 1));
          p += 9;
          break;
        default:
          throw bad(`unknown entry encoding 0x${b.toString(16)}`, p);
      }
    }
    const bl = backlenSize(p - start);
    need(bl);
    p += bl;
    out.push(entry);
  }
  if (lp[end] !== LP_EOF) throw bad('missing end byte', end);
  if (declared !== 0xffff && declared !== out.length) {
    throw bad(`header counts ${declared} entries, found ${out.length}`, 4);
  }
  return out;
}

// Writing: the encodings Redis's lpEncodeString/lpEncodeInteger choose, so a
// listpack we build is one Redis would build from the same elements.

function encodeBacklen(l: number, out: number[]): void {
  if (l <= 127) out.push(l);
  else if (l < 16383) out.push(l >> 7, (l & 127) | 128);
  else if (l < 2097151) out.push(l >> 14, ((l >> 7) & 127) | 128, (l & 127) | 128);
  else if (l < 268435455)
    out.push(l >> 21, ((l >> 14) & 127) | 128, ((l >> 7) & 127) | 128, (l & 127) | 128);
  else
    out.push(
      l >>> 28,
      ((l >> 21) & 127) | 128,
      ((l >> 14) & 127) | 128,
      ((l >> 7) & 127) | 128,
      (l & 127) | 128,
    );
}

/** The integer a string element stands for when Redis would store it as one (string2ll rules), else undefined. */
export function strictInt64(s: Buffer): bigint | undefined {
  const n = s.length;
  if (n === 0 || n > 20) return undefined;
  const t = s.toString('latin1');
  if (!/^(0|-?[1-9][0-9]*)$/.test(t)) return undefined;
  const v = BigInt(t);
  if (v < -(2n ** 63n) || v > 2n ** 63n - 1n) return undefined;
  return v;
}

/** One element as a listpack holds it: its encoding and data, then its backlen. */
export function listpackElement(s: Buffer): Buffer {
  const v = strictInt64(s);
  let enc: Buffer;
  if (v !== undefined) {
    if (v >= 0n && v <= 127n) enc = Buffer.from([Number(v)]);
    else if (v >= -4096n && v <= 4095n) {
      const u = Number(v) & 0x1fff;
      enc = Buffer.from([0xc0 | (u >> 8), u & 0xff]);
    } else if (v >= -32768n && v <= 32767n) {
      enc = Buffer.alloc(3);
      enc[0] = 0xf1;
      enc.writeInt16LE(Number(v), 1);
    } else if (v >= -8388608n && v <= 8388607n) {
      enc = Buffer.alloc(4);
      enc[0] = 0xf2;
      enc.writeIntLE(Number(v), 1, 3);
    } else if (v >= -2147483648n && v <= 2147483647n) {
      enc = Buffer.alloc(5);
      enc[0] = 0xf3;
      enc.writeInt32LE(Number(v), 1);
    } else {
      enc = Buffer.alloc(9);
      enc[0] = 0xf4;
      enc.writeBigInt64LE(v, 1);
    }
  } else if (s.length < 64) {
    enc = Buffer.concat([Buffer.from([0x80 | s.length]), s]);
  } else if (s.length < 4096) {
    enc = Buffer.concat([Buffer.from([0xe0 | (s.length >> 8), s.length & 0xff]), s]);
  } else {
    const h = Buffer.alloc(5);
    h[0] = 0xf0;
    h.writeUInt32LE(s.length, 1);
    enc = Buffer.concat([h, s]);
  }
  const bl: number[] = [];
  encodeBacklen(enc.length, bl);
  return Buffer.concat([enc, Buffer.from(bl)]);
}

/** Bytes of a listpack's header and end byte. */
export const LISTPACK_OVERHEAD = LP_HEADER + 1;

/** A listpack of elements already encoded (listpackElement), `count` of them. */
export function listpackOf(elements: readonly Buffer[], count: number): Buffer {
  let size = LISTPACK_OVERHEAD;
  for (const e of elements) size += e.length;
  const header = Buffer.alloc(LP_HEADER);
  header.writeUInt32LE(size, 0);
  header.writeUInt16LE(Math.min(count, 0xffff), 4);
  return Buffer.concat([header, ...elements, Buffer.from([LP_EOF])], size);
}

/** A listpack holding `entries` (strings that look like integers are stored as integers, as Redis does). */
export function writeListpack(entries: readonly Buffer[]): Buffer {
  return listpackOf(entries.map(listpackElement), entries.length);
}
