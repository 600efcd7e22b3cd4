import {
  type CollectionStore,
  decoderFor,
  type StreamValue,
  streamBlockKey,
} from '@strata/collections';
import { RecordType, type Store, type StoreCore } from '@strata/hlog';
import { type IterateOptions, LogIterator } from '@strata/scan';
import type { Redis } from 'ioredis';
import type { DirServer } from './test-server.js';

/** Helpers of the tests of a stream's block records (reclaim, GC). */

/** Appends `n` entries with IDs `first-0`, `first+1-0`, ... (1000 a pipeline). */
export async function fillStream(r: Redis, key: string, n: number, first = 1): Promise<void> {
  for (let at = 0; at < n; at += 1000) {
    const p = r.pipeline();
    for (let i = at; i < Math.min(n, at + 1000); i++) {
      p.xadd(key, `${first + i}-0`, 'field', `value-${i}-${'x'.repeat(40)}`);
    }
    await p.exec();
  }
}

/** Database `i`'s store and collection cache. */
export const dbOf = (t: DirServer, i = 0) => ({
  store: t.server.keyspace.get(i) as StoreCore,
  collections: t.server.keyspace.collections(i) as CollectionStore,
});

/** The head's block keys, read from its record (written back first). */
export async function blockKeysOf(t: DirServer, key: string, i = 0): Promise<Buffer[]> {
  const { store, collections } = dbOf(t, i);
  await collections.flush();
  const r = await (store as Store).get(Buffer.from(key));
  if (r.status !== 'found' || r.type !== RecordType.STREAM) throw new Error(`${key} is no stream`);
  const head = decoderFor(RecordType.STREAM)!(r.value) as StreamValue;
  return head.refs.map((ref) => streamBlockKey(head.sid!, ref.no));
}

/** How many of `keys` the store has. */
export async function present(store: StoreCore, keys: readonly Buffer[]): Promise<number> {
  let n = 0;
  for (const k of keys) {
    const p = store.probe(k);
    if ((p.status === 'pending' ? await p.pending : p).status === 'found') n++;
  }
  return n;
}

/**
 * Runs `onPage` after each page any log walk visits (its own `onPage`
 * first) until the returned function is called: the GC tests act at known
 * points of a pass (a write behind the walk, an eviction). Patches
 * LogIterator for the test's process.
 */
export function afterWalkedPages(onPage: () => Promise<void>): () => void {
  const iterate = LogIterator.prototype.iterate;
  LogIterator.prototype.iterate = function (this: LogIterator, o: IterateOptions) {
    return iterate.call(this, {
      ...o,
      onPage: async (p) => {
        await o.onPage?.(p);
        await onPage();
      },
    });
  };
  return () => {
    LogIterator.prototype.iterate = iterate;
  };
}
