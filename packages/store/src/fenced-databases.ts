import { Store, type StoreCore } from '@strata/hlog';
import { type DatabaseProvider, type StoreDatabasesOptions, storeDatabases } from '@strata/resp';
import type { TransactionFence } from './transaction-fence.js';

/**
 * resp's `storeDatabases` (one hlog Store per database in `<dir>/<n>`, the
 * layout strata-server uses), with the transaction fence's checkpoint hook
 * on every store it opens, flushes or reopens.
 */
export function fencedDatabases(
  options: StoreDatabasesOptions,
  fence: TransactionFence,
): DatabaseProvider {
  const inner = storeDatabases(options);
  const fenced = (s: StoreCore): StoreCore => {
    if (s instanceof Store) s.onBeforeCheckpoint(fence.hook());
    return s;
  };
  return {
    get count() {
      return inner.count;
    },
    open: (index) => inner.open(index).then(fenced),
    close: (index, store) => inner.close(index, store),
    ...(inner.flush && { flush: (i, s, lazily) => inner.flush!(i, s, lazily).then(fenced) }),
    ...(inner.save && { save: (i, s) => inner.save!(i, s) }),
    ...(inner.reopen && { reopen: (i, s) => inner.reopen!(i, s).then(fenced) }),
    ...(inner.stored && { stored: () => inner.stored!() }),
    ...(inner.swap && { swap: (a, b) => inner.swap!(a, b) }),
    ...(inner.collectionBudget && {
      collectionBudget: (i, s) => inner.collectionBudget!(i, s),
    }),
  };
}
