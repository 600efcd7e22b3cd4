import { type ReadResult, RecordType } from '@strata/hlog';
import { type CommandError, wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import { keyMiss } from '../pubsub/keyspace-events.js';
import { HLL_DENSE, HLL_REGISTERS, isHll, mergeInto } from './hll-encoding.js';
import { corruptHllError, notHllError } from './hll-errors.js';

/** The union of several HLL keys, one byte per register (Redis's `max` array). */
export interface MergedKeys {
  readonly registers: Uint8Array;
  /** One of the keys is dense: PFMERGE then writes a dense destination. */
  anyDense: boolean;
}

/** What reading one key gave: missing, merged, or the error Redis stops at. */
type KeyOutcome = 'missing' | 'merged' | CommandError;

/**
 * Reads `keys` as PFCOUNT (several keys) and PFMERGE do: each missing key
 * counts as an empty HLL (a `keymiss`, Redis's lookupKeyRead), the first key
 * that is no valid HLL is the error. Keys on the disk are read together;
 * their outcomes are then taken in argument order, so the events and the
 * error are those of Redis's loop, which stops at that key.
 */
export function mergeKeys(c: Client, keys: readonly Buffer[]): MergedKeys | Promise<MergedKeys> {
  const merged: MergedKeys = { registers: new Uint8Array(HLL_REGISTERS), anyDense: false };
  const outcomes: (KeyOutcome | Promise<KeyOutcome>)[] = [];
  let pending = false;
  try {
    for (const key of keys) {
      const v = c.store.read(key);
      // A view is valid until the next read: merged at once.
      if (v.status === 'found') outcomes.push(absorb(merged, v.type, v.bytes, v.offset, v.length));
      else if (v.status === 'notFound') outcomes.push('missing');
      else {
        pending = true;
        outcomes.push(
          v.pending.then((r: ReadResult) =>
            r.status === 'found' ? absorb(merged, r.type, r.value, 0, r.value.length) : 'missing',
          ),
        );
      }
    }
  } catch (e) {
    // The reads already on the disk are not needed: no unhandled rejection.
    for (const o of outcomes) if (o instanceof Promise) o.catch(() => undefined);
    throw e;
  }
  if (!pending) return finish(c, keys, outcomes as KeyOutcome[], merged);
  return Promise.all(outcomes).then((o) => finish(c, keys, o, merged));
}

function absorb(
  merged: MergedKeys,
  type: number,
  b: Uint8Array,
  off: number,
  len: number,
): KeyOutcome {
  if (type !== RecordType.STRING) return wrongTypeError();
  if (!isHll(b, off, len)) return notHllError();
  if (b[off + 4] === HLL_DENSE) merged.anyDense = true;
  return mergeInto(merged.registers, b, off, len) ? 'merged' : corruptHllError();
}

function finish(
  c: Client,
  keys: readonly Buffer[],
  outcomes: readonly KeyOutcome[],
  merged: MergedKeys,
): MergedKeys {
  for (let i = 0; i < outcomes.length; i++) {
    const o = outcomes[i]!;
    if (o === 'missing') keyMiss(c, keys[i]!);
    else if (o !== 'merged') throw o;
  }
  return merged;
}
