import type { SessionCase } from './session-runner.js';

/**
 * WAIT on a server with no replicas, byte for byte as redis-server 7.0
 * answers (recorded in replication-session-expected.json): at once when no
 * replica is asked for or inside MULTI, after its timeout, or blocked until
 * CLIENT UNBLOCK, with the errors of its arguments.
 */
export const REPLICATION_SESSION_CASES: readonly SessionCase[] = [
  {
    name: 'WAIT: no replicas, its timeout, its errors, MULTI',
    steps: [
      [0, 'wait', '0', '0'],
      [0, 'wait', '1', '20'],
      [0, 'wait', '-1', '0'],
      [0, 'wait', 'abc', '0'],
      [0, 'wait', '9223372036854775808', '0'],
      [0, 'wait', '1', 'abc'],
      [0, 'wait', '1', '1.5'],
      [0, 'wait', '1', '-1'],
      [0, 'wait', '1'],
      [0, 'multi'],
      [0, 'wait', '1', '0'],
      [0, 'exec'],
    ],
  },
  {
    name: 'WAIT blocks with no timeout until CLIENT UNBLOCK (TIMEOUT and ERROR); RESP3 alike',
    resp3: [2],
    steps: [
      [0, 'wait', '1', '0'],
      [1, 'client', 'unblock', '$id:0'],
      [0, 'wait', '3', '0'],
      [1, 'client', 'unblock', '$id:0', 'error'],
      [2, 'wait', '1', '0'],
      [1, 'client', 'unblock', '$id:2'],
      [0, 'ping'],
    ],
  },
];
