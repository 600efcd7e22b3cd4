// Public API of @strata/resp: the command table, the command families and the server (the RESP codec is @strata/protocol).
export { Client, type MultiState, type QueuedCommand } from './client.js';
export {
  type CommandLog,
  PROPAGATION,
  type PropagationRule,
  propagationOf,
} from './command-log.js';
export {
  ACL_CATEGORIES,
  type AclCategory,
  type CommandDefinition,
  CommandFlag,
  type CommandFlagName,
  type CommandHandler,
  type CommandResult,
  CommandSpec,
  CommandTable,
} from './command-table.js';
export {
  commandDefinitions,
  createCommandTable,
  type ShutdownHook,
  type ShutdownMode,
  shutdownCommand,
} from './commands/index.js';
export {
  aofWriteErrorMessage,
  CommandError,
  type CommandErrorCode,
  PROTECTED_MODE_REPLY,
  ReplayError,
  storeWriteErrorMessage,
  toCommandError,
} from './errors.js';
export {
  DatabaseDirectories,
  type DatabaseProvider,
  Keyspace,
  type StoreDatabasesOptions,
  storeDatabases,
} from './keyspace.js';
export {
  type InfoSectionProvider,
  RespServer,
  type RespServerAddress,
  type RespServerOptions,
} from './resp-server.js';
