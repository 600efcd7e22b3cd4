import type { ByteReader } from './byte-reader.js';
import { RdbError } from './errors.js';
import { readIntset } from './intset.js';
import { readListpack } from './listpack.js';
import { entryBytes, type PackedEntry } from './packed-entry.js';
import { QUICKLIST_NODE_PACKED, QUICKLIST_NODE_PLAIN, RDB_TYPE } from './rdb-types.js';
import { decodeStream, type StreamValue } from './stream-decode.js';
import { readZiplist } from './ziplist.js';
import { readZipmap } from './zipmap.js';

/**
 * One decoded value. `rdbType` is the RDB type it was read from (which tells
 * the encoding Redis had: 20 set listpack, 11 intset, 18 quicklist, ...).
 * Collections are in the order they were stored (for a skiplist zset that is
 * highest score first, as Redis writes it).
 */
export type RdbValue =
  | { type: 'string'; rdbType: number; value: Buffer }
  | { type: 'list'; rdbType: number; items: Buffer[] }
  | { type: 'set'; rdbType: number; members: Buffer[] }
  | { type: 'zset'; rdbType: number; entries: Array<[Buffer, number]> }
  | {
      type: 'hash';
      rdbType: number;
      fields: Array<[Buffer, Buffer]>;
      /** Types 22-25 only: each field's expiry time (unix ms), 0 for none. */
      expiries?: number[];
    }
  | StreamValue;

/** The latest field expiry time Redis accepts (EB_EXPIRE_TIME_MAX, 2^48 - 1 ms). */
export const FIELD_EXPIRY_MAX = 2 ** 48 - 1;

/** The value types a decoded value can have. */
export type RdbValueType = RdbValue['type'];

/** A zset score as listpacks and ziplists hold it: an integer, or a double's text (Redis's d2string: "inf", "-inf"). */
export function parseScore(e: PackedEntry, r: ByteReader): number {
  if (typeof e === 'number') return e;
  const t = e.toString('latin1').toLowerCase();
  if (t === 'inf' || t === '+inf' || t === 'infinity' || t === '+infinity')
    return Number.POSITIVE_INFINITY;
  if (t === '-inf' || t === '-infinity') return Number.NEGATIVE_INFINITY;
  const v = Number(t);
  if (t.trim() === '' || Number.isNaN(v)) throw r.corrupt(`bad zset score "${t}"`);
  return v;
}

function pairs(entries: PackedEntry[], r: ByteReader, what: string): Array<[Buffer, Buffer]> {
  if (entries.length % 2 !== 0) throw r.corrupt(`${what} with an odd number of entries`);
  const out: Array<[Buffer, Buffer]> = new Array(entries.length / 2);
  for (let i = 0; i < entries.length; i += 2) {
    out[i / 2] = [entryBytes(entries[i] as PackedEntry), entryBytes(entries[i + 1] as PackedEntry)];
  }
  return out;
}

function scored(entries: PackedEntry[], r: ByteReader): Array<[Buffer, number]> {
  if (entries.length % 2 !== 0) throw r.corrupt('zset with an odd number of entries');
  const out: Array<[Buffer, number]> = new Array(entries.length / 2);
  for (let i = 0; i < entries.length; i += 2) {
    out[i / 2] = [
      entryBytes(entries[i] as PackedEntry),
      parseScore(entries[i + 1] as PackedEntry, r),
    ];
  }
  return out;
}

function packed(r: ByteReader, read: (b: Buffer, base: number) => PackedEntry[]): PackedEntry[] {
  const at = r.offset;
  return read(r.string(), at);
}

/** The minimum field expiry that types 24 and 25 write first (0 when none is set). */
function minExpiry(r: ByteReader): number {
  const at = r.offset;
  const min = r.i64le();
  if (min < 0 || min > FIELD_EXPIRY_MAX + 1) throw r.corrupt(`bad hash min expiry ${min}`, at);
  return min;
}

function fieldExpiry(at: number, r: ByteReader): number {
  if (at < 0 || at > FIELD_EXPIRY_MAX) throw r.corrupt(`bad hash field expiry ${at}`);
  return at;
}

/** RDB_TYPE_HASH_METADATA(_PRE_GA) (rdbLoadObject): [ttl, field, value] per field. */
function hashMetadata(type: number, r: ByteReader): RdbValue {
  const min = type === RDB_TYPE.HASH_METADATA ? minExpiry(r) : 0;
  const n = r.count(3);
  const fields: Array<[Buffer, Buffer]> = new Array(n);
  const expiries: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const ttl = r.len();
    // GA: relative to the minimum, +1 so that 0 still means none; RC: absolute.
    const at = type === RDB_TYPE.HASH_METADATA && ttl !== 0 ? ttl + min - 1 : ttl;
    expiries[i] = fieldExpiry(at, r);
    fields[i] = [r.string(), r.string()];
  }
  return { type: 'hash', rdbType: type, fields, expiries };
}

/** RDB_TYPE_HASH_LISTPACK_EX(_PRE_GA): a listpack of field, value, expiry (absolute ms, 0 none). */
function hashListpackEx(type: number, r: ByteReader): RdbValue {
  if (type === RDB_TYPE.HASH_LISTPACK_EX) minExpiry(r);
  const entries = packed(r, readListpack);
  if (entries.length % 3 !== 0) throw r.corrupt('hash listpack-ex with a partial triple');
  const n = entries.length / 3;
  const fields: Array<[Buffer, Buffer]> = new Array(n);
  const expiries: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const ttl = entries[3 * i + 2] as PackedEntry;
    if (typeof ttl !== 'number') throw r.corrupt('hash listpack-ex expiry is not an integer');
    expiries[i] = fieldExpiry(ttl, r);
    fields[i] = [
      entryBytes(entries[3 * i] as PackedEntry),
      entryBytes(entries[3 * i + 1] as PackedEntry),
    ];
  }
  return { type: 'hash', rdbType: type, fields, expiries };
}

const MODULE_CHARSET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The 9-character module type name packed in a module id (moduleTypeNameByID). */
function moduleName(id: bigint): string {
  let rest = id >> 10n;
  const chars: string[] = [];
  for (let i = 0; i < 9; i++) {
    chars.unshift(MODULE_CHARSET[Number(rest & 63n)] as string);
    rest >>= 6n;
  }
  return chars.join('');
}

/** Decodes the value of RDB type `type` at the reader's position (rdbLoadObject). */
export function decodeValue(type: number, r: ByteReader): RdbValue {
  const at = r.offset;
  switch (type) {
    case RDB_TYPE.STRING:
      return { type: 'string', rdbType: type, value: r.string() };
    case RDB_TYPE.LIST: {
      const n = r.count();
      const items: Buffer[] = new Array(n);
      for (let i = 0; i < n; i++) items[i] = r.string();
      return { type: 'list', rdbType: type, items };
    }
    case RDB_TYPE.LIST_ZIPLIST:
      return { type: 'list', rdbType: type, items: packed(r, readZiplist).map(entryBytes) };
    case RDB_TYPE.LIST_QUICKLIST:
    case RDB_TYPE.LIST_QUICKLIST_2: {
      const nodes = r.count();
      const items: Buffer[] = [];
      for (let i = 0; i < nodes; i++) {
        if (type === RDB_TYPE.LIST_QUICKLIST) {
          for (const e of packed(r, readZiplist)) items.push(entryBytes(e));
          continue;
        }
        const cat = r.offset;
        const container = r.len();
        if (container === QUICKLIST_NODE_PLAIN) items.push(r.string());
        else if (container === QUICKLIST_NODE_PACKED) {
          for (const e of packed(r, readListpack)) items.push(entryBytes(e));
        } else throw r.corrupt(`unknown quicklist container ${container}`, cat);
      }
      return { type: 'list', rdbType: type, items };
    }
    case RDB_TYPE.SET: {
      const n = r.count();
      const members: Buffer[] = new Array(n);
      for (let i = 0; i < n; i++) members[i] = r.string();
      return { type: 'set', rdbType: type, members };
    }
    case RDB_TYPE.SET_INTSET:
      return { type: 'set', rdbType: type, members: packed(r, readIntset).map(entryBytes) };
    case RDB_TYPE.SET_LISTPACK:
      return { type: 'set', rdbType: type, members: packed(r, readListpack).map(entryBytes) };
    case RDB_TYPE.ZSET:
    case RDB_TYPE.ZSET_2: {
      const n = r.count(2);
      const entries: Array<[Buffer, number]> = new Array(n);
      for (let i = 0; i < n; i++) {
        const member = r.string();
        const score = type === RDB_TYPE.ZSET_2 ? r.binaryDouble() : r.stringDouble();
        if (Number.isNaN(score)) throw r.corrupt('zset score is NaN');
        entries[i] = [member, score];
      }
      return { type: 'zset', rdbType: type, entries };
    }
    case RDB_TYPE.ZSET_ZIPLIST:
      return { type: 'zset', rdbType: type, entries: scored(packed(r, readZiplist), r) };
    case RDB_TYPE.ZSET_LISTPACK:
      return { type: 'zset', rdbType: type, entries: scored(packed(r, readListpack), r) };
    case RDB_TYPE.HASH: {
      const n = r.count(2);
      const fields: Array<[Buffer, Buffer]> = new Array(n);
      for (let i = 0; i < n; i++) fields[i] = [r.string(), r.string()];
      return { type: 'hash', rdbType: type, fields };
    }
    case RDB_TYPE.HASH_ZIPMAP: {
      const zat = r.offset;
      return { type: 'hash', rdbType: type, fields: readZipmap(r.string(), zat) };
    }
    case RDB_TYPE.HASH_ZIPLIST:
      return { type: 'hash', rdbType: type, fields: pairs(packed(r, readZiplist), r, 'hash') };
    case RDB_TYPE.HASH_LISTPACK:
      return { type: 'hash', rdbType: type, fields: pairs(packed(r, readListpack), r, 'hash') };
    case RDB_TYPE.HASH_METADATA:
    case RDB_TYPE.HASH_METADATA_PRE_GA:
      return hashMetadata(type, r);
    case RDB_TYPE.HASH_LISTPACK_EX:
    case RDB_TYPE.HASH_LISTPACK_EX_PRE_GA:
      return hashListpackEx(type, r);
    case RDB_TYPE.STREAM_LISTPACKS:
    case RDB_TYPE.STREAM_LISTPACKS_2:
    case RDB_TYPE.STREAM_LISTPACKS_3:
      return decodeStream(type, r);
    case RDB_TYPE.MODULE_PRE_GA:
    case RDB_TYPE.MODULE_2: {
      const id = r.lenBig();
      throw new RdbError(
        'ERR_RDB_UNSUPPORTED',
        `values of module type "${moduleName(id)}" are not supported (no modules in Strata)`,
        at,
      );
    }
    default:
      throw new RdbError(
        'ERR_RDB_UNSUPPORTED',
        `unknown or unsupported RDB value type ${type}`,
        at - 1,
      );
  }
}
