import { RdbError } from './errors.js';

// Zipmap (src/zipmap.c, hashes in RDB files before Redis 2.6):
// <zmlen u8> then <len> key <len> <free u8> value <free bytes>... 0xFF. A
// length is one byte below 254, or 254 and a 4-byte little-endian length.

/** The field/value pairs of a zipmap blob. */
export function readZipmap(zm: Buffer, base = 0): Array<[Buffer, Buffer]> {
  const bad = (why: string, at: number): RdbError =>
    new RdbError('ERR_RDB_CORRUPT', `invalid zipmap: ${why}`, base + at);
  const out: Array<[Buffer, Buffer]> = [];
  let p = 1;
  const len = (): number => {
    if (p >= zm.length) throw bad('runs past the end', p);
    const b = zm[p] as number;
    if (b < 254) {
      p += 1;
      return b;
    }
    if (b === 254) {
      if (p + 5 > zm.length) throw bad('runs past the end', p);
      const l = zm.readUInt32LE(p + 1);
      p += 5;
      return l;
    }
    throw bad('unexpected end marker', p);
  };
  const take = (n: number): Buffer => {
    if (p + n > zm.length) throw bad('runs past the end', p);
    const s = zm.subarray(p, p + n);
    p += n;
    return s;
  };
  if (zm.length < 2) throw bad('too short', 0);
  while (p < zm.length && zm[p] !== 0xff) {
    const key = take(len());
    const vlen = len();
    const free = take(1)[0] as number;
    const value = take(vlen);
    take(free);
    out.push([key, value]);
  }
  if (zm[p] !== 0xff) throw bad('missing end byte', p);
  return out;
}
