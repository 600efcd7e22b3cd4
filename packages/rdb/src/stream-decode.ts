import type { ByteReader } from './byte-reader.js';
import { readListpack } from './listpack.js';
import { entryBytes, type PackedEntry } from './packed-entry.js';
import { RDB_TYPE } from './rdb-types.js';

/** A stream entry ID: two unsigned 64-bit halves. */
export interface StreamId {
  readonly ms: bigint;
  readonly seq: bigint;
}

export interface StreamEntry {
  readonly id: StreamId;
  readonly fields: Array<[Buffer, Buffer]>;
}

/** A pending (delivered, not acknowledged) entry of a consumer group. */
export interface StreamPendingEntry {
  readonly id: StreamId;
  readonly deliveryTimeMs: number;
  readonly deliveryCount: number;
  /** The consumer that owns it (every NACK has one in a valid RDB). */
  consumer: Buffer | undefined;
}

export interface StreamConsumer {
  readonly name: Buffer;
  readonly seenTimeMs: number;
  /** RDB_TYPE_STREAM_LISTPACKS_3 (Redis 7.2) and later; undefined before. */
  readonly activeTimeMs: number | undefined;
  readonly pending: StreamId[];
}

export interface StreamGroup {
  readonly name: Buffer;
  readonly lastId: StreamId;
  /** Since RDB_TYPE_STREAM_LISTPACKS_2 (Redis 7.0); undefined before. */
  readonly entriesRead: bigint | undefined;
  readonly pending: StreamPendingEntry[];
  readonly consumers: StreamConsumer[];
}

export interface StreamValue {
  readonly type: 'stream';
  readonly rdbType: number;
  /** Live (not deleted) entries in ID order. */
  readonly entries: StreamEntry[];
  readonly length: number;
  readonly lastId: StreamId;
  /** The three below are stored since RDB_TYPE_STREAM_LISTPACKS_2; undefined before. */
  readonly firstId: StreamId | undefined;
  readonly maxDeletedEntryId: StreamId | undefined;
  readonly entriesAdded: bigint | undefined;
  readonly groups: StreamGroup[];
}

const FLAG_DELETED = 1;
const FLAG_SAMEFIELDS = 2;

function rawId(b: Buffer): StreamId {
  return { ms: b.readBigUInt64BE(0), seq: b.readBigUInt64BE(8) };
}

function lenId(r: ByteReader): StreamId {
  const ms = r.lenBig();
  return { ms, seq: r.lenBig() };
}

export function streamIdString(id: StreamId): string {
  return `${id.ms}-${id.seq}`;
}

function big(e: PackedEntry | undefined, r: ByteReader): bigint {
  if (e === undefined) throw r.corrupt('stream listpack ends inside an entry');
  if (typeof e === 'number') return BigInt(e);
  const t = e.toString('latin1');
  if (!/^-?[0-9]+$/.test(t)) throw r.corrupt(`stream listpack integer expected, found "${t}"`);
  return BigInt(t);
}

/**
 * The entries of one stream listpack node (t_stream.c's layout): a master
 * entry <count> <deleted> <n> <field>*n 0, then per entry <flags> <ms-diff>
 * <seq-diff> (<values> with SAMEFIELDS, else <n> <field value>*n) <lp-count>.
 */
function nodeEntries(master: StreamId, lp: PackedEntry[], r: ByteReader, out: StreamEntry[]): void {
  let i = 0;
  const next = (): PackedEntry => {
    if (i >= lp.length) throw r.corrupt('stream listpack ends inside an entry');
    return lp[i++] as PackedEntry;
  };
  const num = (): number => Number(big(next(), r));
  num(); // count of live entries
  num(); // count of deleted entries
  const nMaster = num();
  const masterFields: Buffer[] = [];
  for (let k = 0; k < nMaster; k++) masterFields.push(entryBytes(next()));
  if (num() !== 0) throw r.corrupt('stream master entry without its 0 terminator');
  while (i < lp.length) {
    const flags = num();
    const id: StreamId = { ms: master.ms + big(next(), r), seq: master.seq + big(next(), r) };
    const fields: Array<[Buffer, Buffer]> = [];
    if (flags & FLAG_SAMEFIELDS) {
      for (const f of masterFields) fields.push([f, entryBytes(next())]);
    } else {
      const n = num();
      for (let k = 0; k < n; k++) fields.push([entryBytes(next()), entryBytes(next())]);
    }
    num(); // lp-count, for walking backwards
    if (!(flags & FLAG_DELETED)) out.push({ id, fields });
  }
}

/** RDB_TYPE_STREAM_LISTPACKS, _2 and _3 (rdbLoadObject's stream branch). */
export function decodeStream(type: number, r: ByteReader): StreamValue {
  const v2 = type >= RDB_TYPE.STREAM_LISTPACKS_2;
  const v3 = type >= RDB_TYPE.STREAM_LISTPACKS_3;
  const entries: StreamEntry[] = [];
  const nodes = r.count(2);
  for (let n = 0; n < nodes; n++) {
    const keyAt = r.offset;
    const nodeKey = r.string();
    if (nodeKey.length !== 16) throw r.corrupt('stream node key is not a 128-bit ID', keyAt);
    const lpAt = r.offset;
    const lp = readListpack(r.string(), lpAt);
    if (lp.length === 0) throw r.corrupt('empty stream listpack node', lpAt);
    nodeEntries(rawId(nodeKey), lp, r, entries);
  }
  const length = r.len();
  const lastId = lenId(r);
  let firstId: StreamId | undefined;
  let maxDeletedEntryId: StreamId | undefined;
  let entriesAdded: bigint | undefined;
  if (v2) {
    firstId = lenId(r);
    maxDeletedEntryId = lenId(r);
    entriesAdded = r.lenBig();
  }
  const groups: StreamGroup[] = [];
  const nGroups = r.count();
  for (let g = 0; g < nGroups; g++) {
    const name = r.string();
    const groupLast = lenId(r);
    const entriesRead = v2 ? r.lenBig() : undefined;
    const pending: StreamPendingEntry[] = [];
    const byId = new Map<string, StreamPendingEntry>();
    const nPel = r.count(16);
    for (let k = 0; k < nPel; k++) {
      const id = rawId(r.bytes(16));
      const deliveryTimeMs = r.i64le();
      const deliveryCount = r.len();
      const p: StreamPendingEntry = { id, deliveryTimeMs, deliveryCount, consumer: undefined };
      pending.push(p);
      byId.set(streamIdString(id), p);
    }
    const consumers: StreamConsumer[] = [];
    const nConsumers = r.count();
    for (let c = 0; c < nConsumers; c++) {
      const cname = r.string();
      const seenTimeMs = r.i64le();
      const activeTimeMs = v3 ? r.i64le() : undefined;
      const cpel: StreamId[] = [];
      const nc = r.count(16);
      for (let k = 0; k < nc; k++) {
        const at = r.offset;
        const id = rawId(r.bytes(16));
        const p = byId.get(streamIdString(id));
        if (p === undefined)
          throw r.corrupt('consumer pending entry missing from its group PEL', at);
        p.consumer = cname;
        cpel.push(id);
      }
      consumers.push({ name: cname, seenTimeMs, activeTimeMs, pending: cpel });
    }
    groups.push({ name, lastId: groupLast, entriesRead, pending, consumers });
  }
  return {
    type: 'stream',
    rdbType: type,
    entries,
    length,
    lastId,
    firstId,
    maxDeletedEntryId,
    entriesAdded,
    groups,
  };
}
