import {
  decoderFor,
  HashValue,
  List,
  SetValue,
  SortedSet,
  type StreamBlockRef,
  type StreamBlocks,
  type StreamBlockValue,
  StreamConsumer,
  StreamGroup,
  StreamValue,
  streamBlockKey,
  streamIdBig,
} from '@strata/collections';
import { RecordType } from '@strata/hlog';
import type { EncodableValue, StreamValue as RdbStream, RdbValue } from '@strata/rdb';
import { CommandError } from '../../errors.js';

/**
 * Between a record of the log and Redis's value types (`@strata/rdb`):
 * what DUMP serializes, and what RESTORE and the RDB file import write.
 * Members are latin1 strings in the collections, the bytes themselves in RDB.
 */

const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');
const text = (b: Buffer): string => b.toString('latin1');

/** The RDB value of a record of `type`, or null for a type DUMP does not serialize yet. */
export function toRdbValue(type: RecordType, record: Buffer): EncodableValue | null {
  if (type === RecordType.STRING) return { type: 'string', value: record };
  const decode = decoderFor(type);
  if (decode === undefined) return null;
  const v = decode(record);
  if (v instanceof HashValue) {
    const fields: [Buffer, Buffer][] = [];
    v.forEach((f, x) => {
      fields.push([bytes(f), bytes(x)]);
    });
    return { type: 'hash', fields };
  }
  if (v instanceof SetValue) {
    const members: Buffer[] = [];
    v.forEach((m) => {
      members.push(bytes(m));
    });
    return { type: 'set', members };
  }
  if (v instanceof SortedSet) {
    const entries: [Buffer, number][] = [];
    v.forEach((score, m) => {
      entries.push([bytes(m), score]);
    });
    return { type: 'zset', entries };
  }
  if (v instanceof List) {
    const items: Buffer[] = [];
    v.forRange(0, v.size - 1, (x) => {
      items.push(bytes(x));
    });
    return { type: 'list', items };
  }
  return null;
}

/** One record to write besides a value's own: a stream's sealed block. */
export interface BlockRecord {
  readonly key: Buffer;
  readonly record: Buffer;
}

/** A value as the records to write: its own (type and bytes), and a stream's blocks before it. */
export interface ValueRecords {
  readonly type: RecordType;
  readonly record: Buffer;
  readonly blocks: readonly BlockRecord[];
}

const NO_BLOCKS: readonly BlockRecord[] = [];

const badFormat = () => new CommandError('ERR_DUMP_PAYLOAD', 'ERR Bad data format');

/** The records of a decoded RDB value (RESTORE's payload, a key of an RDB file). */
export function fromRdbValue(v: RdbValue): ValueRecords {
  // Redis's rdbLoadObject refuses an empty collection.
  if (rdbValueSize(v) === 0) throw badFormat();
  switch (v.type) {
    case 'string':
      return { type: RecordType.STRING, record: v.value, blocks: NO_BLOCKS };
    case 'hash': {
      const h = HashValue.empty();
      for (const [f, x] of v.fields) h.set(text(f), text(x));
      return { type: RecordType.HASH, record: h.encode(), blocks: NO_BLOCKS };
    }
    case 'set': {
      const s = SetValue.empty();
      for (const m of v.members) s.add(text(m));
      return { type: RecordType.SET, record: s.encode(), blocks: NO_BLOCKS };
    }
    case 'zset': {
      const z = new SortedSet();
      for (const [m, score] of v.entries) z.add(text(m), score);
      return { type: RecordType.ZSET, record: z.encode(), blocks: NO_BLOCKS };
    }
    case 'list': {
      const l = new List();
      for (const x of v.items) l.pushBack(text(x));
      return { type: RecordType.LIST, record: l.encode(), blocks: NO_BLOCKS };
    }
    case 'stream':
      return streamRecords(v);
  }
}

/** Members, fields, items or entries of a value (1 for a string; a stream may be empty). */
export function rdbValueSize(v: RdbValue): number {
  switch (v.type) {
    case 'hash':
      return v.fields.length;
    case 'set':
      return v.members.length;
    case 'zset':
      return v.entries.length;
    case 'list':
      return v.items.length;
    default:
      return 1;
  }
}

/** Collects the blocks a stream seals while it is built; nothing else happens to them then. */
class SealedBlocks implements StreamBlocks {
  readonly records: BlockRecord[] = [];

  constructor(private readonly head: StreamValue) {}

  sealed(ref: StreamBlockRef, block: StreamBlockValue): void {
    this.records.push({ key: streamBlockKey(this.head.sid!, ref.no), record: block.encode() });
  }

  get(): StreamBlockValue {
    throw new Error('a stream being built reads no block');
  }

  changed(): void {
    throw new Error('a stream being built changes no sealed block');
  }

  dropped(): void {
    throw new Error('a stream being built drops no block');
  }
}

const idOf = (id: { ms: bigint; seq: bigint }) => streamIdBig(id.ms, id.seq);

/**
 * A group's entries-read: Redis saves its long long as an unsigned length,
 * so "not known" (-1) comes back as 2^64 - 1.
 */
function entriesRead(n: bigint | undefined): number {
  return n === undefined || BigInt.asIntN(64, n) < 0n ? -1 : Number(n);
}

/**
 * A stream as strata stores it: its entries appended (sealing blocks as
 * XADD does), then Redis's counters, the groups, their consumers and PELs.
 * What an older RDB does not store takes Redis 7.0's defaults: entries
 * added = length, no deleted ID, entries read unknown (-1).
 */
function streamRecords(v: RdbStream): ValueRecords {
  const s = new StreamValue();
  const blocks = new SealedBlocks(s);
  for (const e of v.entries) {
    const flat: Buffer[] = [];
    for (const [f, x] of e.fields) flat.push(f, x);
    s.append(idOf(e.id), flat, 0);
    s.sealIfFull(blocks);
  }
  s.lastId = idOf(v.lastId);
  s.entriesAdded = v.entriesAdded === undefined ? v.length : Number(v.entriesAdded);
  if (v.maxDeletedEntryId !== undefined) s.maxDeletedId = idOf(v.maxDeletedEntryId);
  for (const g of v.groups) {
    const group = new StreamGroup(text(g.name), idOf(g.lastId), entriesRead(g.entriesRead));
    for (const c of g.consumers) {
      const name = text(c.name);
      group.consumers.set(name, new StreamConsumer(name, c.seenTimeMs, c.activeTimeMs ?? -1));
    }
    for (const p of g.pending) {
      // Every PEL entry has an owner among the group's consumers in a valid file.
      const owner = p.consumer === undefined ? undefined : group.consumers.get(text(p.consumer));
      if (owner === undefined) throw badFormat();
      group.insert(idOf(p.id), owner, p.deliveryTimeMs, p.deliveryCount);
    }
    s.groups.set(group.name, group);
  }
  return { type: RecordType.STREAM, record: s.encode(), blocks: blocks.records };
}
