import type { CommandFamily } from '../family.js';
import { commandCommand } from './command.js';
import { applyAccessPolicy } from './config.js';
import { latencyCommand } from './latency.js';
import { lolwutCommand } from './lolwut.js';
import { monitorCommand, stopMonitoring } from './monitor.js';
import { serverCommands } from './server.js';
import { type ShutdownHook, shutdownCommand } from './shutdown.js';
import { slowlogCommand } from './slowlog.js';

export interface ServerFamilyOptions {
  /** Whether FLUSHDB / FLUSHALL exist (the databases can be flushed). */
  readonly flush?: boolean;
  /** Whether SAVE / BGSAVE / LASTSAVE exist (the databases can checkpoint). */
  readonly save?: boolean;
  /** What SHUTDOWN does after closing its connection (default: the server closes). */
  readonly shutdown?: ShutdownHook;
}

/** The server: COMMAND, INFO, TIME, CONFIG, SAVE, FLUSHDB, FLUSHALL, SHUTDOWN, SLOWLOG, LATENCY, MONITOR... */
export function serverFamily(options: ServerFamilyOptions = {}): CommandFamily {
  return {
    name: 'server',
    commands: [
      commandCommand,
      ...serverCommands(options.flush ?? true, options.save ?? true),
      shutdownCommand(options.shutdown),
      slowlogCommand,
      latencyCommand,
      monitorCommand,
      lolwutCommand,
    ],
    hooks: {
      onClientReset: stopMonitoring,
      onClientClose: stopMonitoring,
      // An app's maxmemory-policy (configValues) is known by now.
      beforeListen: (s) => {
        applyAccessPolicy(s);
        return Promise.resolve();
      },
    },
  };
}

export { type ShutdownHook, type ShutdownMode, shutdownCommand } from './shutdown.js';
