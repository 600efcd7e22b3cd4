import { type CommandDefinition, CommandTable } from '../server/command-table.js';
import { bitCommands } from './bits/bits.js';
import { blockingCommands } from './blocking/blocking.js';
import { clientCommand } from './connection/client.js';
import { connectionCommands } from './connection/connection.js';
import { hashCommands } from './hashes/hashes.js';
import { keyCommands } from './keys/keys.js';
import { objectCommand } from './keys/object.js';
import { listCommands } from './lists/lists.js';
import { scanCommands } from './scan/scan.js';
import { commandCommand } from './server/command.js';
import { serverCommands } from './server/server.js';
import { type ShutdownHook, shutdownCommand } from './server/shutdown.js';
import { setCommands } from './sets/sets.js';
import { stringCommands } from './strings/strings.js';
import { transactionCommands } from './transactions/transactions.js';
import { zsetCommands } from './zsets/zsets.js';

export interface CommandSetOptions {
  /** Whether FLUSHDB / FLUSHALL exist (the databases can be flushed). */
  readonly flush?: boolean;
  /** Whether SAVE / BGSAVE / LASTSAVE exist (the databases can checkpoint). */
  readonly save?: boolean;
  /** What SHUTDOWN does after closing its connection (default: the server closes). */
  readonly shutdown?: ShutdownHook;
}

/** Every command this server implements, by family. */
export function commandDefinitions(options: CommandSetOptions = {}): CommandDefinition[] {
  return [
    ...connectionCommands,
    clientCommand,
    commandCommand,
    ...serverCommands(options.flush ?? true, options.save ?? true),
    shutdownCommand(options.shutdown),
    ...stringCommands,
    ...bitCommands,
    ...keyCommands,
    ...hashCommands,
    ...setCommands,
    ...zsetCommands,
    ...listCommands,
    ...blockingCommands,
    objectCommand,
    ...scanCommands,
    ...transactionCommands,
  ];
}

/** The command table the server dispatches with. */
export function createCommandTable(options: CommandSetOptions = {}): CommandTable {
  return CommandTable.from(commandDefinitions(options));
}

export { type ShutdownHook, type ShutdownMode, shutdownCommand } from './server/shutdown.js';
