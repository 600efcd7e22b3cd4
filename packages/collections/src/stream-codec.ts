import { RecordType } from '@strata/hlog';
import { registerSlicedCodec } from './codecs.js';
import { CollectionError } from './collection-error.js';
import { SLICE_ITEMS, type Sliced } from './sliced.js';
import { ByteReader, STREAM_FORMAT } from './stream-format.js';
import { type StreamConsumer, StreamGroup } from './stream-group.js';
import { StreamValue } from './stream-value.js';

/** A stream from its serialized form (StreamValue.encodeSliced), yielding between slices. */
export function* decodeStreamSliced(bytes: Uint8Array): Sliced<StreamValue> {
  const r = new ByteReader(bytes);
  if (r.u8() !== STREAM_FORMAT) {
    throw new CollectionError('ERR_CORRUPT', 'not a serialized stream (bad format byte)');
  }
  const s = new StreamValue();
  s.lastId = r.id();
  s.maxDeletedId = r.id();
  s.entriesAdded = r.f64();
  const length = r.u32();
  let previous = '';
  for (let i = 0; i < length; i++) {
    const id = r.id();
    if (id <= previous) throw new CollectionError('ERR_CORRUPT', 'stream entries out of order');
    previous = id;
    const n = r.u32();
    const fields: string[] = new Array(n);
    for (let f = 0; f < n; f++) fields[f] = r.str();
    s.put(id, fields);
    if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
  }
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
