import type { ReadResult, StoreCore } from '@strata/hlog';

/**
 * A key's record as an owned copy: the log's view is valid only until the
 * next read, and a command that reads, awaits and writes needs it longer.
 */
export function readRecord(store: StoreCore, key: Buffer): ReadResult | Promise<ReadResult> {
  const v = store.read(key);
  if (v.status === 'pending') return v.pending;
  if (v.status === 'notFound') return v;
  return {
    status: 'found',
    value: Buffer.from(v.bytes.subarray(v.offset, v.offset + v.length)),
    expiresAt: v.expiresAt,
    type: v.type,
  };
}

/** Waits for a store write's pending part, if it has one. */
export async function settled<T extends { status: string }>(
  v: T | { status: 'pending'; pending: Promise<unknown> },
): Promise<unknown> {
  return 'pending' in v ? v.pending : v;
}
