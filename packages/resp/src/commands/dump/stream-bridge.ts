import {
  type CollectionStore,
  decoderFor,
  loadStreamBlocks,
  MAX_STREAM_ID,
  MIN_STREAM_ID,
  type StreamBlockValue,
  StreamGroup,
  type StreamId,
  StreamValue,
  streamIdBig,
} from '@strata/collections';
import { RecordType } from '@strata/hlog';
import type {
  EncodableStream,
  StreamConsumer as RdbConsumer,
  StreamEntry as RdbEntry,
  StreamGroup as RdbGroup,
  StreamPendingEntry as RdbPending,
  StreamValue as RdbStream,
  StreamId as RdbStreamId,
} from '@strata/rdb';
import { CommandError } from '../../errors.js';

/**
 * A stream between strata's head-and-blocks form and Redis's RDB stream
 * (`@strata/rdb`): what DUMP serializes and what RESTORE builds. IDs are
 * 16-byte latin1 strings here, two u64 halves there; names and fields are
 * latin1 strings here, bytes there.
 */

/** Entries between yields of the event loop while a big stream is converted. */
const SLICE = 4096;
/** Redis's SCG_INVALID_ENTRIES_READ (-1) as rdbSaveLen writes it. */
const ENTRIES_READ_UNKNOWN = 0xffffffffffffffffn;

const yieldNow = (): Promise<void> => new Promise((r) => setImmediate(r));

function rdbId(id: StreamId): RdbStreamId {
  const b = Buffer.from(id, 'latin1');
  return { ms: b.readBigUInt64BE(0), seq: b.readBigUInt64BE(8) };
}

const ownId = (id: RdbStreamId): StreamId => streamIdBig(id.ms, id.seq);

function entriesOf(block: StreamBlockValue, out: RdbEntry[]): void {
  for (let i = 0; i < block.size; i++) {
    const strings = block.fieldsAt(i);
    const fields: Array<[Buffer, Buffer]> = [];
    for (let f = 0; f + 1 < strings.length; f += 2) {
      fields.push([Buffer.from(strings[f]!, 'latin1'), Buffer.from(strings[f + 1]!, 'latin1')]);
    }
    out.push({ id: rdbId(block.idAt(i)), fields });
  }
}

/**
 * The stream whose head record is `record`, its sealed blocks read from
 * `collections` one at a time (a stream larger than the cache is read
 * through it, not held whole in it).
 */
export async function streamToRdb(
  collections: CollectionStore,
  record: Buffer,
): Promise<EncodableStream> {
  const head = decoderFor(RecordType.STREAM)!(record) as StreamValue;
  const entries: RdbEntry[] = [];
  for (const ref of head.refs) {
    const loaded = await loadStreamBlocks(collections, head, [ref]);
    entriesOf(loaded.get(ref), entries);
  }
  entriesOf(head.tail, entries);
  const groups: RdbGroup[] = [];
  for (const g of head.groups.values()) {
    const pending: RdbPending[] = [];
    const owned = new Map<string, RdbStreamId[]>();
    g.forPending(MIN_STREAM_ID, MAX_STREAM_ID, (e) => {
      const id = rdbId(e.id);
      const consumer = Buffer.from(e.consumer.name, 'latin1');
      pending.push({
        id,
        deliveryTimeMs: e.deliveryTime,
        deliveryCount: e.deliveryCount,
        consumer,
      });
      let list = owned.get(e.consumer.name);
      if (list === undefined) {
        list = [];
        owned.set(e.consumer.name, list);
      }
      list.push(id);
      return true;
    });
    const consumers: RdbConsumer[] = [];
    for (const c of g.consumers.values()) {
      consumers.push({
        name: Buffer.from(c.name, 'latin1'),
        seenTimeMs: c.seenTime,
        activeTimeMs: undefined,
        pending: owned.get(c.name) ?? [],
      });
    }
    groups.push({
      name: Buffer.from(g.name, 'latin1'),
      lastId: rdbId(g.lastId),
      entriesRead: g.entriesRead < 0 ? undefined : BigInt(g.entriesRead),
      pending,
      consumers,
    });
  }
  return {
    type: 'stream',
    entries,
    length: head.size,
    lastId: rdbId(head.lastId),
    firstId: rdbId(head.firstId()),
    maxDeletedEntryId: rdbId(head.maxDeletedId),
    entriesAdded: BigInt(head.entriesAdded),
    groups,
  };
}

const badFormat = () => new CommandError('ERR_DUMP_PAYLOAD', 'ERR Bad data format');

/** A restored stream's head, its sealed blocks already handed to the cache. */
export interface RestoredStream {
  readonly head: StreamValue;
  /** The block records' writes in flight, if any. */
  readonly written: Promise<void> | undefined;
}

/**
 * Builds the stream `v` (a RESTOREd payload) as strata keeps it: entries
 * appended to the tail, sealed into block records of `collections` as they
 * fill (so a large stream never sits whole in the head), then the counters
 * and groups as the payload has them. Yields every SLICE entries. What
 * Redis's rdbLoadObject refuses (duplicate group or consumer, a pending
 * entry without its consumer) is `Bad data format`.
 */
export async function streamFromRdb(
  collections: CollectionStore,
  v: RdbStream,
): Promise<RestoredStream> {
  const head = new StreamValue();
  const blocks = await loadStreamBlocks(collections, head, []);
  const strings: Buffer[] = [];
  let previous: StreamId | '' = '';
  for (let i = 0; i < v.entries.length; i++) {
    const e = v.entries[i]!;
    const id = ownId(e.id);
    if (id <= previous) throw badFormat();
    previous = id;
    strings.length = 0;
    for (const [f, x] of e.fields) strings.push(f, x);
    head.append(id, strings, 0);
    head.sealIfFull(blocks);
    if (i % SLICE === SLICE - 1) await yieldNow();
  }
  head.lastId = ownId(v.lastId);
  if (previous !== '' && head.lastId < previous) throw badFormat();
  head.maxDeletedId = ownId(v.maxDeletedEntryId ?? { ms: 0n, seq: 0n });
  head.entriesAdded = Number(v.entriesAdded ?? BigInt(v.length));
  for (const g of v.groups) {
    const name = g.name.toString('latin1');
    if (head.groups.has(name)) throw badFormat();
    const read =
      g.entriesRead === undefined || g.entriesRead === ENTRIES_READ_UNKNOWN
        ? -1
        : Number(g.entriesRead);
    const group = new StreamGroup(name, ownId(g.lastId), read);
    for (const c of g.consumers) {
      const cname = c.name.toString('latin1');
      if (group.consumers.has(cname)) throw badFormat();
      const consumer = group.consumer(cname, c.seenTimeMs, true)!;
      if (c.activeTimeMs !== undefined) consumer.activeTime = c.activeTimeMs;
    }
    for (const p of g.pending) {
      const owner =
        p.consumer === undefined ? undefined : group.consumers.get(p.consumer.toString('latin1'));
      const id = ownId(p.id);
      if (owner === undefined || group.pending(id) !== undefined) throw badFormat();
      group.insert(id, owner, p.deliveryTimeMs, p.deliveryCount);
    }
    head.groups.set(name, group);
  }
  return { head, written: blocks.written() };
}
