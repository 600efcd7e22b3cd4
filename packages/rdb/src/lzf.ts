import { RdbError } from './errors.js';

// LZF, the compressor Redis uses for strings in RDB files and DUMP payloads
// (rdbcompression, strings over 20 bytes). Format: a control byte below 32 is
// a literal run of ctrl+1 bytes; otherwise the top 3 bits are a match length
// (7 means an extra length byte follows) and the low 5 bits plus the next
// byte are the back-reference distance minus one.

/**
 * Decompresses `input` into exactly `outLength` bytes. `offset` is where the
 * compressed bytes start in the caller's input, for error messages.
 */
export function lzfDecompress(input: Uint8Array, outLength: number, offset = 0): Buffer {
  const out = Buffer.allocUnsafe(outLength);
  let ip = 0;
  let op = 0;
  const bad = (why: string): RdbError =>
    new RdbError('ERR_RDB_CORRUPT', `invalid LZF data: ${why}`, offset + ip);
  while (ip < input.length) {
    const ctrl = input[ip++] as number;
    if (ctrl < 32) {
      const run = ctrl + 1;
      if (ip + run > input.length) throw bad('literal run past the end of the input');
      if (op + run > outLength) throw bad('output longer than declared');
      out.set(input.subarray(ip, ip + run), op);
      ip += run;
      op += run;
    } else {
      let len = ctrl >> 5;
      if (len === 7) {
        if (ip >= input.length) throw bad('match length past the end of the input');
        len += input[ip++] as number;
      }
      if (ip >= input.length) throw bad('match distance past the end of the input');
      const ref = op - ((ctrl & 0x1f) << 8) - 1 - (input[ip++] as number);
      len += 2;
      if (ref < 0) throw bad('back reference before the start of the output');
      if (op + len > outLength) throw bad('output longer than declared');
      // Byte by byte: a match may overlap the bytes it produces.
      for (let i = 0; i < len; i++) out[op + i] = out[ref + i] as number;
      op += len;
    }
  }
  if (op !== outLength) throw bad(`output is ${op} bytes, ${outLength} declared`);
  return out;
}

const HLOG = 16;
const HSIZE = 1 << HLOG;
const MAX_LIT = 1 << 5;
const MAX_OFF = 1 << 13;
const MAX_REF = (1 << 8) + (1 << 3);

/**
 * Compresses `input` the way liblzf 3.6 does with Redis's settings (HLOG 16,
 * VERY_FAST); returns undefined when the result would not fit in `maxOut`
 * bytes (Redis stores such a string uncompressed).
 */
export function lzfCompress(input: Uint8Array, maxOut: number): Buffer | undefined {
  const inLen = input.length;
  if (inLen === 0) return undefined;
  const out = Buffer.allocUnsafe(maxOut + 3 + MAX_LIT);
  // Positions + 1, so 0 means "empty slot".
  const htab = new Int32Array(HSIZE);
  let ip = 0;
  let op = 0;
  let lit = 0;
  op++; // start run
  const first = (p: number): number => ((input[p] as number) << 8) | (input[p + 1] as number);
  const idx = (h: number): number => (((h ^ (h << 5)) >>> (3 * 8 - HLOG)) - h * 5) & (HSIZE - 1);
  let hval = inLen >= 2 ? first(ip) : 0;
  while (ip < inLen - 2) {
    hval = ((hval << 8) | (input[ip + 2] as number)) & 0xffffff;
    const slot = idx(hval);
    const ref = (htab[slot] as number) - 1;
    htab[slot] = ip + 1;
    const off = ip - ref - 1;
    if (
      ref >= 0 &&
      ref < ip &&
      off < MAX_OFF &&
      ref > 0 &&
      input[ref + 2] === input[ip + 2] &&
      input[ref + 1] === input[ip + 1] &&
      input[ref] === input[ip]
    ) {
      let len = 2;
      let maxlen = inLen - ip - len;
      if (maxlen > MAX_REF) maxlen = MAX_REF;
      if (op + 3 + 1 >= maxOut) {
        if (op - (lit ? 0 : 1) + 3 + 1 >= maxOut) return undefined;
      }
      out[op - lit - 1] = lit - 1;
      op -= lit ? 0 : 1;
      do len++;
      while (len < maxlen && input[ref + len] === input[ip + len]);
      len -= 2;
      ip++;
      if (len < 7) {
        out[op++] = (off >> 8) + (len << 5);
      } else {
        out[op++] = (off >> 8) + (7 << 5);
        out[op++] = len - 7;
      }
      out[op++] = off & 0xff;
      lit = 0;
      op++;
      ip += len + 1;
      if (ip >= inLen - 2) break;
      // VERY_FAST: hash the two positions before ip.
      ip--;
      ip--;
      hval = first(ip);
      hval = ((hval << 8) | (input[ip + 2] as number)) & 0xffffff;
      htab[idx(hval)] = ip + 1;
      ip++;
      hval = ((hval << 8) | (input[ip + 2] as number)) & 0xffffff;
      htab[idx(hval)] = ip + 1;
      ip++;
    } else {
      if (op >= maxOut) return undefined;
      lit++;
      out[op++] = input[ip++] as number;
      if (lit === MAX_LIT) {
        out[op - lit - 1] = lit - 1;
        lit = 0;
        op++;
      }
    }
  }
  if (op + 3 > maxOut) return undefined;
  while (ip < inLen) {
    lit++;
    out[op++] = input[ip++] as number;
    if (lit === MAX_LIT) {
      out[op - lit - 1] = lit - 1;
      lit = 0;
      op++;
    }
  }
  out[op - lit - 1] = lit - 1;
  op -= lit ? 0 : 1;
  if (op > maxOut) return undefined;
  return Buffer.from(out.subarray(0, op));
}
