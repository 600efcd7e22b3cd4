import { type CommandDefinition, CommandTable } from '../command-table.js';
import { bitCommands } from './bits.js';
import { blockingCommands } from './blocking.js';
import { clientCommand } from './client.js';
import { commandCommand } from './command.js';
import { connectionCommands } from './connection.js';
import { hashCommands } from './hashes.js';
import { keyCommands } from './keys.js';
import { listCommands } from './lists.js';
import { objectCommand } from './object.js';
import { scanCommands } from './scan.js';
import { serverCommands } from './server.js';
import { setCommands } from './sets.js';
import { type ShutdownHook, shutdownCommand } from './shutdown.js';
import { stringCommands } from './strings.js';
import { transactionCommands } from './transactions.js';
import { zsetCommands } from './zsets.js';

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

export { type ShutdownHook, type ShutdownMode, shutdownCommand } from './shutdown.js';
