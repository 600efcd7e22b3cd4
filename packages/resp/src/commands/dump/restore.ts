import { beginStreamBuild, type StreamValue } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { parseDumpPayload, RDB_MAX_READ_VERSION, RdbError, type RdbValue } from '@strata/rdb';
import { eqi, parseInteger } from '../../args.js';
import { CommandError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { signalReady } from '../blocking/blocking-registry.js';
import { registerHash } from '../hashes/field-registry.js';
import { NotifyClass, notifyKeyspaceEvent } from '../pubsub/keyspace-events.js';
import { settled } from '../shared/read-record.js';
import { dropBlocksAfter, streamHeadOf } from '../streams/stream-removal.js';
import { streamFromRdb } from './stream-bridge.js';
import { fromRdbValue, type RestoredRecord } from './value-bridge.js';

interface RestoreOptions {
  replace: boolean;
  absTtl: boolean;
  /** IDLETIME in seconds, -1 when not given. */
  idle: number;
  /** FREQ, -1 when not given. */
  freq: number;
}

/** Redis's restoreCommand options: REPLACE, ABSTTL, IDLETIME s, FREQ f (one of the last two). */
function parseOptions(argv: Buffer[]): RestoreOptions {
  const o: RestoreOptions = { replace: false, absTtl: false, idle: -1, freq: -1 };
  let idle = false;
  let freq = false;
  for (let j = 4; j < argv.length; j++) {
    const a = argv[j]!;
    const more = j + 1 < argv.length;
    if (eqi(a, 'replace')) o.replace = true;
    else if (eqi(a, 'absttl')) o.absTtl = true;
    else if (eqi(a, 'idletime') && more && !freq) {
      idle = true;
      o.idle = parseInteger(argv[++j]!);
      if (o.idle < 0) {
        throw new CommandError('ERR_SYNTAX', 'ERR Invalid IDLETIME value, must be >= 0');
      }
    } else if (eqi(a, 'freq') && more && !idle) {
      freq = true;
      o.freq = parseInteger(argv[++j]!);
      if (o.freq < 0 || o.freq > 255) {
        throw new CommandError('ERR_SYNTAX', 'ERR Invalid FREQ value, must be >= 0 and <= 255');
      }
    } else throw syntaxError();
  }
  return o;
}

const badPayload = () =>
  new CommandError('ERR_DUMP_PAYLOAD', 'ERR DUMP payload version or checksum are wrong');

/**
 * RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME s] [FREQ f]: a value
 * DUMPed by redis-server 7.0 to 7.4 (or by us) written under `key`, checked in
 * Redis's order: options, an existing key, the TTL, the payload's footer, its
 * contents. A TTL already past deletes (with REPLACE) and writes nothing.
 */
export function restore(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  const o = parseOptions(argv);
  return c.server.runExclusive(c, async () => {
    // Whether the key exists: a probe, not a copy of its value.
    const probed = c.store.probe(key);
    const found = probed.status === 'pending' ? await probed.pending : probed;
    const exists = found.status === 'found';
    if (exists && !o.replace) {
      throw new CommandError('ERR_BUSYKEY', 'BUSYKEY Target key name already exists.');
    }
    let ttl = parseInteger(argv[2]!);
    if (ttl < 0)
      throw new CommandError('ERR_INVALID_EXPIRE', 'ERR Invalid TTL value, must be >= 0');
    let value: RdbValue;
    try {
      // Up to Redis 7.4's RDB 12 (7.0 refuses 11 and 12): its hashes with
      // field TTLs are values strata has, and every older type is read too.
      value = parseDumpPayload(argv[3]!, { maxVersion: RDB_MAX_READ_VERSION }).value;
    } catch (e) {
      if (!(e instanceof RdbError)) throw e;
      if (e.code === 'ERR_DUMP_PAYLOAD') throw badPayload();
      throw new CommandError('ERR_DUMP_PAYLOAD', 'ERR Bad data format');
    }
    // Built before the TTL is looked at, as Redis loads the object first (a bad one is an error).
    let decoded: RestoredRecord;
    let stream: StreamValue | null = null;
    // A stream's blocks have no head until its record is written: the block GC waits.
    const build = value.type === 'stream' ? beginStreamBuild(c.collections) : null;
    try {
      if (value.type === 'stream') {
        const built = await streamFromRdb(c.collections, value);
        await built.written;
        stream = built.head;
        decoded = { type: RecordType.STREAM, record: stream.encode() };
      } else decoded = fromRdbValue(value);
      if (ttl !== 0 && !o.absTtl) ttl += Date.now();
      const server = c.server;
      // A stream replaced takes its blocks with it, once its head is overwritten.
      const old = exists ? await streamHeadOf(c.collections, c.store, key) : null;
      c.collections.invalidate(key);
      if (ttl !== 0 && ttl <= Date.now()) {
        // The restored stream was never visible: its blocks go at once.
        if (stream !== null) dropBlocksAfter(undefined, stream, c.collections, server, true);
        // Already expired: Redis deletes what REPLACE would have replaced, and answers OK.
        if (exists) {
          await settled(c.store.remove(key));
          await dropBlocksAfter(undefined, old, c.collections, server, 'lazyfree-lazy-server-del');
          notifyKeyspaceEvent(server, NotifyClass.generic, 'del', key, c.db, c);
        }
        c.reply.simple('OK');
        return;
      }
      await settled(c.store.upsert(key, decoded.record, ttl, 0, decoded.type));
      build?.end();
      await dropBlocksAfter(undefined, old, c.collections, server, 'lazyfree-lazy-server-del');
      // A new value (even over a REPLACEd one): the access word is its own.
      c.store.setAccessWord(key, c.server.access.created(o.freq, o.idle));
      if (decoded.fieldExpiry !== undefined) await registerHash(c, key, decoded.fieldExpiry);
      notifyKeyspaceEvent(server, NotifyClass.generic, 'restore', key, c.db, c);
      await signalReady(c, c.db, key);
      c.reply.simple('OK');
    } finally {
      build?.end();
    }
  });
}
