import { MAX_VALUE_LENGTH, RecordType } from '@strata/hlog';
import { parseLongLong } from '@strata/protocol';
import { CommandError, wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { keyMiss } from '../pubsub/keyspace-events.js';

/** Redis's error for a bit offset that is no integer, negative or past proto-max-bulk-len. */
export const bitOffsetError = () =>
  new CommandError('ERR_OFFSET', 'ERR bit offset is not an integer or out of range');

/**
 * The bytes a bit offset must stay under: proto-max-bulk-len as Redis, but
 * never past what a value may hold here (512 MB).
 */
export function offsetByteLimit(c: Client): number {
  return Math.min(c.server.config.maxBulkLength, MAX_VALUE_LENGTH);
}

/** A bit offset as Redis 7 takes it: an integer, >= 0, its byte under `byteLimit`. */
export function parseBitOffset(arg: Buffer, byteLimit: number): number {
  const v = parseLongLong(arg, 0, arg.length);
  if (Number.isNaN(v) || v < 0 || Math.floor(v / 8) >= byteLimit) throw bitOffsetError();
  return v;
}

/** WRONGTYPE for a found collection (hash, set...): bit commands work on strings. */
export function mustBeString(v: { status: string; type?: number }): void {
  if (v.status === 'found' && v.type !== RecordType.STRING) throw wrongTypeError();
}

/** What a read of a string gives a bit command: its bytes `b[off, off + len)`, or none. */
export type StringReader = (b: Uint8Array | null, off: number, len: number) => void;

/**
 * Redis's lookupKeyRead + checkType for a bit command: `f` runs on the
 * string's bytes (a view, valid only while `f` runs), or on null for a
 * missing key after its `keymiss`; a collection is WRONGTYPE.
 */
export function withString(c: Client, key: Buffer, f: StringReader): CommandResult {
  const v = c.store.read(key);
  mustBeString(v);
  if (v.status === 'found') f(v.bytes, v.offset, v.length);
  else if (v.status === 'notFound') {
    keyMiss(c, key);
    f(null, 0, 0);
  } else {
    return v.pending.then((r) => {
      mustBeString(r);
      if (r.status === 'found') f(r.value, 0, r.value.length);
      else {
        keyMiss(c, key);
        f(null, 0, 0);
      }
    });
  }
  return undefined;
}
