/**
 * FUNCTION DUMP's payload as Redis 7.0 writes it: for each library, the
 * RDB opcode FUNCTION2 (245) and its code as an RDB string; then the RDB
 * version (10, two bytes little-endian) and a CRC64 (Jones, reflected, as
 * Redis's crc64) of everything before it, little-endian. Strata writes
 * the code uncompressed; it reads Redis's LZF-compressed strings too.
 */
const FUNCTION2 = 245;
const RDB_VERSION = 10;

const CRC64_POLY = 0x95ac9329ac4bc9b5n;
const CRC64_TABLE: readonly bigint[] = (() => {
  const t: bigint[] = [];
  for (let i = 0; i < 256; i++) {
    let crc = BigInt(i);
    for (let j = 0; j < 8; j++) crc = crc & 1n ? (crc >> 1n) ^ CRC64_POLY : crc >> 1n;
    t.push(crc);
  }
  return t;
})();

export function crc64(bytes: Uint8Array): bigint {
  let crc = 0n;
  for (const b of bytes) crc = CRC64_TABLE[Number((crc ^ BigInt(b)) & 0xffn)]! ^ (crc >> 8n);
  return crc;
}

function rdbLength(n: number): Buffer {
  if (n < 64) return Buffer.from([n]);
  if (n < 16384) return Buffer.from([0x40 | (n >> 8), n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = 0x80;
  b.writeUInt32BE(n, 1);
  return b;
}

export function dumpLibraries(codes: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const code of codes) parts.push(Buffer.from([FUNCTION2]), rdbLength(code.length), code);
  const body = Buffer.concat([...parts, Buffer.from([RDB_VERSION & 0xff, RDB_VERSION >> 8])]);
  const crc = Buffer.alloc(8);
  crc.writeBigUInt64LE(crc64(body));
  return Buffer.concat([body, crc]);
}

/** The library codes of a payload, or null when it is not one (Redis: "payload version or checksum are wrong"). */
export function restoreLibraries(payload: Buffer): Buffer[] | null {
  if (payload.length < 10) return null;
  const body = payload.subarray(0, payload.length - 8);
  const version = body.readUInt16LE(body.length - 2);
  if (version > RDB_VERSION || payload.readBigUInt64LE(payload.length - 8) !== crc64(body))
    return null;
  const codes: Buffer[] = [];
  let p = 0;
  const end = body.length - 2;
  while (p < end) {
    if (body[p] !== FUNCTION2) return null;
    const s = readString(body, p + 1);
    if (s === null) return null;
    codes.push(s.value);
    p = s.next;
  }
  return codes;
}

function readLength(b: Buffer, p: number): { n: number; next: number; lzf: boolean } | null {
  if (p >= b.length) return null;
  const t = b[p]! >> 6;
  if (t === 0) return { n: b[p]! & 0x3f, next: p + 1, lzf: false };
  if (t === 1) return { n: ((b[p]! & 0x3f) << 8) | b[p + 1]!, next: p + 2, lzf: false };
  if (b[p] === 0x80) return { n: b.readUInt32BE(p + 1), next: p + 5, lzf: false };
  if (b[p] === 0x81) return { n: Number(b.readBigUInt64BE(p + 1)), next: p + 9, lzf: false };
  if (b[p] === 0xc3) return { n: 0, next: p + 1, lzf: true };
  return null;
}

function readString(b: Buffer, p: number): { value: Buffer; next: number } | null {
  const len = readLength(b, p);
  if (len === null) return null;
  if (!len.lzf) {
    if (len.next + len.n > b.length) return null;
    return { value: b.subarray(len.next, len.next + len.n), next: len.next + len.n };
  }
  const clen = readLength(b, len.next);
  const ulen = clen === null ? null : readLength(b, clen.next);
  if (clen === null || ulen === null || ulen.next + clen.n > b.length) return null;
  const out = lzfDecompress(b.subarray(ulen.next, ulen.next + clen.n), ulen.n);
  return out === null ? null : { value: out, next: ulen.next + clen.n };
}

/** LZF (liblzf's lzf_decompress), as RDB strings use it. */
function lzfDecompress(input: Buffer, size: number): Buffer | null {
  const out = Buffer.alloc(size);
  let i = 0;
  let o = 0;
  while (i < input.length) {
    const ctrl = input[i++]!;
    if (ctrl < 32) {
      const n = ctrl + 1;
      if (o + n > size || i + n > input.length) return null;
      input.copy(out, o, i, i + n);
      i += n;
      o += n;
    } else {
      let n = ctrl >> 5;
      if (n === 7) n += input[i++]!;
      const back = o - ((ctrl & 0x1f) << 8) - input[i++]! - 1;
      n += 2;
      if (back < 0 || o + n > size) return null;
      for (let k = 0; k < n; k++) out[o++] = out[back + k]!;
    }
  }
  return o === size ? out : null;
}
