import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { NotifyClass, notify } from '../pubsub/keyspace-events.js';
import { ALL_KEYS } from '../shared/key-positions.js';
import { HLL_REGISTERS, HllValue } from './hll-encoding.js';
import { corruptHllError } from './hll-errors.js';
import { after, chain, editHll, type HllEdit } from './hll-rmw.js';
import { hyperloglogGroup, sparseMaxBytes } from './hll-settings.js';
import { type MergedKeys, mergeKeys } from './hll-sources.js';

/**
 * PFMERGE's write of the union into the destination, as Redis 7's
 * pfmergeCommand: a missing destination is made (sparse), one that is or
 * meets a dense input is dense first, then every non-zero register of the
 * union is set in register order (the sparse code grows, merges and may turn
 * dense as it does in Redis), and the cache is stale.
 */
class MergeEdit implements HllEdit {
  constructor(
    private readonly merged: MergedKeys,
    private readonly maxBytes: number,
  ) {}

  create(): HllValue {
    return this.write(HllValue.empty());
  }

  update(b: Uint8Array, off: number, len: number): HllValue {
    return this.write(HllValue.copyOf(b, off, len));
  }

  private write(v: HllValue): HllValue {
    if (this.merged.anyDense && !v.toDense()) throw corruptHllError();
    const max = this.merged.registers;
    for (let j = 0; j < HLL_REGISTERS; j++) {
      const m = max[j]!;
      if (m === 0) continue;
      // The destination was checked as a source: Redis ignores this result.
      v.set(j, m, this.maxBytes);
    }
    v.invalidateCache();
    return v;
  }
}

function pfmerge(c: Client, argv: Buffer[]): CommandResult {
  const dest = argv[1]!;
  // The destination is read among the sources, as Redis's loop from argv[1].
  return chain(mergeKeys(c, argv.slice(1)), (merged) =>
    after(editHll(c, dest, new MergeEdit(merged, sparseMaxBytes(c.server))), (o) => {
      if (o.created) notify(c, NotifyClass.new, 'new', dest);
      // Redis sends `pfadd` for a merge: in effect it adds elements.
      notify(c, NotifyClass.string, 'pfadd', dest);
      c.reply.simple('OK');
    }),
  );
}

export const pfmergeCommand: CommandDefinition = {
  name: 'pfmerge',
  arity: -2,
  flags: ['write', 'denyoom'],
  ...ALL_KEYS,
  ...hyperloglogGroup,
  // Redis's two key specs: the destination read and added to, the sources only read.
  keyFlags: ['RW', 'access', 'insert'],
  keySpecs: [
    {
      flags: ['RW', 'access', 'insert'],
      beginIndex: 1,
      findRange: { lastKey: 0, keyStep: 1, limit: 0 },
    },
    { flags: ['RO', 'access'], beginIndex: 2, findRange: { lastKey: -1, keyStep: 1, limit: 0 } },
  ],
  since: '2.8.9',
  complexity: 'O(N) to merge N HyperLogLogs, but with high constant times.',
  summary: 'Merge N different HyperLogLogs into a single one.',
  handler: pfmerge,
};
