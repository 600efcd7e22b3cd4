import { RecordType, recordSize } from '@strata/hlog';
import { parseInteger } from '../../args.js';
import { syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';

/** A key's slot in the hash index (a 64-bit entry). */
const INDEX_ENTRY_BYTES = 8;
/** What the collection cache charges an entry besides its structure and key (collection-store.ts). */
const CACHE_ENTRY_BYTES = 128;

/**
 * MEMORY USAGE key [SAMPLES count]: the bytes the key costs here. A string:
 * its record in the log (header, key, value, expiry; in memory or on disk)
 * and its index entry. A collection: what the collection cache charges for
 * its decoded structure, as it counts against the cache's budget. SAMPLES is
 * checked as Redis checks it and otherwise unused: the structures keep
 * their own byte counts, nothing is sampled.
 */
export function memoryUsage(c: Client, argv: Buffer[]): CommandResult {
  for (let i = 3; i < argv.length; i++) {
    if (argv[i]!.toString('latin1').toLowerCase() === 'samples' && i + 1 < argv.length) {
      if (parseInteger(argv[i + 1]!) < 0) throw syntaxError();
      i++;
    } else throw syntaxError();
  }
  const key = argv[2]!;
  const reply = (
    r: { status: 'found'; type: number; expiresAt: number } | { status: 'notFound' },
  ) => {
    if (r.status === 'notFound') {
      c.reply.null();
      return undefined;
    }
    if (r.type === RecordType.STRING) return stringUsage(c, key, r.expiresAt !== 0);
    const found = c.collections.get(key, r.type);
    const answer = (x: Awaited<typeof found>) => {
      if (x.status !== 'found') c.reply.null();
      else c.reply.integer(x.value.memoryBytes() + key.length + CACHE_ENTRY_BYTES);
    };
    if (found instanceof Promise) return found.then(answer);
    answer(found);
    return undefined;
  };
  const p = c.store.probe(key);
  if (p.status === 'pending') return p.pending.then(reply);
  return reply(p);
}

function stringUsage(c: Client, key: Buffer, hasExpiry: boolean): CommandResult {
  const bytes = (length: number) => recordSize(key.length, length, hasExpiry) + INDEX_ENTRY_BYTES;
  const v = c.store.read(key);
  if (v.status === 'found') c.reply.integer(bytes(v.length));
  else if (v.status === 'notFound') c.reply.null();
  else {
    return v.pending.then((r) => {
      if (r.status === 'found') c.reply.integer(bytes(r.value.length));
      else c.reply.null();
    });
  }
  return undefined;
}
