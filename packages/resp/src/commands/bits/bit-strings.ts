import { MAX_VALUE_LENGTH } from '@strata/hlog';
import { parseLongLong } from '@strata/protocol';
import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';

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
