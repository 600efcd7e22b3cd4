import type { StoreCore } from '@strata/hlog';
import type { DatabaseProvider } from '../keyspace.js';

/**
 * Fault injection for tests: the stores of `provider`, except that a read
 * (`store.read`, as GET and MGET use) of a key `fails` picks goes pending and
 * then rejects, as a failed device read does. Everything else is the real store.
 */
export function failingReads(
  provider: DatabaseProvider,
  fails: (key: Buffer) => boolean,
  message = 'device read failed',
): DatabaseProvider {
  return {
    count: provider.count,
    async open(index) {
      const store = await provider.open(index);
      return new Proxy(store, {
        get(target, prop) {
          if (prop === 'read') {
            return (key: Uint8Array) =>
              fails(Buffer.from(key.buffer, key.byteOffset, key.byteLength))
                ? { status: 'pending', pending: Promise.reject(new Error(message)) }
                : target.read(key);
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
