/**
 * Codes of strata-server's own errors, all at start-up (what a command
 * answers is resp's CommandErrorCode):
 * - ERR_ARGUMENT: a command-line mistake (ArgumentError)
 * - ERR_CONFIG_VALUE: a value a setting refuses (ConfigError)
 * - ERR_CONFIG_FILE: a config file line that cannot be used (ConfigFileError)
 * - ERR_FATAL_CONFIG: a configuration the server cannot start with (FatalConfigError)
 *
 * Another live server on the same `--dir` is io's DirLockedError (ERR_LOCKED).
 */
export type ServerErrorCode =
  | 'ERR_ARGUMENT'
  | 'ERR_CONFIG_VALUE'
  | 'ERR_CONFIG_FILE'
  | 'ERR_FATAL_CONFIG';
