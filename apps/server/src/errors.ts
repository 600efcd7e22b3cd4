/**
 * Codes of strata-server's own errors, all at start-up (what a command
 * answers is resp's CommandErrorCode):
 * - ERR_ARGUMENT: a command-line mistake (ArgumentError)
 * - ERR_CONFIG_VALUE: a value a setting refuses (ConfigError)
 * - ERR_CONFIG_FILE: a config file line that cannot be used (ConfigFileError)
 * - ERR_FATAL_CONFIG: a configuration the server cannot start with (FatalConfigError)
 * - ERR_DIR_LOCKED: another live strata-server holds the directory (DirLockedError)
 */
export type ServerErrorCode =
  | 'ERR_ARGUMENT'
  | 'ERR_CONFIG_VALUE'
  | 'ERR_CONFIG_FILE'
  | 'ERR_FATAL_CONFIG'
  | 'ERR_DIR_LOCKED';
