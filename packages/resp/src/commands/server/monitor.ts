import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition } from '../../server/command-table.js';
import { NO_KEYS } from '../shared/key-positions.js';

/**
 * MONITOR, Redis's: the client is shown every command any client runs
 * once it ran (ServerState.monitors; the dispatcher writes the lines, see
 * monitor-feed.ts), and from then on may only receive: a command that
 * reads or writes keys is refused (`ERR Replica can't interact with the
 * keyspace`, Redis's rule for a replica, which a monitor is). A second
 * MONITOR answers nothing; RESET or a close ends it. Inside a transaction
 * (a client that must get one reply per command) it is refused.
 */
export const monitorCommand: CommandDefinition = {
  name: 'monitor',
  arity: 1,
  flags: ['admin', 'noscript', 'loading', 'stale'],
  ...NO_KEYS,
  acl: [],
  group: 'server',
  since: '1.0.0',
  complexity: 'O(1)',
  summary: 'Listens for all requests received by the server in real-time.',
  handler(c) {
    if (c.inExec) {
      throw new CommandError(
        'ERR_DENY_BLOCKING',
        "ERR MONITOR isn't allowed for DENY BLOCKING client",
      );
    }
    if (c.monitoring) return undefined;
    c.monitoring = true;
    c.server.monitors.push(c);
    c.reply.simple('OK');
    return undefined;
  },
};

/** RESET or a close: the client leaves MONITOR mode. */
export function stopMonitoring(c: Client): void {
  if (!c.monitoring) return;
  c.monitoring = false;
  const monitors = c.server.monitors;
  const i = monitors.indexOf(c);
  if (i >= 0) monitors.splice(i, 1);
}
