import { RdbError } from './errors.js';
import { int64Entry, type PackedEntry } from './packed-entry.js';

// Ziplist (src/ziplist.c, RDB versions before 10): <zlbytes u32le> <zltail
// u32le> <zllen u16le> entries... 0xFF. Each entry is <prevlen> <encoding>
// <data>; prevlen is 1 byte, or 0xFE and 4 bytes.

const ZL_HEADER = 10;
const ZL_END = 0xff;

/** The entries of a ziplist blob; `base` is its offset in the input, for errors. */
export function readZiplist(zl: Buffer, base = 0): PackedEntry[] {
  const bad = (why: string, at: number): RdbError =>
    new RdbError('ERR_RDB_CORRUPT', `invalid ziplist: ${why}`, base + at);
  if (zl.length < ZL_HEADER + 1) throw bad('shorter than its header', 0);
  const total = zl.readUInt32LE(0);
  if (total !== zl.length) throw bad(`header says ${total} bytes, blob has ${zl.length}`, 0);
  const declared = zl.readUInt16LE(8);
  const end = zl.length - 1;
  const out: PackedEntry[] = [];
  let p = ZL_HEADER;
  const need = (n: number): void => {
    if (p + n > end) throw bad('entry runs past the end', p);
  };
  while (p < end) {
    need(1);
    if (zl[p] === 0xfe) {
      need(5);
      p += 5;
    } else p += 1;
    need(1);
    const b = zl[p] as number;
    const kind = b >> 6;
    if (kind === 0) {
      const len = b & 0x3f;
      need(1 + len);
      out.push(zl.subarray(p + 1, p + 1 + len));
      p += 1 + len;
    } else if (kind === 1) {
      need(2);
      const len = ((b & 0x3f) << 8) | (zl[p + 1] as number);
      need(2 + len);
      out.push(zl.subarray(p + 2, p + 2 + len));
      p += 2 + len;
    } else if (kind === 2) {
      need(5);
      const len = zl.readUInt32BE(p + 1);
      need(5 + len);
      out.push(zl.subarray(p + 5, p + 5 + len));
      p += 5 + len;
    } else if (b === 0xc0) {
      need(3);
      out.push(zl.readInt16LE(p + 1));
      p += 3;
    } else if (b === 0xd0) {
      need(5);
      out.push(zl.readInt32LE(p + 1));
      p += 5;
    } else if (b === 0xe0) {
      need(9);
      out.push(int64Entry(zl.readBigInt64LE(p + 1)));
      p += 9;
    } else if (b === 0xf0) {
      need(4);
      out.push(zl.readIntLE(p + 1, 3));
      p += 4;
    } else if (b === 0xfe) {
      need(2);
      out.push(zl.readInt8(p + 1));
      p += 2;
    } else if (b >= 0xf1 && b <= 0xfd) {
      out.push((b & 0x0f) - 1);
      p += 1;
    } else {
      throw bad(`unknown entry encoding 0x${b.toString(16)}`, p);
    }
  }
  if (zl[end] !== ZL_END) throw bad('missing end byte', end);
  if (declared !== 0xffff && declared !== out.length) {
    throw bad(`header counts ${declared} entries, found ${out.length}`, 8);
  }
  return out;
}
