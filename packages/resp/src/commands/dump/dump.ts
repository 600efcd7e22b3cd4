import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { readMissed } from '../shared/expiry.js';
import { readRecord } from '../shared/read-record.js';
import { dumpPayload } from './dump-payload.js';
import { rdbValueOf } from './value-bridge.js';

/**
 * DUMP key: the value in Redis 7.0's serialization (its RDB object
 * encoding, RDB version 10, CRC-64; strings compressed as `rdbcompression`
 * says), so redis-server's RESTORE takes it.
 * The record is read with other clients held, a cached collection written
 * back first (the record is what is serialized); a stream's sealed blocks
 * are read one at a time.
 */
export function dump(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  return c.server.runExclusive(c, async () => {
    await c.collections.writeBack(key);
    const r = await readRecord(c.store, key);
    if (r.status !== 'found') {
      readMissed(c, key, true);
      c.reply.null();
      return;
    }
    c.reply.bulk(dumpPayload(c.server, await rdbValueOf(c.collections, r.type, r.value)));
  });
}
