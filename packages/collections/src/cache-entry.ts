import type { CollectionValue } from './collection-value.js';

/** One cached collection: its key (an owned copy), structure and bookkeeping. */
export class CacheEntry {
  /** LRU list links (the cache's list runs from least to most recently used). */
  prev: CacheEntry | null = null;
  next: CacheEntry | null = null;
  /** Bytes charged to the budget (value.memoryBytes() + key), as of the last change. */
  bytes = 0;
  /** Changed since its record was last written. */
  dirty = false;
  /** Background write-back ticks (CollectionStore) of the last change and of the first unwritten one. */
  changedTick = 0;
  dirtyTick = 0;
  /** The last store write of this key issued by the cache, while in flight (writes run in order). */
  writing: Promise<void> | null = null;
  /** Evicted: drop once clean and no write-back is in flight. */
  evicting = false;

  constructor(
    readonly key: Buffer,
    readonly hash: number,
    /** null: the key's deletion is in flight (reads say missing until it lands). */
    public value: CollectionValue | null,
    /** ms since the epoch, 0 = none: the record's expiry, as the keys commands set it. */
    public expiresAt: number,
  ) {}
}
