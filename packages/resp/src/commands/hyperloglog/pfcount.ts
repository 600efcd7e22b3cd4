import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { touchWatched } from '../blocking/blocking-registry.js';
import { keyMiss } from '../pubsub/keyspace-events.js';
import { ALL_KEYS } from '../shared/key-positions.js';
import { keyModified } from '../tracking/invalidation.js';
import { hllCount, hllCountRaw } from './hll-count.js';
import { cachedCardinality, HllValue } from './hll-encoding.js';
import { corruptHllError } from './hll-errors.js';
import { after, editHll, type HllEdit } from './hll-rmw.js';
import { hyperloglogGroup } from './hll-settings.js';
import { mergeKeys } from './hll-sources.js';

/**
 * PFCOUNT of one key: the cached cardinality when it is valid, else the
 * estimate, which is then cached in the value's header. That is a write of
 * the key's bytes, as in Redis (GET shows the cache), though PFCOUNT is a
 * read-only command: no missing key is made.
 */
class CountEdit implements HllEdit {
  card: number | bigint = 0;
  refreshed = false;

  create(): null {
    return null;
  }

  update(b: Uint8Array, off: number, len: number): HllValue | null {
    this.refreshed = false;
    const cached = cachedCardinality(b, off);
    if (cached !== -1) {
      this.card = cached;
      return null;
    }
    const card = hllCount(b, off, len);
    if (card < 0) throw corruptHllError();
    this.card = card;
    this.refreshed = true;
    const v = HllValue.copyOf(b, off, len);
    v.setCardinality(card);
    return v;
  }
}

function pfcount(c: Client, argv: Buffer[]): CommandResult {
  if (argv.length > 2) {
    // Several keys: the cardinality of their union, nothing cached.
    return after(mergeKeys(c, argv.slice(1)), (m) => {
      c.reply.integer(hllCountRaw(m.registers));
    });
  }
  const key = argv[1]!;
  const edit = new CountEdit();
  return after(editHll(c, key, edit), (o) => {
    if (!o.found) {
      keyMiss(c, key);
      c.reply.integer(0);
      return;
    }
    if (edit.refreshed) {
      // Redis's signalModifiedKey (no event): WATCH and client-side caching see a change.
      touchWatched(c.server, c.db, key);
      keyModified(c.server, key, c);
    }
    c.reply.integer(edit.card);
  });
}

export const pfcountCommand: CommandDefinition = {
  name: 'pfcount',
  arity: -2,
  flags: ['readonly'],
  ...ALL_KEYS,
  ...hyperloglogGroup,
  keyFlags: ['RW', 'access'],
  keyNotes:
    'RW because it may change the internal representation of the key, and propagate to replicas',
  since: '2.8.9',
  complexity:
    'O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.',
  summary:
    'Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).',
  handler: pfcount,
};
