import { describe, expect, it } from 'vitest';
import {
  ByteReader,
  ByteWriter,
  crc64,
  decodeValue,
  encodeDumpPayload,
  lzfCompress,
  lzfDecompress,
  parseDumpPayload,
  RDB_TYPE,
  RdbError,
  readIntset,
  readListpack,
  readZiplist,
  readZipmap,
  scoreString,
  writeListpack,
} from '../src/index.js';

const b = (s: string): Buffer => Buffer.from(s);

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof RdbError) return e.code;
    throw e;
  }
  return undefined;
}

/** A ziplist built by hand from ziplist.c's format description (Redis 7 cannot write one). */
function ziplist(entries: Array<string | number>): Buffer {
  const parts: Buffer[] = [];
  let prev = 0;
  for (const e of entries) {
    let enc: Buffer;
    if (typeof e === 'string') {
      const s = b(e);
      if (s.length < 64) enc = Buffer.concat([Buffer.from([s.length]), s]);
      else if (s.length < 16384)
        enc = Buffer.concat([Buffer.from([0x40 | (s.length >> 8), s.length & 0xff]), s]);
      else {
        const h = Buffer.alloc(5);
        h[0] = 0x80;
        h.writeUInt32BE(s.length, 1);
        enc = Buffer.concat([h, s]);
      }
    } else if (e >= 0 && e <= 12) enc = Buffer.from([0xf1 + e]);
    else if (e >= -128 && e <= 127) enc = Buffer.from([0xfe, e & 0xff]);
    else if (e >= -32768 && e <= 32767) {
      enc = Buffer.alloc(3);
      enc[0] = 0xc0;
      enc.writeInt16LE(e, 1);
    } else if (e >= -8388608 && e <= 8388607) {
      enc = Buffer.alloc(4);
      enc[0] = 0xf0;
      enc.writeIntLE(e, 1, 3);
    } else if (e >= -2147483648 && e <= 2147483647) {
      enc = Buffer.alloc(5);
      enc[0] = 0xd0;
      enc.writeInt32LE(e, 1);
    } else {
      enc = Buffer.alloc(9);
      enc[0] = 0xe0;
      enc.writeBigInt64LE(BigInt(e), 1);
    }
    let prevlen: Buffer;
    if (prev < 254) prevlen = Buffer.from([prev]);
    else {
      prevlen = Buffer.alloc(5);
      prevlen[0] = 0xfe;
      prevlen.writeUInt32LE(prev, 1);
    }
    const entry = Buffer.concat([prevlen, enc]);
    parts.push(entry);
    prev = entry.length;
  }
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(10);
  header.writeUInt32LE(10 + body.length + 1, 0);
  header.writeUInt32LE(10 + body.length - prev, 4);
  header.writeUInt16LE(entries.length, 8);
  return Buffer.concat([header, body, Buffer.from([0xff])]);
}

/** A value of RDB type `type` whose body is the string `blob`. */
function blobValue(type: number, blob: Buffer): ReturnType<typeof decodeValue> {
  const w = new ByteWriter(false);
  w.len(blob.length).raw(blob);
  return decodeValue(type, new ByteReader(w.toBuffer()));
}

describe('crc64', () => {
  it('has Redis check value for "123456789"', () => {
    expect(crc64(b('123456789'))).toBe(0xe9c6d914c4b8d9can);
    expect(crc64(Buffer.alloc(0))).toBe(0n);
  });
});

describe('lzf', () => {
  it('round-trips repetitive and random data', () => {
    const rep = b('abcabcabcabcabcabcabcabcabcabcabcabc'.repeat(50));
    const c = lzfCompress(rep, rep.length - 4);
    expect(c).toBeDefined();
    expect(c!.length).toBeLessThan(rep.length / 5);
    expect(lzfDecompress(c!, rep.length).equals(rep)).toBe(true);
    const rnd = Buffer.alloc(5000);
    for (let i = 0; i < rnd.length; i++) rnd[i] = (i * 7919 + ((i * i) >> 3)) & 0xff;
    const mixed = Buffer.concat([rnd, rep, rnd.subarray(100, 900)]);
    const c2 = lzfCompress(mixed, mixed.length + 100)!;
    expect(lzfDecompress(c2, mixed.length).equals(mixed)).toBe(true);
  });
  it('refuses incompressible input under the limit, and corrupt input', () => {
    const rnd = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37 + 11) & 0xff));
    expect(lzfCompress(rnd, rnd.length - 4)).toBeUndefined();
    expect(codeOf(() => lzfDecompress(Buffer.from([0x20, 0x05]), 10))).toBe('ERR_RDB_CORRUPT');
    expect(codeOf(() => lzfDecompress(Buffer.from([5, 1, 2]), 6))).toBe('ERR_RDB_CORRUPT');
  });
});

describe('lengths and strings', () => {
  it('reads 6, 14, 32 and 64-bit lengths and the integer string encodings', () => {
    const w = new ByteWriter();
    for (const n of [0, 63, 64, 16383, 16384, 2 ** 32 - 1, 2 ** 33]) w.len(n);
    w.string(b('-128'))
      .string(b('300'))
      .string(b('-70000'))
      .string(b('2147483648'))
      .string(b('007'));
    const r = new ByteReader(w.toBuffer());
    expect([r.len(), r.len(), r.len(), r.len(), r.len(), r.len(), r.len()]).toEqual([
      0,
      63,
      64,
      16383,
      16384,
      2 ** 32 - 1,
      2 ** 33,
    ]);
    const pos = r.pos;
    expect(r.buf[pos]).toBe(0xc0); // ENCVAL INT8
    expect(['-128', '300', '-70000', '2147483648', '007'].map(() => String(r.string()))).toEqual([
      '-128',
      '300',
      '-70000',
      '2147483648',
      '007',
    ]);
    expect(r.remaining).toBe(0);
  });
  it('compresses long strings with LZF and reads them back', () => {
    const s = b('x'.repeat(100));
    const enc = new ByteWriter().string(s).toBuffer();
    expect(enc[0]).toBe(0xc3);
    expect(new ByteReader(enc).string().equals(s)).toBe(true);
    expect(new ByteWriter(false).string(s).toBuffer().length).toBe(102);
  });
  it('fails on a truncated input with the offset', () => {
    const enc = new ByteWriter(false).string(b('hello world')).toBuffer().subarray(0, 6);
    const r = new ByteReader(enc);
    try {
      r.string();
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(RdbError);
      expect((e as RdbError).code).toBe('ERR_RDB_TRUNCATED');
      expect((e as RdbError).offset).toBe(1);
    }
  });
});

describe('listpack', () => {
  it('round-trips every entry encoding', () => {
    const items = [
      '0',
      '127',
      '128',
      '-1',
      '-4096',
      '4095',
      '4096',
      '-32768',
      '32767',
      '32768',
      '-8388608',
      '8388607',
      '8388608',
      '2147483647',
      '2147483648',
      '-9223372036854775808',
      '9223372036854775807',
      '',
      'a',
      'x'.repeat(63),
      'y'.repeat(64),
      'z'.repeat(4095),
      'w'.repeat(4096),
      '01',
      '+1',
      '-0',
    ].map(b);
    const lp = writeListpack(items);
    const back = readListpack(lp).map((e) => (typeof e === 'number' ? String(e) : e.toString()));
    expect(back).toEqual(items.map(String));
    expect(lp[lp.length - 1]).toBe(0xff);
  });
  it('refuses a listpack whose header lies', () => {
    const lp = writeListpack([b('a'), b('b')]);
    lp.writeUInt16LE(3, 4);
    expect(codeOf(() => readListpack(lp))).toBe('ERR_RDB_CORRUPT');
    const short = Buffer.from(writeListpack([b('abc')]));
    short.writeUInt32LE(short.length + 1, 0);
    expect(codeOf(() => readListpack(short))).toBe('ERR_RDB_CORRUPT');
  });
});

describe('ziplist, intset, zipmap (hand-built fixtures)', () => {
  it('reads a ziplist of every encoding', () => {
    const entries = [
      'hello',
      'q'.repeat(300),
      0,
      12,
      13,
      -5,
      1000,
      -100000,
      2 ** 31 - 1,
      2 ** 40,
      'tail',
    ];
    const out = readZiplist(ziplist(entries));
    expect(out.map((e) => (typeof e === 'number' ? e : e.toString()))).toEqual(entries);
  });
  it('decodes list, zset and hash ziplists and quicklist 1', () => {
    expect(blobValue(RDB_TYPE.LIST_ZIPLIST, ziplist(['a', 1, 'b']))).toMatchObject({
      type: 'list',
      items: [b('a'), b('1'), b('b')],
    });
    expect(
      blobValue(RDB_TYPE.ZSET_ZIPLIST, ziplist(['m1', 1, 'm2', '2.5', 'm3', 'inf'])),
    ).toMatchObject({
      type: 'zset',
      entries: [
        [b('m1'), 1],
        [b('m2'), 2.5],
        [b('m3'), Number.POSITIVE_INFINITY],
      ],
    });
    expect(blobValue(RDB_TYPE.HASH_ZIPLIST, ziplist(['f', 'v', 'n', 7]))).toMatchObject({
      type: 'hash',
      fields: [
        [b('f'), b('v')],
        [b('n'), b('7')],
      ],
    });
    const w = new ByteWriter(false).len(2);
    for (const zl of [ziplist(['a', 'b']), ziplist([3])]) w.len(zl.length).raw(zl);
    expect(decodeValue(RDB_TYPE.LIST_QUICKLIST, new ByteReader(w.toBuffer()))).toMatchObject({
      items: [b('a'), b('b'), b('3')],
    });
    expect(codeOf(() => blobValue(RDB_TYPE.HASH_ZIPLIST, ziplist(['f'])))).toBe('ERR_RDB_CORRUPT');
  });
  it('reads intsets of each width', () => {
    for (const [width, values] of [
      [2, [-3, 7, 300]],
      [4, [-70000, 1, 70000]],
      [8, [-(2 ** 40), 5]],
    ] as const) {
      const is = Buffer.alloc(8 + values.length * width);
      is.writeUInt32LE(width, 0);
      is.writeUInt32LE(values.length, 4);
      values.forEach((v, i) => {
        if (width === 8) is.writeBigInt64LE(BigInt(v), 8 + i * width);
        else is.writeIntLE(v, 8 + i * width, width);
      });
      expect(readIntset(is)).toEqual(values);
    }
    const bad = Buffer.alloc(10);
    bad.writeUInt32LE(2, 0);
    bad.writeUInt32LE(5, 4);
    expect(codeOf(() => readIntset(bad))).toBe('ERR_RDB_CORRUPT');
  });
  it('reads a zipmap (hashes of RDB version 3 and older)', () => {
    const zm = Buffer.concat([
      Buffer.from([2, 3]),
      b('foo'),
      Buffer.from([3, 0]),
      b('bar'),
      Buffer.from([1]),
      b('a'),
      Buffer.from([5, 2]),
      b('hello'),
      Buffer.from([0, 0, 0xff]),
    ]);
    expect(readZipmap(zm)).toEqual([
      [b('foo'), b('bar')],
      [b('a'), b('hello')],
    ]);
    expect(blobValue(RDB_TYPE.HASH_ZIPMAP, zm)).toMatchObject({ type: 'hash' });
    expect(codeOf(() => readZipmap(zm.subarray(0, 12)))).toBe('ERR_RDB_CORRUPT');
  });
});

describe('scores', () => {
  it("formats scores as Redis 7.0's d2string", () => {
    expect(
      [1, -2, 0, -0, 2.5, 0.1, 1e20, 1 / 3, Number.POSITIVE_INFINITY, -1e-5, 4503599627370496].map(
        scoreString,
      ),
    ).toEqual([
      '1',
      '-2',
      '0',
      '-0',
      '2.5',
      '0.10000000000000001',
      '1e+20',
      '0.33333333333333331',
      'inf',
      '-1.0000000000000001e-05',
      '4503599627370496',
    ]);
  });
});

describe('DUMP payloads', () => {
  it('round-trips each type', () => {
    const values = [
      { type: 'string', value: b('hello') },
      { type: 'list', items: [b('a'), b('12'), b('x'.repeat(9000)), b('c')] },
      { type: 'set', members: [b('3'), b('1'), b('2')] },
      { type: 'set', members: [b('a'), b('b')] },
      {
        type: 'zset',
        entries: [
          [b('a'), 1.5],
          [b('b'), -1],
        ],
      },
      { type: 'hash', fields: [[b('f'), b('v')]] },
    ] as const;
    for (const v of values) {
      const back = parseDumpPayload(encodeDumpPayload(v)).value;
      expect(back.type).toBe(v.type);
    }
    expect(parseDumpPayload(encodeDumpPayload(values[1])).value).toMatchObject({
      items: values[1].items,
    });
    expect(parseDumpPayload(encodeDumpPayload(values[2])).value).toMatchObject({
      rdbType: RDB_TYPE.SET_INTSET,
      members: [b('1'), b('2'), b('3')],
    });
    expect(parseDumpPayload(encodeDumpPayload(values[4])).value).toMatchObject({
      rdbType: RDB_TYPE.ZSET_LISTPACK,
      entries: [
        [b('b'), -1],
        [b('a'), 1.5],
      ],
    });
  });
  it('refuses a bad checksum, a newer version and a short payload', () => {
    const p = encodeDumpPayload({ type: 'string', value: b('hello') });
    const flipped = Buffer.from(p);
    flipped[2] = (flipped[2] as number) ^ 1;
    expect(codeOf(() => parseDumpPayload(flipped))).toBe('ERR_DUMP_PAYLOAD');
    const v11 = encodeDumpPayload({ type: 'string', value: b('hello') }, { rdbVersion: 11 });
    expect(codeOf(() => parseDumpPayload(v11))).toBe('ERR_DUMP_PAYLOAD');
    expect(parseDumpPayload(v11, { maxVersion: 11 }).rdbVersion).toBe(11);
    expect(codeOf(() => parseDumpPayload(p.subarray(0, 9)))).toBe('ERR_DUMP_PAYLOAD');
  });
  it('refuses module values and unknown types with typed errors', () => {
    const w = new ByteWriter().u8(RDB_TYPE.MODULE_2).lenBig(0x1234567890n << 10n);
    const body = Buffer.concat([w.toBuffer(), Buffer.from([10, 0])]);
    const p = Buffer.concat([body, Buffer.alloc(8)]);
    p.writeBigUInt64LE(crc64(body), body.length);
    expect(codeOf(() => parseDumpPayload(p))).toBe('ERR_RDB_UNSUPPORTED');
    expect(codeOf(() => decodeValue(99, new ByteReader(Buffer.alloc(4))))).toBe(
      'ERR_RDB_UNSUPPORTED',
    );
  });
});
