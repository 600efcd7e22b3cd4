import type { CommandDefinition } from '../../server/command-table.js';
import type { CommandFamily } from '../family.js';
import { KEY1 } from '../shared/key-positions.js';
import { dump } from './dump.js';
import { restore } from './restore.js';

/**
 * DUMP and RESTORE in Redis 7.0's serialization format (`@strata/rdb`):
 * keys copied between strata-server and redis-server either way.
 */
const commands: CommandDefinition[] = [
  {
    name: 'dump',
    arity: 2,
    flags: ['readonly'],
    ...KEY1,
    acl: ['keyspace'],
    group: 'generic',
    keyFlags: ['RO', 'access'],
    tips: ['nondeterministic_output'],
    since: '2.6.0',
    complexity:
      'O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).',
    summary: 'Returns a serialized representation of the value stored at a key.',
    handler: dump,
  },
  {
    name: 'restore',
    arity: -4,
    flags: ['write', 'denyoom'],
    ...KEY1,
    acl: ['keyspace', 'dangerous'],
    group: 'generic',
    keyFlags: ['OW', 'update'],
    since: '2.6.0',
    complexity:
      'O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).',
    summary: 'Creates a key from the serialized representation of a value.',
    handler: restore,
  },
];

export const dumpFamily: CommandFamily = { name: 'dump', commands };
