import { type CollectionValue, latin1 } from '@strata/collections';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import type { NotifyClassBit } from '../pubsub/keyspace-events.js';
import { afterChangeNotify, whenWritten, withCollection } from './collection-access.js';

/**
 * HDEL, SREM and ZREM: each argument from argv[2] on is removed from the
 * collection at argv[1] (`remove` says whether it was there); the reply is
 * how many were, once an emptied collection is deleted. Nothing removed:
 * nothing is written. A removal publishes `event` (`hdel`, `srem`,
 * `zrem`, class `notifyType`), then `del` when the collection was emptied,
 * as Redis does; nothing removed, no event.
 */
export function removeMembers<V extends CollectionValue>(
  c: Client,
  argv: Buffer[],
  type: number,
  remove: (value: V, member: string) => boolean,
  notifyType: NotifyClassBit,
  event: string,
): CommandResult {
  const key = argv[1]!;
  return withCollection<V>(c, key, type, (value) => {
    let n = 0;
    if (value !== null)
      for (let i = 2; i < argv.length; i++) if (remove(value, latin1(argv[i]!))) n++;
    if (value === null || n === 0) {
      c.reply.integer(0);
      return undefined;
    }
    return whenWritten(afterChangeNotify(c, key, value, notifyType, event), () =>
      c.reply.integer(n),
    );
  });
}
