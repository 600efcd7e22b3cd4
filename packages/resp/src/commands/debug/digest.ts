import { createHash } from 'node:crypto';
import {
  type CollectionStore,
  decoderFor,
  formatStreamId,
  HashValue,
  List,
  loadStreamBlocks,
  MAX_STREAM_ID,
  MIN_STREAM_ID,
  SetValue,
  SortedSet,
  type StreamValue,
} from '@strata/collections';
import { RecordType, type StoreCore } from '@strata/hlog';
import { formatDouble } from '@strata/protocol';
import { listKeys } from '@strata/scan';
import type { ServerState } from '../../server/server-state.js';
import { readRecord } from '../shared/read-record.js';

/**
 * DEBUG DIGEST and DIGEST-VALUE as Redis 7.0's debug.c computes them
 * (xorDigest, mixDigest, xorObjectDigest, computeDatasetDigest), so the
 * same data gives redis-server's hex byte for byte: unordered elements
 * (keys, set members, hash fields, zset members) are xored in, ordered
 * ones (list items, stream entries) mixed in.
 */

const DIGEST_BYTES = 20;

/** SHA1 of `data` xored into `digest` (order-free: xorDigest). */
function xorDigest(digest: Buffer, data: Uint8Array): void {
  const h = createHash('sha1').update(data).digest();
  for (let j = 0; j < DIGEST_BYTES; j++) digest[j]! ^= h[j]!;
}

/** digest = SHA1(digest xor SHA1(data)): order matters (mixDigest). */
function mixDigest(digest: Buffer, data: Uint8Array): void {
  xorDigest(digest, data);
  createHash('sha1').update(digest).digest().copy(digest);
}

const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');

/** htonl(n): the 4 bytes Redis mixes for a type or a database number. */
function u32be(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** Redis's OBJ_* number of a record type (what xorObjectDigest mixes first). */
const REDIS_TYPE: Readonly<Record<number, number>> = {
  [RecordType.STRING]: 0,
  [RecordType.LIST]: 1,
  [RecordType.SET]: 2,
  [RecordType.ZSET]: 3,
  [RecordType.HASH]: 4,
  [RecordType.STREAM]: 6,
};

/** An element digest of `parts` mixed in order, xored into `digest` (a hash field, a zset member). */
function xorPair(digest: Buffer, a: string, b: string): void {
  const ele = Buffer.alloc(DIGEST_BYTES);
  mixDigest(ele, latin1(a));
  mixDigest(ele, latin1(b));
  xorDigest(digest, ele);
}

/** A stream's entries, `ms.seq` then each field and value, mixed in ID order. */
async function mixStream(digest: Buffer, cache: CollectionStore, key: Buffer): Promise<void> {
  const found = await cache.get<StreamValue>(key, RecordType.STREAM);
  if (found.status !== 'found') return;
  const s = found.value;
  const blocks = await loadStreamBlocks(
    cache,
    s,
    s.refsFor(MIN_STREAM_ID, MAX_STREAM_ID, false, 0),
  );
  s.range(
    MIN_STREAM_ID,
    MAX_STREAM_ID,
    false,
    (b, i) => {
      // Redis formats the ID with "%U.%U" here, not as XRANGE prints it.
      mixDigest(digest, latin1(formatStreamId(b.idAt(i)).replace('-', '.')));
      for (const f of b.fieldsAt(i)) mixDigest(digest, latin1(f));
      return true;
    },
    blocks,
  );
}

/**
 * xorObjectDigest: the value of `key` (its type, its elements, `!!expire!!`
 * when it has a TTL) xored into `digest`; false when the key is missing.
 * A cached collection is written back first: the record is what is read.
 */
export async function xorValueDigest(
  digest: Buffer,
  store: StoreCore,
  cache: CollectionStore | undefined,
  key: Buffer,
): Promise<boolean> {
  await cache?.writeBack(key);
  const r = await readRecord(store, key);
  if (r.status !== 'found') return false;
  const redisType = REDIS_TYPE[r.type];
  if (redisType === undefined) return false;
  mixDigest(digest, u32be(redisType));
  if (r.type === RecordType.STRING) {
    mixDigest(digest, r.value);
  } else if (r.type === RecordType.STREAM) {
    if (cache !== undefined) await mixStream(digest, cache, key);
  } else {
    const v = decoderFor(r.type)?.(r.value);
    if (v instanceof List) {
      v.forRange(0, v.size - 1, (x) => {
        mixDigest(digest, latin1(x));
      });
    } else if (v instanceof SetValue) {
      v.forEach((m) => {
        xorDigest(digest, latin1(m));
      });
    } else if (v instanceof SortedSet) {
      // Redis 7.0 prints the score with "%.17g" here, whatever the encoding.
      v.forEach((score, m) => {
        xorPair(digest, m, formatDouble(score));
      });
    } else if (v instanceof HashValue) {
      v.forEach((f, x) => {
        xorPair(digest, f, x);
      });
    }
  }
  if (r.expiresAt !== 0) xorDigest(digest, latin1('!!expire!!'));
  return true;
}

/** The 40 hex digits of a digest, as Redis replies them. */
export const digestHex = (digest: Buffer): string => digest.toString('hex');

/** An all-zero digest (a missing key's, an empty dataset's). */
export const emptyDigest = (): Buffer => Buffer.alloc(DIGEST_BYTES);

/**
 * computeDatasetDigest over every database with data (those on disk are
 * opened first, when the provider says which): each one with keys mixes
 * its number, then xors in each key's digest (the key mixed, then its value).
 */
export async function datasetDigest(s: ServerState): Promise<Buffer> {
  await s.keyspace.ensureStored();
  const final = emptyDigest();
  for (let db = 0; db < s.keyspace.count; db++) {
    const store = s.keyspace.get(db);
    if (store === undefined) continue;
    const cache = s.keyspace.collections(db);
    await s.keyspace.writeBack(db);
    const keys = await s.keyspace.track(db, listKeys(store, '*'));
    let mixedDb = false;
    for (const key of keys) {
      const digest = emptyDigest();
      mixDigest(digest, key);
      if (!(await xorValueDigest(digest, store, cache, key))) continue;
      if (!mixedDb) {
        mixDigest(final, u32be(db));
        mixedDb = true;
      }
      xorDigest(final, digest);
    }
  }
  return final;
}
