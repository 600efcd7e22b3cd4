import type { CollectionStore } from './collection-store.js';

/**
 * A database's stream blocks that no head refers to any more (a stream
 * deleted or overwritten, blocks a trim dropped) are deleted here in the
 * background, a slice at a time, as Redis's lazyfree frees a large value
 * off the main thread: the command that let them go answers at once, and
 * no turn of the event loop deletes more than `SLICE` of them. Each delete
 * is the cache's (a cached block's entry goes with its record), so a block
 * still being written is deleted after its write.
 *
 * Callers queue blocks only once their head no longer refers to them in
 * the store (the head's tombstone or new value written first), so a crash
 * or a checkpoint between two slices leaves blocks nobody refers to
 * (invisible, and counted by no one) and never a head without its blocks.
 */
const SLICE = 64;

class BlockReclaimer {
  private readonly queue: Buffer[] = [];
  private at = 0;
  private running: Promise<void> | null = null;

  constructor(private readonly cache: CollectionStore) {}

  get backlog(): number {
    return this.queue.length - this.at;
  }

  /** Queues `keys` for deletion; resolves when the queue has emptied (these included). */
  add(keys: readonly Buffer[]): Promise<void> {
    for (const k of keys) this.queue.push(k);
    return this.drained();
  }

  drained(): Promise<void> {
    if (this.running === null) {
      if (this.backlog === 0) return Promise.resolve();
      this.running = this.run().finally(() => {
        this.running = null;
      });
    }
    // Keys queued as a run ends are taken by the next one.
    return this.running.then(() => this.drained());
  }

  private async run(): Promise<void> {
    while (this.at < this.queue.length) {
      // A turn of the event loop between slices: clients are served meanwhile.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const end = Math.min(this.queue.length, this.at + SLICE);
      const writes: Promise<void>[] = [];
      for (; this.at < end; this.at++) {
        try {
          const w = this.cache.delete(this.queue[this.at]!);
          if (w !== undefined) writes.push(w);
        } catch {
          // The store closed (or failed) under the queue: what is left stays as orphans.
        }
      }
      if (this.at === this.queue.length) {
        this.queue.length = 0;
        this.at = 0;
      }
      // A failed delete leaves an orphan block (disk, not data): the others go on.
      if (writes.length > 0) await Promise.allSettled(writes);
    }
  }
}

const reclaimers = new WeakMap<CollectionStore, BlockReclaimer>();

function reclaimerOf(cache: CollectionStore): BlockReclaimer {
  let r = reclaimers.get(cache);
  if (r === undefined) {
    r = new BlockReclaimer(cache);
    reclaimers.set(cache, r);
  }
  return r;
}

/** Deletes the block records `keys` of `cache`'s store in the background; resolves when they are gone. */
export function reclaimBlocks(cache: CollectionStore, keys: readonly Buffer[]): Promise<void> {
  return keys.length === 0 ? reclaimedBlocks(cache) : reclaimerOf(cache).add(keys);
}

/** Resolves when every block queued for `cache` so far is deleted (tests, a clean close). */
export function reclaimedBlocks(cache: CollectionStore): Promise<void> {
  return reclaimers.get(cache)?.drained() ?? Promise.resolve();
}

/** Blocks queued for deletion and not deleted yet (INFO, tests). */
export function blocksToReclaim(cache: CollectionStore): number {
  return reclaimers.get(cache)?.backlog ?? 0;
}
