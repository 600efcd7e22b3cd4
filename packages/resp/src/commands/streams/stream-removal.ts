import {
  type CollectionLookup,
  type CollectionStore,
  type CollectionValue,
  dropStreamBlocks,
  StreamValue,
} from '@strata/collections';
import { RecordType, type StoreCore } from '@strata/hlog';
import type { ServerState } from '../../server/server-state.js';
import { readConfig } from '../server/config.js';

/**
 * A stream's blocks are records of their own, so whatever removes or
 * replaces a stream's head must delete them too, or they stay on disk
 * for good. The order is the head first, then (once that write settled)
 * the blocks, in the background (collections' stream-reclaim.ts): a crash
 * or a checkpoint in between shows no stream, never half of one; what it
 * can leave is orphan blocks, which nothing reads.
 */

/**
 * The stream head `key` holds, read to learn its blocks before it goes:
 * the cached one, else its record (a probe first, so a key of another type
 * is never read whole). Null when the key holds no stream with blocks.
 */
export function streamHeadOf(
  collections: CollectionStore,
  store: StoreCore,
  key: Buffer,
): StreamValue | null | Promise<StreamValue | null> {
  const cached = collections.peek(key);
  if (cached !== undefined) return streamWithBlocks(cached);
  const p = store.probe(key);
  if (p.status === 'pending') {
    return p.pending.then((r) =>
      r.status === 'found' && r.type === RecordType.STREAM
        ? loadStreamHead(collections, key)
        : null,
    );
  }
  return p.status === 'found' && p.type === RecordType.STREAM
    ? loadStreamHead(collections, key)
    : null;
}

/**
 * The stream head `key` holds, known to be a stream (a delete that kept it
 * said so): read and cached, with no probe first. Null when it has no blocks.
 */
export function loadStreamHead(
  collections: CollectionStore,
  key: Buffer,
): StreamValue | null | Promise<StreamValue | null> {
  const r = collections.get<StreamValue>(key, RecordType.STREAM);
  // A newer head cached meanwhile (another command loaded and changed it) is the one that goes.
  const pick = (x: CollectionLookup<StreamValue>) =>
    streamWithBlocks(collections.peek(key) ?? (x.status === 'found' ? x.value : null));
  return r instanceof Promise ? r.then(pick) : pick(r);
}

/**
 * Forgets `key`'s cached collection before a write that replaces it
 * (SET), and returns it when it is a stream head with blocks, for
 * dropBlocksAfter. A head not cached is not read (a blind write stays
 * blind): its blocks are left behind.
 */
export function invalidateHead(collections: CollectionStore, key: Buffer): StreamValue | null {
  return streamWithBlocks(collections.invalidate(key));
}

/** `v` when it is a stream head with sealed blocks, else null. */
export function streamWithBlocks(v: CollectionValue | null | undefined): StreamValue | null {
  return v instanceof StreamValue && v.refs.length > 0 ? v : null;
}

/** The lazyfree-lazy-* parameters that decide whether a removal's reply waits for its blocks. */
export type LazyFreeCase = 'lazyfree-lazy-user-del' | 'lazyfree-lazy-server-del';

/**
 * Deletes `head`'s blocks once `write` (the removal or overwrite of its
 * key) has settled, in slices in the background, and returns what the
 * command waits for before its reply: the blocks gone when Redis would
 * free them synchronously (`lazy`'s parameter `no`, the default), nothing
 * when lazily (`yes`; `true`: always, as UNLINK). Either way no turn of
 * the event loop deletes more than a slice. Blocks freed lazily count in
 * INFO's lazyfreed_objects once gone.
 */
export function dropBlocksAfter(
  write: Promise<unknown> | unknown,
  head: StreamValue | null,
  collections: CollectionStore,
  s: ServerState,
  lazy: LazyFreeCase | true,
): Promise<void> | undefined {
  if (head === null) return undefined;
  const dropped =
    write instanceof Promise
      ? // A write that failed left the head in place: its blocks stay with it.
        write.then(
          () => dropStreamBlocks(head, collections),
          () => undefined,
        )
      : dropStreamBlocks(head, collections);
  if (lazy !== true && readConfig(s, lazy) !== 'yes') return dropped;
  const blocks = head.refs.length;
  void dropped.then(() => {
    s.keyspace.lazyfree.freed += blocks;
  });
  return undefined;
}
