// Public API of @strata/resp: the command table, the command families and the server (the RESP codec is @strata/protocol).

export {
  type ConfiguredUser,
  checkUserDirective,
  commandDefinitions,
  createCommandTable,
  type FunctionStore,
  fileFunctionStore,
  formatNotifyFlags,
  parseNotifyFlags,
  type ShutdownHook,
  type ShutdownMode,
  shutdownCommand,
  USERS_AND_ACLFILE,
  type UserDirectiveCheck,
} from './commands/index.js';
export type { AppParameter } from './commands/server/app-parameter.js';
export { PARAMETER_NAMES, type ParameterSpec } from './commands/server/config-parameters.js';
export { type ConfigRewriteHook, rewriteConfigText } from './commands/server/config-rewrite.js';
export { checkValue } from './commands/server/config-validate.js';
export {
  type BlockGcResult,
  type BlockGcStats,
  blockGcStats,
  collectOrphanBlocks,
} from './commands/streams/stream-block-gc.js';
export {
  aofWriteErrorMessage,
  BGSAVE_ERROR_MESSAGE,
  CommandError,
  type CommandErrorCode,
  notPersistedMessage,
  PROTECTED_MODE_REPLY,
  printableKey,
  ReplayError,
  storeWriteErrorMessage,
  toCommandError,
} from './errors.js';
export { RdbImportError, type RdbImportErrorCode } from './import/import-error.js';
export {
  importRdb,
  type RdbImportOptions,
  type RdbImportProgress,
  type RdbImportSummary,
} from './import/rdb-import.js';
export { describeSize, formatSize, parseSize } from './memory-size.js';
export { Client, type MultiState, type QueuedCommand } from './server/client.js';
export type { CommandLog, PropagationRule } from './server/command-log.js';
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
} from './server/command-table.js';
export {
  DatabaseDirectories,
  type DatabaseProvider,
  Keyspace,
  type StoreDatabasesOptions,
  storeDatabases,
} from './server/keyspace.js';
export { LocalClient } from './server/local-client.js';
export {
  type InfoSectionProvider,
  RespServer,
  type RespServerAddress,
  type RespServerOptions,
} from './server/resp-server.js';
export {
  DEFAULT_OUTPUT_LIMITS,
  type OutputLimit,
  type OutputLimits,
  type ServerLog,
} from './server/server-state.js';
