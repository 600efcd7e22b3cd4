import type { CollectionValue } from './collection-value.js';

/**
 * What `CollectionStore.get(key, type)` finds: the cached (or freshly
 * decoded) structure, no key, or a key holding another type (WRONGTYPE;
 * `type` is the RecordType it holds, 0 for a string).
 */
export type CollectionLookup<V extends CollectionValue = CollectionValue> =
  | { readonly status: 'found'; readonly value: V }
  | { readonly status: 'missing' }
  | { readonly status: 'wrongType'; readonly type: number };

/** A lookup, synchronous when the key is cached or its record in memory. */
export type MaybePending<T> = T | Promise<T>;
