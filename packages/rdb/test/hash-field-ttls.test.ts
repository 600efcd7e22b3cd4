import { describe, expect, it } from 'vitest';
import {
  crc64,
  encodeDumpPayload,
  parseDumpPayload,
  RDB_TYPE,
  RDB_VERSION_7_0,
  RDB_VERSION_7_4,
  RdbError,
  type RdbValue,
  writeListpack,
} from '../src/index.js';

/**
 * Hashes with field TTLs, Redis 7.4's RDB types 22-25 (rdb.c rdbSaveObject /
 * rdbLoadObject). The payloads below are built by hand from that layout, not
 * by the encoder, so decoding is checked against the format itself.
 */

const b = (s: string): Buffer => Buffer.from(s);

function payload(body: Buffer, version = RDB_VERSION_7_4): Buffer {
  const v = Buffer.alloc(2);
  v.writeUInt16LE(version, 0);
  const head = Buffer.concat([body, v]);
  const crc = Buffer.alloc(8);
  crc.writeBigUInt64LE(crc64(head), 0);
  return Buffer.concat([head, crc]);
}

function i64(n: number): Buffer {
  const x = Buffer.alloc(8);
  x.writeBigInt64LE(BigInt(n), 0);
  return x;
}

/** A 6-bit length string (under 64 bytes). */
function str(s: string): Buffer {
  return Buffer.concat([Buffer.from([s.length]), b(s)]);
}

type Hash = Extract<RdbValue, { type: 'hash' }>;

function hashOf(p: Buffer): Hash {
  const v = parseDumpPayload(p, { maxVersion: RDB_VERSION_7_4 }).value;
  if (v.type !== 'hash') throw new Error(`not a hash: ${v.type}`);
  return v;
}

const fieldsOf = (h: Hash) => h.fields.map(([f, x]) => [f.toString(), x.toString()]);

const T = 1_900_000_000_000;

describe('hash field TTLs in RDB', () => {
  it('reads RDB_TYPE_HASH_METADATA: expiries relative to the soonest, +1, 0 for none', () => {
    // ttl 1 is the soonest itself; 501 is 500 ms later; 0 has none.
    const body = Buffer.concat([
      Buffer.from([RDB_TYPE.HASH_METADATA]),
      i64(T),
      Buffer.from([3]),
      Buffer.from([1]),
      str('a'),
      str('1'),
      Buffer.from([0x41, 0xf5]), // 14-bit length 501
      str('b'),
      str('2'),
      Buffer.from([0]),
      str('c'),
      str('3'),
    ]);
    const h = hashOf(payload(body));
    expect(h.rdbType).toBe(RDB_TYPE.HASH_METADATA);
    expect(fieldsOf(h)).toEqual([
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
    ]);
    expect(h.expiries).toEqual([T, T + 500, 0]);
  });

  it('reads RDB_TYPE_HASH_LISTPACK_EX: field, value, absolute expiry triples', () => {
    const lp = writeListpack([b('f1'), b('v1'), b(String(T + 7)), b('f2'), b('v2'), b('0')]);
    const body = Buffer.concat([
      Buffer.from([RDB_TYPE.HASH_LISTPACK_EX]),
      i64(T + 7),
      Buffer.from([lp.length]),
      lp,
    ]);
    const h = hashOf(payload(body));
    expect(fieldsOf(h)).toEqual([
      ['f1', 'v1'],
      ['f2', 'v2'],
    ]);
    expect(h.expiries).toEqual([T + 7, 0]);
  });

  it('reads the 7.4 release candidates types 22 and 23 (absolute expiries, no soonest first)', () => {
    // A 64-bit length (0x81 + 8 bytes big-endian) holds the absolute expiry.
    const ttl = Buffer.alloc(9);
    ttl[0] = 0x81;
    ttl.writeBigUInt64BE(BigInt(T), 1);
    const body22 = Buffer.concat([
      Buffer.from([RDB_TYPE.HASH_METADATA_PRE_GA, 1]),
      ttl,
      str('f'),
      str('v'),
    ]);
    expect(hashOf(payload(body22)).expiries).toEqual([T]);
    const lp = writeListpack([b('f'), b('v'), b(String(T))]);
    const body23 = Buffer.concat([Buffer.from([RDB_TYPE.HASH_LISTPACK_EX_PRE_GA, lp.length]), lp]);
    expect(hashOf(payload(body23)).expiries).toEqual([T]);
  });

  it('refuses an expiry past 2^48 - 1 and a partial triple as corrupt', () => {
    const lp = writeListpack([b('f'), b('v'), b(String(2 ** 48))]);
    const bad = Buffer.concat([
      Buffer.from([RDB_TYPE.HASH_LISTPACK_EX]),
      i64(0),
      Buffer.from([lp.length]),
      lp,
    ]);
    const partial = writeListpack([b('f'), b('v')]);
    const short = Buffer.concat([
      Buffer.from([RDB_TYPE.HASH_LISTPACK_EX]),
      i64(0),
      Buffer.from([partial.length]),
      partial,
    ]);
    for (const p of [bad, short]) {
      let code: string | undefined;
      try {
        hashOf(payload(p));
      } catch (e) {
        if (e instanceof RdbError) code = e.code;
      }
      expect(code).toBe('ERR_RDB_CORRUPT');
    }
  });

  it('writes a small hash with expiries as type 25 and a large one as type 24, in RDB 12', () => {
    const small = {
      type: 'hash' as const,
      fields: [
        [b('a'), b('1')],
        [b('b'), b('2')],
      ] as [Buffer, Buffer][],
      expiries: [0, T + 3],
    };
    const p = encodeDumpPayload(small);
    expect(p[0]).toBe(RDB_TYPE.HASH_LISTPACK_EX);
    expect(p.readUInt16LE(p.length - 10)).toBe(RDB_VERSION_7_4);
    expect(p.readBigInt64LE(1)).toBe(BigInt(T + 3));
    const back = hashOf(p);
    expect(fieldsOf(back)).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(back.expiries).toEqual([0, T + 3]);

    const big = {
      type: 'hash' as const,
      fields: [
        [b('a'), b('x'.repeat(100))],
        [b('b'), b('2')],
      ] as [Buffer, Buffer][],
      expiries: [T + 9, T],
    };
    const q = encodeDumpPayload(big);
    expect(q[0]).toBe(RDB_TYPE.HASH_METADATA);
    expect(q.readBigInt64LE(1)).toBe(BigInt(T));
    expect(hashOf(q).expiries).toEqual([T + 9, T]);
  });

  it('a hash without expiries stays Redis 7.0 bytes (RDB 10, listpack)', () => {
    const p = encodeDumpPayload({ type: 'hash', fields: [[b('f'), b('v')]], expiries: [0] });
    expect(p[0]).toBe(RDB_TYPE.HASH_LISTPACK);
    expect(p.readUInt16LE(p.length - 10)).toBe(RDB_VERSION_7_0);
  });

  it('Redis 7.0 payload checks still refuse RDB 12 unless the reader allows it', () => {
    const p = encodeDumpPayload({ type: 'hash', fields: [[b('f'), b('v')]], expiries: [T] });
    let code: string | undefined;
    try {
      parseDumpPayload(p);
    } catch (e) {
      if (e instanceof RdbError) code = e.code;
    }
    expect(code).toBe('ERR_DUMP_PAYLOAD');
  });
});
