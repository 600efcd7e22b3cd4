import type { StoreCore } from '@strata/hlog';
import type { DatabaseProvider } from '../../src/server/keyspace.js';

/**
 * Fault injection for tests: the stores of `provider`, except that the given
 * operations (by default `read`, as GET and MGET use) on a key `fails` picks
 * go pending and then reject, as a failed device read or write does.
 * Everything else is the real store.
 */
/** Key operations of a store: each takes the key first and may go pending. */
export type KeyOperation = 'read' | 'probe' | 'upsert' | 'remove' | 'readModifyWrite' | 'setExpiry';

export function failingReads(
  provider: DatabaseProvider,
  fails: (key: Buffer) => boolean,
  message = 'device read failed',
  operations: readonly KeyOperation[] = ['read'],
): DatabaseProvider {
  const failing = new Set<string | symbol>(operations);
  return {
    count: provider.count,
    async open(index) {
      const store = await provider.open(index);
      return new Proxy(store, {
        get(target, prop) {
          if (failing.has(prop)) {
            const op = Reflect.get(target, prop, target) as (
              key: Uint8Array,
              ...rest: unknown[]
            ) => unknown;
            return (key: Uint8Array, ...rest: unknown[]) =>
              fails(Buffer.from(key.buffer, key.byteOffset, key.byteLength))
                ? { status: 'pending', pending: Promise.reject(new Error(message)) }
                : op.call(target, key, ...rest);
          }
          const v = Reflect.get(target, prop, target);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      }) as StoreCore;
    },
    close: (index, store) => provider.close(index, store),
    ...(provider.flush !== undefined ? { flush: provider.flush.bind(provider) } : {}),
    ...(provider.save !== undefined ? { save: provider.save.bind(provider) } : {}),
  };
}
