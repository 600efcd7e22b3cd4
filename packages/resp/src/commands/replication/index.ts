import type { CommandFamily } from '../family.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { wait } from './wait.js';

/**
 * Replication's commands as a server with no replicas answers them (WAIT).
 * The replication issue grows this family (REPLICAOF, SYNC, PSYNC...).
 */
export const replicationFamily: CommandFamily = {
  name: 'replication',
  commands: [
    {
      name: 'wait',
      arity: 3,
      flags: ['noscript', 'blocking'],
      ...NO_KEYS,
      acl: ['connection'],
      group: 'generic',
      tips: ['request_policy:all_shards', 'response_policy:agg_min'],
      since: '3.0.0',
      complexity: 'O(1)',
      summary:
        'Blocks until the asynchronous replication of all preceding write commands sent by the connection is completed.',
      wholeLog: true,
      handler: wait,
    },
  ],
};
