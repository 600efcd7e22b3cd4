import {
  CorruptRecordError,
  INTERNAL_KEY_PREFIX,
  internalKey,
  isInternalKey,
  RecordType,
} from '@strata/hlog';
import { decoderFor } from './codecs.js';
import { CollectionError } from './collection-error.js';
import type { CollectionStore } from './collection-store.js';
import type { CollectionLookup } from './lookup.js';
import type { StreamBlockValue } from './stream-block.js';
import './stream-codec.js';
import { reclaimBlocks } from './stream-reclaim.js';
import {
  newStreamId,
  STREAM_SID_BYTES,
  type StreamBlockRef,
  type StreamBlocks,
  type StreamValue,
} from './stream-value.js';

/**
 * A stream's sealed blocks as records of the database's collection cache:
 * each under the internal key `sid + u32 block number` (the stream ID is
 * random and fixed at the first seal, so RENAME moves no block), loaded,
 * evicted and written back as any collection.
 */

/** The record key of block `no` of the stream `sid`. */
export function streamBlockKey(sid: Uint8Array, no: number): Buffer {
  // The same block again (short reads of one block: XRANGE COUNT 10): the same key.
  if (sid === lastKey.sid && no === lastKey.no) return lastKey.key;
  const name = Buffer.allocUnsafe(sid.length + 4);
  name.set(sid, 0);
  name.writeUInt32BE(no, sid.length);
  const key = internalKey(name);
  lastKey.sid = sid;
  lastKey.no = no;
  lastKey.key = key;
  return key;
}

/** The parts of a block's record key (streamBlockKey's): its stream ID (latin1 text) and number. */
export interface StreamBlockKeyParts {
  readonly sid: string;
  readonly no: number;
}

/** streamBlockKey's parts from the key at `bytes[offset, offset + length)`, null for another key. */
export function streamBlockKeyParts(
  bytes: Uint8Array,
  offset: number,
  length: number,
): StreamBlockKeyParts | null {
  const at = offset + INTERNAL_KEY_PREFIX.length;
  if (
    length !== INTERNAL_KEY_PREFIX.length + STREAM_SID_BYTES + 4 ||
    !isInternalKey(bytes, offset, length)
  ) {
    return null;
  }
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    sid: b.toString('latin1', at, at + STREAM_SID_BYTES),
    no: b.readUInt32BE(at + STREAM_SID_BYTES),
  };
}

/** The key streamBlockKey made last (a stream's `sid` is never changed in place: identity says it). */
const lastKey: { sid: Uint8Array | null; no: number; key: Buffer } = {
  sid: null,
  no: -1,
  key: Buffer.alloc(0),
};

/**
 * The blocks one command of one stream works with, and where its changes
 * to them go. `version` is the head's at loading time: while the head
 * still has it, the loaded blocks are current (see StreamValue.version),
 * so a command that waited for them may use them even if the cache let
 * some go meanwhile (a range longer than the cache's budget).
 */
export class CachedStreamBlocks implements StreamBlocks {
  private writes: Promise<void>[] | null = null;

  constructor(
    private readonly cache: CollectionStore,
    private readonly head: StreamValue,
    readonly version: number,
    private readonly loaded: Map<number, StreamBlockValue> | null,
  ) {}

  /** Whether these blocks may serve `head` now. */
  current(head: StreamValue): boolean {
    return (
      head.version === this.version && head.sid !== null && this.head.sid?.equals(head.sid) === true
    );
  }

  has(ref: StreamBlockRef): boolean {
    return this.loaded?.has(ref.no) === true;
  }

  get(ref: StreamBlockRef): StreamBlockValue {
    const b = this.loaded?.get(ref.no);
    if (b === undefined) {
      throw new CollectionError('ERR_INVALID_ARGUMENT', `stream block ${ref.no} was not loaded`);
    }
    return b;
  }

  sealed(ref: StreamBlockRef, block: StreamBlockValue): void {
    this.wrote(this.cache.create(this.key(ref), block));
  }

  changed(ref: StreamBlockRef, block: StreamBlockValue): void {
    const key = this.key(ref);
    // A block used from an earlier load that the cache let go: written again from this copy.
    if (this.cache.peek(key) === block) this.cache.changed(key, block);
    else this.wrote(this.cache.create(key, block));
  }

  dropped(ref: StreamBlockRef): void {
    // In the background, after this command's head change (a trim of many blocks answers at once).
    void reclaimBlocks(this.cache, [this.key(ref)]);
  }

  /** The block record writes still in flight, undefined when none. */
  written(): Promise<void> | undefined {
    const w = this.writes;
    if (w === null) return undefined;
    this.writes = null;
    return w.length === 1 ? w[0] : Promise.all(w).then(() => undefined);
  }

  private wrote(p: Promise<void> | undefined): void {
    if (p === undefined) return;
    if (this.writes === null) this.writes = [p];
    else this.writes.push(p);
  }

  private key(ref: StreamBlockRef): Buffer {
    return streamBlockKey(this.head.sid!, ref.no);
  }
}

/**
 * The blocks `refs` of `head`, synchronous when every one is cached (or in
 * memory), else a promise of them all (read together: the read-ahead of a
 * long range). `carried`: blocks an earlier round of the same command
 * loaded, used where the cache no longer has them if still current.
 * `owner`: the stream's key, which a damaged block's error names (its
 * record's key is an internal one, no key to a user).
 */
export function loadStreamBlocks(
  cache: CollectionStore,
  head: StreamValue,
  refs: readonly StreamBlockRef[],
  carried?: CachedStreamBlocks,
  owner?: Uint8Array,
): CachedStreamBlocks | Promise<CachedStreamBlocks> {
  if (refs.length === 0) return new CachedStreamBlocks(cache, head, head.version, null);
  const sid = head.sid;
  if (sid === null) throw corrupt('a stream with blocks has no stream ID');
  const loaded = new Map<number, StreamBlockValue>();
  const carry = carried?.current(head) === true ? carried : undefined;
  const waits: Promise<unknown>[] = [];
  for (const ref of refs) {
    let r: ReturnType<typeof cache.get<StreamBlockValue>>;
    try {
      r = cache.get<StreamBlockValue>(streamBlockKey(sid, ref.no), RecordType.STREAM_BLOCK);
    } catch (e) {
      throw ownedBy(e, owner, ref);
    }
    if (!(r instanceof Promise)) loaded.set(ref.no, blockOf(r, ref));
    else if (carry?.has(ref)) loaded.set(ref.no, carry.get(ref));
    else {
      waits.push(
        r.then(
          (x) => loaded.set(ref.no, blockOf(x, ref)),
          (e: unknown) => {
            throw ownedBy(e, owner, ref);
          },
        ),
      );
    }
  }
  const done = () => new CachedStreamBlocks(cache, head, head.version, loaded);
  return waits.length === 0 ? done() : Promise.all(waits).then(done);
}

/** A damaged block's error, naming the stream's key rather than the block's internal one. */
function ownedBy(e: unknown, owner: Uint8Array | undefined, ref: StreamBlockRef): unknown {
  if (owner === undefined || !(e instanceof CorruptRecordError)) return e;
  return new CorruptRecordError(owner, e.recordAddress, e.damage, `block ${ref.no} of the stream`);
}

function blockOf(r: CollectionLookup<StreamBlockValue>, ref: StreamBlockRef): StreamBlockValue {
  if (r.status !== 'found') throw corrupt(`stream block ${ref.no} is missing`);
  return r.value;
}

function corrupt(message: string): CollectionError {
  return new CollectionError('ERR_CORRUPT', message);
}

/**
 * Copies `head`'s blocks from `from` into `to` under a new stream ID
 * (COPY, MOVE: no two heads share a block) and returns the copy's head.
 * One block at a time, so memory stays bounded; O(blocks), as Redis's COPY
 * of a stream is O(entries). The caller holds the keyspace (no command
 * changes the stream meanwhile).
 */
export async function copyStreamBlocks(
  head: StreamValue,
  from: CollectionStore,
  to: CollectionStore,
): Promise<StreamValue> {
  const copy = decoderFor(RecordType.STREAM)!(head.encode()) as StreamValue;
  // No block yet: the copy's first seal makes its own stream ID (two heads
  // with one ID would seal their blocks under the same keys).
  if (head.refs.length === 0) {
    copy.sid = null;
    return copy;
  }
  copy.sid = newStreamId();
  for (const ref of head.refs) {
    const b = (await loadStreamBlocks(from, head, [ref])).get(ref).compact();
    await to.create(streamBlockKey(copy.sid, ref.no), b);
  }
  return copy;
}

/**
 * Deletes every block of `head` from `cache` in the background, in slices
 * (stream-reclaim.ts); resolves when they are gone. Call it once the store
 * no longer has `head` (its key deleted or overwritten, the write settled):
 * a crash in between then leaves orphan blocks, never half a stream.
 */
export function dropStreamBlocks(head: StreamValue, cache: CollectionStore): Promise<void> {
  const sid = head.sid;
  if (sid === null || head.refs.length === 0) return Promise.resolve();
  return reclaimBlocks(
    cache,
    head.refs.map((ref) => streamBlockKey(sid, ref.no)),
  );
}
