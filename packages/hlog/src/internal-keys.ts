/**
 * Keys of strata's own records, which share a store with the user's keys
 * but are not keys to a user: a large stream's sealed blocks (one record
 * each, beside the stream's head). They start with a prefix no client may
 * use (the server refuses it) and are left out of everything that counts or
 * lists keys: the live-key count (DBSIZE, INFO keyspace, the recount after
 * recovery) and the live walks of @strata/scan (SCAN, KEYS, RANDOMKEY, the
 * whole-log queries). Compaction, checkpoints and recovery treat them as any
 * record: they are data.
 */

/** `\xff\x00strata:`: a first byte that text keys never start with, then a name. */
export const INTERNAL_KEY_PREFIX: Buffer = Buffer.from('\xff\x00strata:', 'latin1');

const PREFIX = INTERNAL_KEY_PREFIX;
const FIRST = PREFIX[0]!;

/** Is `bytes[off, off + length)` an internal key? One byte compare for almost every key. */
export function isInternalKey(bytes: Uint8Array, off = 0, length = bytes.length - off): boolean {
  if (bytes[off] !== FIRST || length < PREFIX.length) return false;
  for (let i = 1; i < PREFIX.length; i++) if (bytes[off + i] !== PREFIX[i]) return false;
  return true;
}

/** The internal key `prefix + name` (`name`: the owner's own naming, e.g. a stream id and block number). */
export function internalKey(name: Uint8Array): Buffer {
  const key = Buffer.allocUnsafe(PREFIX.length + name.length);
  PREFIX.copy(key, 0);
  key.set(name, PREFIX.length);
  return key;
}
