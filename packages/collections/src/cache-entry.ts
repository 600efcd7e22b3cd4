import type { CollectionValue } from './collection-value.js';
import type { CollectionLookup } from './lookup.js';

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
  /** A sliced write-back holds the key (lookups wait on it), or null. */
  hold: WriteBackHold | null = null;
  /**
   * Set once another write replaced the key (`invalidate`): the cache's
   * writes of this entry not applied yet never are (one that went pending
   * on the device is cancelled in hlog, one queued is not issued), so an
   * old value never lands over the newer record.
   */
  readonly cancel = { cancelled: false };
  private current: CollectionValue | null;
  private foundAs: CollectionLookup | null = null;

  constructor(
    readonly key: Buffer,
    readonly hash: number,
    value: CollectionValue | null,
    /** ms since the epoch, 0 = none: the record's expiry, as the keys commands set it. */
    public expiresAt: number,
  ) {
    this.current = value;
  }

  /** null: the key's deletion is in flight (reads say missing until it lands). */
  get value(): CollectionValue | null {
    return this.current;
  }

  set value(v: CollectionValue | null) {
    this.current = v;
    this.foundAs = null;
  }

  /**
   * A lookup's answer for the value (not null): one object per value, not
   * per lookup (it is immutable, and a new value gets a new one).
   */
  found(): CollectionLookup {
    if (this.foundAs === null) this.foundAs = { status: 'found', value: this.current! };
    return this.foundAs;
  }
}

/**
 * A large entry's write-back encoding over event-loop turns: the key is
 * held meanwhile (lookups wait on `released`), so no command changes the
 * structure mid-encode. `stale` once the write must not happen: the key
 * was deleted, replaced or expired at the record level, the cache was
 * cleared, or the structure changed after all; the encode then stops at its
 * next slice and writes nothing.
 */
export class WriteBackHold {
  stale = false;
  /** Started or joined by a checkpoint's hook: stays held once written, until the hook lets the mark follow. */
  forCheckpoint: boolean;
  /** Encoded and written (or given up): only a checkpoint's hold remains. */
  done = false;
  readonly released: Promise<void>;
  private resolve: () => void = () => undefined;

  constructor(forCheckpoint: boolean) {
    this.forCheckpoint = forCheckpoint;
    this.released = new Promise<void>((resolve) => {
      this.resolve = resolve;
    });
  }

  release(): void {
    this.resolve();
  }
}
