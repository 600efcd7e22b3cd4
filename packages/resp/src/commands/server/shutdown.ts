import type { Server, Socket } from 'node:net';
import { eqi } from '../../args.js';
import { CommandError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { NO_KEYS } from '../shared/key-positions.js';

/** SHUTDOWN's save mode: `default` when neither SAVE nor NOSAVE was given. */
export type ShutdownMode = 'save' | 'nosave' | 'default';

/**
 * What SHUTDOWN does once the databases are saved (SAVE) and the calling
 * connection is closed: an app stops itself (checkpoint, close, exit).
 * Its errors are the app's to handle; nobody waits for it.
 */
export type ShutdownHook = (mode: ShutdownMode) => void | Promise<void>;

/**
 * A bare server's shutdown: stop accepting connections, disconnect every
 * client, close the databases (each store checkpoints as its options say).
 */
async function closeBare(c: Client): Promise<void> {
  const listener = (c.socket as Socket & { server?: Server }).server;
  listener?.close();
  for (const other of c.server.clients.values()) if (other !== c) other.kill();
  await c.server.keyspace.closeAll();
}

function parseMode(argv: Buffer[]): ShutdownMode {
  let save = false;
  let nosave = false;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (eqi(a, 'save')) save = true;
    else if (eqi(a, 'nosave')) nosave = true;
    else throw syntaxError();
  }
  if (save && nosave) throw syntaxError();
  return save ? 'save' : nosave ? 'nosave' : 'default';
}

/**
 * SHUTDOWN [NOSAVE|SAVE]: with SAVE, every open database is checkpointed
 * first (a failure is Redis's `ERR Errors trying to SHUTDOWN. Check logs.`
 * and the server goes on); then the connection closes without a reply, as
 * Redis's, and `onShutdown` runs (default: the server closes). No save
 * points are configured (`save ""`), so the default mode does not save.
 */
export function shutdownCommand(onShutdown?: ShutdownHook): CommandDefinition {
  return {
    name: 'shutdown',
    arity: -1,
    flags: ['admin', 'noscript', 'loading', 'stale', 'no_multi', 'allow_busy'],
    ...NO_KEYS,
    acl: [],
    group: 'server',
    since: '1.0.0',
    complexity:
      'O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)',
    summary: 'Synchronously saves the database(s) to disk and shuts down the Redis server.',
    handler(c, argv): CommandResult {
      const mode = parseMode(argv);
      const stop = () => {
        // No reply: replies before it are sent, then the connection ends.
        c.closeAfterReply = true;
        const run = async () => {
          if (onShutdown === undefined) await closeBare(c);
          else await onShutdown(mode);
        };
        void run().catch(() => undefined);
      };
      if (mode !== 'save' || !c.server.keyspace.canSave) {
        stop();
        return undefined;
      }
      return c.server.keyspace.saveAll().then(
        () => {
          c.server.lastSave = Math.floor(Date.now() / 1000);
          stop();
        },
        () => {
          throw new CommandError('ERR_STORE', 'ERR Errors trying to SHUTDOWN. Check logs.');
        },
      );
    },
  };
}
