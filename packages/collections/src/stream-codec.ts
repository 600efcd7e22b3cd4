import { RecordType } from '@strata/hlog';
import { registerSlicedCodec } from './codecs.js';
import { CollectionError } from './collection-error.js';
import { SLICE_ITEMS, type Sliced } from './sliced.js';
import { ByteReader, STREAM_FORMAT, STREAM_FORMAT_INLINE } from './stream-format.js';
import { type StreamConsumer, StreamGroup } from './stream-group.js';
import type { StreamId } from './stream-id.js';
import { STREAM_SID_BYTES, StreamValue } from './stream-value.js';

/**
 * A stream head from its serialized form (StreamValue.encodeSliced),
 * yielding between slices. A head written before blocks existed (its
 * entries inline) loads with every entry in the tail, which seals whole at
 * the next append.
 */
export function* decodeStreamSliced(bytes: Uint8Array): Sliced<StreamValue> {
  const r = new ByteReader(bytes);
  const format = r.u8();
  if (format !== STREAM_FORMAT && format !== STREAM_FORMAT_INLINE) {
    throw new CollectionError('ERR_CORRUPT', 'not a serialized stream (bad format byte)');
  }
  const s = new StreamValue();
  if (format === STREAM_FORMAT && r.u8() === 1) s.sid = r.raw(STREAM_SID_BYTES);
  s.lastId = r.id();
  s.maxDeletedId = r.id();
  s.entriesAdded = r.f64();
  let previous: StreamId | '' = '';
  if (format === STREAM_FORMAT) {
    s.version = r.f64();
    s.nextNo = r.u32();
    const n = r.u32();
    for (let i = 0; i < n; i++) {
      const no = r.u32();
      const first = r.id();
      const last = r.id();
      if (first <= previous || last < first) {
        throw new CollectionError('ERR_CORRUPT', 'stream blocks out of order');
      }
      previous = last;
      s.refs.push({ no, first, last, count: r.u32(), bytes: r.u32() });
      if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
    }
  }
  s.tail.readEntries(r, previous);
  s.recount();
  const groups = r.u32();
  for (let gi = 0; gi < groups; gi++) {
    const g = new StreamGroup(r.str(), r.id(), r.f64());
    const consumers: StreamConsumer[] = [];
    const nc = r.u32();
    for (let ci = 0; ci < nc; ci++) {
      const name = r.str();
      const c = g.consumer(name, r.f64(), true)!;
      c.activeTime = r.f64();
      consumers.push(c);
    }
    const np = r.u32();
    for (let pi = 0; pi < np; pi++) {
      const id = r.id();
      const owner = consumers[r.u32()];
      if (owner === undefined)
        throw new CollectionError('ERR_CORRUPT', 'stream PEL names no consumer');
      g.insert(id, owner, r.f64(), r.u32());
    }
    s.groups.set(g.name, g);
    yield;
  }
  r.end();
  return s;
}

registerSlicedCodec(RecordType.STREAM, decodeStreamSliced);
