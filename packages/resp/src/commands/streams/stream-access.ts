import type { StreamValue } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { keyMiss } from '../pubsub/keyspace-events.js';
import { type Found, type Written, withCollection } from '../shared/collection-access.js';

/**
 * How the stream commands reach a stream: through the collection cache as
 * every collection, WRONGTYPE on another type; unlike the other types a
 * stream stays when it is emptied (XDEL, XTRIM), as in Redis.
 */

/** Runs `f` with the stream at `key` (null when missing). */
export function withStream(
  c: Client,
  key: Buffer,
  f: (s: Found<StreamValue>) => CommandResult,
): CommandResult {
  return withCollection<StreamValue>(c, key, RecordType.STREAM, f);
}

/** withStream for a read: a missing key is a key miss. */
export function readStream(
  c: Client,
  key: Buffer,
  f: (s: Found<StreamValue>) => CommandResult,
): CommandResult {
  return withStream(c, key, (s) => {
    if (s === null) keyMiss(c, key);
    return f(s);
  });
}

/** The stream at `key` changed in place: written back later (no write to wait for). */
export function streamChanged(c: Client, key: Buffer, s: StreamValue): Written {
  c.collections.changed(key, s);
  return undefined;
}

/** A new stream at `key`: its record is written now. */
export function createStream(c: Client, key: Buffer, s: StreamValue): Written {
  return c.collections.create(key, s);
}
