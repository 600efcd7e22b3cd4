import type { CommandDefinition, KeySpec } from '../../server/command-table.js';
import type { CommandFamily } from '../family.js';
import { KEY1 } from '../shared/key-positions.js';
import { dump } from './dump.js';
import { migrate } from './migrate.js';
import { migrateKeys } from './migrate-args.js';
import { migrateSockets } from './migrate-socket.js';
import { restore } from './restore.js';

/**
 * DUMP, RESTORE and MIGRATE in Redis 7.0's serialization format
 * (`@strata/rdb`): keys copied and moved between strata-server and
 * redis-server either way.
 */

const RESTORE_COMPLEXITY =
  'O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).';

/** MIGRATE's keys: `key`, or those after KEYS (searched from the end, as Redis says it). */
const MIGRATE_KEY_SPECS: readonly KeySpec[] = [
  {
    flags: ['RW', 'access', 'delete'],
    beginIndex: 3,
    findRange: { lastKey: 0, keyStep: 1, limit: 0 },
  },
  {
    flags: ['RW', 'access', 'delete', 'incomplete'],
    beginIndex: { keyword: 'KEYS', startFrom: -2 },
    findRange: { lastKey: -1, keyStep: 1, limit: 0 },
  },
];
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
    complexity: RESTORE_COMPLEXITY,
    summary: 'Creates a key from the serialized representation of a value.',
    handler: restore,
  },
  {
    // What Redis's MIGRATE sends in cluster mode: RESTORE, taken here so a
    // cluster's MIGRATE could target strata (there are no slots to ask about).
    name: 'restore-asking',
    arity: -4,
    flags: ['write', 'denyoom', 'asking'],
    ...KEY1,
    acl: ['keyspace', 'dangerous'],
    group: 'server',
    keyFlags: ['OW', 'update'],
    since: '3.0.0',
    complexity: RESTORE_COMPLEXITY,
    summary: 'An internal command for migrating keys in a cluster',
    handler: restore,
  },
  {
    name: 'migrate',
    arity: -6,
    flags: ['write', 'movablekeys'],
    firstKey: 3,
    lastKey: 3,
    step: 1,
    acl: ['keyspace', 'dangerous'],
    group: 'generic',
    keySpecs: MIGRATE_KEY_SPECS,
    keysOf: migrateKeys,
    tips: ['nondeterministic_output'],
    // Waiting for the target holds this connection only (Redis blocks every client).
    wholeLog: true,
    since: '2.6.0',
    complexity:
      'This command actually executes a DUMP+DEL in the source instance, and a RESTORE in the target instance. See the pages of these commands for time complexity. Also an O(N) data transfer between the two instances is performed.',
    summary: 'Atomically transfer a key from a Redis instance to another one.',
    handler: migrate,
  },
];

export const dumpFamily: CommandFamily = {
  name: 'dump',
  commands,
  // The target sees the cached connections close with the server, not 10 s later.
  hooks: { onServerClose: (s) => s.state(migrateSockets).closeAll() },
};
