import { eqi } from '../../args.js';
import { syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { keyspaceLines } from '../scan/scan.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { invalidateAll } from '../tracking/invalidation.js';
import { configCommand, readConfig } from './config.js';
import { infoSections, infoText } from './server-info.js';

/**
 * FLUSHDB/FLUSHALL's mode: ASYNC, SYNC, or lazyfree-lazy-user-flush's
 * when neither is given (Redis's getFlushCommandFlags). Lazy: the old
 * data is removed after the reply (Keyspace.flush).
 */
function flushLazily(c: Client, argv: Buffer[]): boolean {
  if (argv.length > 2 || (argv.length === 2 && !eqi(argv[1]!, 'async') && !eqi(argv[1]!, 'sync'))) {
    throw syntaxError();
  }
  if (argv.length === 2) return eqi(argv[1]!, 'async');
  return readConfig(c.server, 'lazyfree-lazy-user-flush') === 'yes';
}

/** FLUSHDB/FLUSHALL replace whole stores: no other command may be on them meanwhile. */
function flush(c: Client, dbs: number[], touch: number, lazy: boolean): CommandResult {
  const server = c.server;
  return server.runExclusive(c, async () => {
    for (const db of dbs) await server.keyspace.flush(db, lazy);
    server.touchAll(touch);
    c.reply.simple('OK');
    // Every tracking client drops its whole cache, as in Redis (FLUSHDB too).
    invalidateAll(server);
  });
}

/** Server commands; FLUSHDB/FLUSHALL and SAVE/BGSAVE only when the databases can do them. */
export function serverCommands(canFlush: boolean, canSave = true): CommandDefinition[] {
  const defs: CommandDefinition[] = [
    {
      name: 'info',
      arity: -1,
      flags: ['loading', 'stale'],
      ...NO_KEYS,
      acl: ['dangerous'],
      group: 'server',
      since: '1.0.0',
      complexity: 'O(1)',
      summary: 'Returns information and statistics about the server.',
      // The keyspace section reads every open database's log.
      wholeLog: true,
      handler(c, argv) {
        const asked = argv.slice(1).map((a) => a.toString('latin1'));
        if (!infoSections(asked).has('keyspace')) {
          c.reply.verbatim(infoText(c.server, asked));
          return undefined;
        }
        return keyspaceLines(c.server).then((lines) => {
          c.reply.verbatim(infoText(c.server, asked, lines));
        });
      },
    },
    {
      name: 'time',
      arity: 1,
      flags: ['loading', 'stale', 'fast'],
      ...NO_KEYS,
      acl: [],
      group: 'server',
      since: '2.6.0',
      complexity: 'O(1)',
      summary: 'Returns the server time.',
      handler(c) {
        // Microseconds from the monotonic high resolution clock, anchored on
        // the wall clock once, as gettimeofday() would give them.
        const us = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
        c.reply.array(2);
        c.reply.bulk((us / 1_000_000n).toString());
        c.reply.bulk((us % 1_000_000n).toString());
        return undefined;
      },
    },
  ];
  defs.push(configCommand);
  if (canSave) {
    defs.push(
      {
        name: 'save',
        arity: 1,
        flags: ['admin', 'noscript', 'no_multi'],
        ...NO_KEYS,
        acl: [],
        group: 'server',
        since: '1.0.0',
        complexity: 'O(N) where N is the total number of keys in all databases',
        summary: 'Synchronously saves the database(s) to disk.',
        handler(c) {
          return c.server.keyspace.saveAll().then(() => {
            c.server.lastSave = Math.floor(Date.now() / 1000);
            c.reply.simple('OK');
          });
        },
      },
      {
        name: 'bgsave',
        arity: -1,
        flags: ['admin', 'noscript'],
        ...NO_KEYS,
        acl: [],
        group: 'server',
        since: '1.0.0',
        complexity: 'O(1)',
        summary: 'Asynchronously saves the database(s) to disk.',
        handler(c, argv) {
          if (argv.length > 2 || (argv.length === 2 && !eqi(argv[1]!, 'schedule'))) {
            throw syntaxError();
          }
          const server = c.server;
          // A checkpoint runs beside the commands; the reply does not wait.
          server.keyspace.saveAll().then(
            () => {
              server.lastSave = Math.floor(Date.now() / 1000);
            },
            () => undefined,
          );
          c.reply.simple('Background saving started');
          return undefined;
        },
      },
      {
        name: 'lastsave',
        arity: 1,
        flags: ['loading', 'stale', 'fast'],
        ...NO_KEYS,
        acl: ['admin', 'dangerous'],
        group: 'server',
        since: '1.0.0',
        complexity: 'O(1)',
        summary: 'Returns the Unix timestamp of the last successful save to disk.',
        handler(c) {
          c.reply.integer(c.server.lastSave);
          return undefined;
        },
      },
    );
  }
  if (canFlush) {
    defs.push(
      {
        name: 'flushdb',
        arity: -1,
        flags: ['write'],
        ...NO_KEYS,
        acl: ['keyspace', 'dangerous'],
        group: 'server',
        since: '1.0.0',
        complexity: 'O(N) where N is the total number of keys in the selected database',
        summary: 'Removes all keys from the current database.',
        handler(c, argv) {
          return flush(c, [c.db], c.db, flushLazily(c, argv));
        },
      },
      {
        name: 'flushall',
        arity: -1,
        flags: ['write'],
        ...NO_KEYS,
        acl: ['keyspace', 'dangerous'],
        group: 'server',
        since: '1.0.0',
        complexity: 'O(N) where N is the total number of keys in all databases',
        summary: 'Removes all keys from all databases.',
        handler(c, argv) {
          const lazy = flushLazily(c, argv);
          const all = Array.from({ length: c.server.keyspace.count }, (_, i) => i);
          return flush(c, all, -1, lazy);
        },
      },
    );
  }
  return defs;
}
