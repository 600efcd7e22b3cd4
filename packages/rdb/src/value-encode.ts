import type { ByteWriter } from './byte-writer.js';
import { strictInt64, writeListpack } from './listpack.js';
import { QUICKLIST_NODE_PACKED, RDB_TYPE } from './rdb-types.js';
import { scoreString } from './score-string.js';
import { type EncodableStream, encodeStream } from './stream-encode.js';

/** A value to encode (a decoded RdbValue is one; `rdbType` is ignored). */
export type EncodableValue =
  | { readonly type: 'string'; readonly value: Buffer }
  | { readonly type: 'list'; readonly items: readonly Buffer[] }
  | { readonly type: 'set'; readonly members: readonly Buffer[] }
  | { readonly type: 'zset'; readonly entries: ReadonlyArray<readonly [Buffer, number]> }
  | {
      readonly type: 'hash';
      readonly fields: ReadonlyArray<readonly [Buffer, Buffer]>;
      /** Each field's expiry time (unix ms, 0 none); with any set, Redis 7.4's types 24/25. */
      readonly expiries?: readonly number[];
    }
  | EncodableStream;

/** The soonest field expiry of a hash value, 0 when it has none (it then encodes as Redis 7.0 would). */
export function soonestFieldExpiry(v: EncodableValue): number {
  if (v.type !== 'hash' || v.expiries === undefined) return 0;
  let min = 0;
  for (const at of v.expiries) if (at !== 0 && (min === 0 || at < min)) min = at;
  return min;
}

/**
 * Which encodings to choose, with Redis 7.0's defaults: the small ones
 * (listpack, intset) under the same thresholds Redis uses, so a small value
 * encodes to the bytes Redis's DUMP gives.
 */
export interface EncodeOptions {
  /** LZF for strings over 20 bytes (`rdbcompression`, default true). */
  readonly compress?: boolean;
  /** `set-max-intset-entries` (512). */
  readonly setMaxIntsetEntries?: number;
  /** `zset-max-listpack-entries` / `-value` (128 / 64). */
  readonly zsetMaxListpackEntries?: number;
  readonly zsetMaxListpackValue?: number;
  /** `hash-max-listpack-entries` / `-value` (512 / 64, the server defaults; redis.conf ships 128). */
  readonly hashMaxListpackEntries?: number;
  readonly hashMaxListpackValue?: number;
  /** Bytes per quicklist listpack node (`list-max-listpack-size -2`: 8192). */
  readonly listNodeMaxBytes?: number;
}

/** Writes the type byte and value; returns nothing (the writer holds it). */
export function encodeValue(v: EncodableValue, w: ByteWriter, o: EncodeOptions = {}): void {
  switch (v.type) {
    case 'string':
      w.u8(RDB_TYPE.STRING).string(v.value);
      return;
    case 'list': {
      // RDB_TYPE_LIST_QUICKLIST_2 with packed listpack nodes, split near Redis's 8 KB node size.
      const max = o.listNodeMaxBytes ?? 8192;
      const nodes: Buffer[][] = [];
      let cur: Buffer[] = [];
      let bytes = 7;
      for (const item of v.items) {
        const sz = item.length + 11;
        if (cur.length > 0 && bytes + sz > max) {
          nodes.push(cur);
          cur = [];
          bytes = 7;
        }
        cur.push(item);
        bytes += sz;
      }
      if (cur.length > 0) nodes.push(cur);
      w.u8(RDB_TYPE.LIST_QUICKLIST_2).len(nodes.length);
      for (const n of nodes) w.len(QUICKLIST_NODE_PACKED).string(writeListpack(n));
      return;
    }
    case 'set': {
      const maxIntset = o.setMaxIntsetEntries ?? 512;
      if (v.members.length <= maxIntset && v.members.length > 0) {
        const ints: bigint[] = [];
        for (const m of v.members) {
          const n = strictInt64(m);
          if (n === undefined) break;
          ints.push(n);
        }
        if (ints.length === v.members.length) {
          w.u8(RDB_TYPE.SET_INTSET).string(intsetBytes(ints));
          return;
        }
      }
      w.u8(RDB_TYPE.SET).len(v.members.length);
      for (const m of v.members) w.string(m);
      return;
    }
    case 'zset': {
      const sorted = [...v.entries].sort((a, b) => a[1] - b[1] || Buffer.compare(a[0], b[0]));
      const maxEntries = o.zsetMaxListpackEntries ?? 128;
      const maxValue = o.zsetMaxListpackValue ?? 64;
      if (sorted.length <= maxEntries && sorted.every(([m]) => m.length <= maxValue)) {
        const flat: Buffer[] = [];
        for (const [m, s] of sorted) flat.push(m, Buffer.from(scoreString(s)));
        w.u8(RDB_TYPE.ZSET_LISTPACK).string(writeListpack(flat));
        return;
      }
      // Redis writes a skiplist from the highest score down, so loading can append at the head.
      w.u8(RDB_TYPE.ZSET_2).len(sorted.length);
      for (let i = sorted.length - 1; i >= 0; i--) {
        const [m, s] = sorted[i] as readonly [Buffer, number];
        w.string(m).binaryDouble(s);
      }
      return;
    }
    case 'hash': {
      const maxEntries = o.hashMaxListpackEntries ?? 512;
      const maxValue = o.hashMaxListpackValue ?? 64;
      const small =
        v.fields.length <= maxEntries &&
        v.fields.every(([f, x]) => f.length <= maxValue && x.length <= maxValue);
      const min = soonestFieldExpiry(v);
      if (min !== 0) {
        encodeHashWithExpiries(v.fields, v.expiries ?? [], min, small, w);
        return;
      }
      if (small) {
        const flat: Buffer[] = [];
        for (const [f, x] of v.fields) flat.push(f, x);
        w.u8(RDB_TYPE.HASH_LISTPACK).string(writeListpack(flat));
        return;
      }
      w.u8(RDB_TYPE.HASH).len(v.fields.length);
      for (const [f, x] of v.fields) w.string(f).string(x);
      return;
    }
    case 'stream':
      w.u8(RDB_TYPE.STREAM_LISTPACKS_2);
      encodeStream(v, w);
      return;
  }
}

/**
 * A hash with field TTLs as Redis 7.4 writes it (rdbSaveObject): the soonest
 * expiry first, then a listpack of field, value, expiry triples (0: none)
 * for a small hash, else [expiry relative to the soonest + 1 (0: none),
 * field, value] per field.
 */
function encodeHashWithExpiries(
  fields: ReadonlyArray<readonly [Buffer, Buffer]>,
  expiries: readonly number[],
  min: number,
  small: boolean,
  w: ByteWriter,
): void {
  if (small) {
    const flat: Buffer[] = [];
    fields.forEach(([f, x], i) => {
      flat.push(f, x, Buffer.from(String(expiries[i] ?? 0)));
    });
    w.u8(RDB_TYPE.HASH_LISTPACK_EX).i64le(min).string(writeListpack(flat));
    return;
  }
  w.u8(RDB_TYPE.HASH_METADATA).i64le(min).len(fields.length);
  fields.forEach(([f, x], i) => {
    const at = expiries[i] ?? 0;
    w.len(at === 0 ? 0 : at - min + 1)
      .string(f)
      .string(x);
  });
}

/** An intset of the narrowest width that holds every member, sorted ascending. */
function intsetBytes(ints: bigint[]): Buffer {
  ints.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let width = 2;
  for (const n of ints) {
    if (n < -2147483648n || n > 2147483647n) width = 8;
    else if ((n < -32768n || n > 32767n) && width < 4) width = 4;
  }
  const b = Buffer.alloc(8 + ints.length * width);
  b.writeUInt32LE(width, 0);
  b.writeUInt32LE(ints.length, 4);
  ints.forEach((n, i) => {
    const at = 8 + i * width;
    if (width === 2) b.writeInt16LE(Number(n), at);
    else if (width === 4) b.writeInt32LE(Number(n), at);
    else b.writeBigInt64LE(n, at);
  });
  return b;
}
