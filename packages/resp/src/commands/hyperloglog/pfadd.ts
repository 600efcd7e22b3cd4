import type { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { NotifyClass, notify } from '../pubsub/keyspace-events.js';
import { KEY1 } from '../shared/key-positions.js';
import { HllValue } from './hll-encoding.js';
import { corruptHllError } from './hll-errors.js';
import { after, editHll, type HllEdit } from './hll-rmw.js';
import { hyperloglogGroup, sparseMaxBytes } from './hll-settings.js';

/**
 * PFADD key [element ...]: 1 when a register grew or the key was made,
 * else 0. As Redis's pfaddCommand, the elements are added one by one; one
 * that meets a corrupt sparse code stops there with INVALIDOBJ, and what the
 * elements before it changed stays written (Redis changes the value in place).
 */
class AddEdit implements HllEdit {
  updated = false;
  error: CommandError | null = null;

  constructor(
    private readonly elements: readonly Buffer[],
    private readonly maxBytes: number,
  ) {}

  create(): HllValue {
    this.error = null;
    const v = HllValue.empty();
    for (const e of this.elements) v.add(e, this.maxBytes);
    // A new key counts as an update, so its cache is always stale.
    v.invalidateCache();
    this.updated = true;
    return v;
  }

  update(b: Uint8Array, off: number, len: number): HllValue | null {
    this.error = null;
    this.updated = false;
    const v = HllValue.copyOf(b, off, len);
    for (const e of this.elements) {
      const r = v.add(e, this.maxBytes);
      if (r === 1) this.updated = true;
      else if (r === -1) {
        this.error = corruptHllError();
        // Nothing changed before the bad element: nothing to write.
        if (v.view().equals(b.subarray(off, off + len))) throw this.error;
        return v;
      }
    }
    if (!this.updated) return null;
    v.invalidateCache();
    return v;
  }
}

function pfadd(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  const edit = new AddEdit(argv.slice(2), sparseMaxBytes(c.server));
  return after(editHll(c, key, edit), (o) => {
    if (edit.error !== null) throw edit.error;
    if (o.created) notify(c, NotifyClass.new, 'new', key);
    if (edit.updated) notify(c, NotifyClass.string, 'pfadd', key);
    // Redis propagates only a PFADD that changed something (server.dirty).
    else c.propagate();
    c.reply.integer(edit.updated ? 1 : 0);
  });
}

export const pfaddCommand: CommandDefinition = {
  name: 'pfadd',
  arity: -2,
  flags: ['write', 'denyoom', 'fast'],
  ...KEY1,
  ...hyperloglogGroup,
  keyFlags: ['RW', 'insert'],
  since: '2.8.9',
  complexity: 'O(1) to add every element.',
  summary: 'Adds the specified elements to the specified HyperLogLog.',
  handler: pfadd,
};
