/**
 * Codes of strata-server's own errors, all at start-up (what a command
 * answers is resp's CommandErrorCode):
 * - ERR_ARGUMENT: a command-line mistake (ArgumentError)
 * - ERR_CONFIG_VALUE: a value a setting refuses (ConfigError)
 * - ERR_CONFIG_FILE: a config file line that cannot be used (ConfigFileError)
 * - ERR_CONFIG_READ: a config file, or one it includes, that cannot be read (ConfigReadError)
 * - ERR_FATAL_CONFIG: a configuration the server cannot start with (FatalConfigError)
 * - ERR_LISTEN: an address or port the server cannot listen on (ListenError)
 * - ERR_IMPORT_REFUSED: --import-rdb into a directory that cannot take it (ImportRefused)
 *
 * Another live server on the same `--dir` is io's DirLockedError (ERR_LOCKED);
 * a database directory with a log but without the checkpoint the AOF
 * replays onto is @strata/store's UnaccountedDataError (ERR_DATA_UNACCOUNTED).
 */
export type ServerErrorCode =
  | 'ERR_ARGUMENT'
  | 'ERR_CONFIG_VALUE'
  | 'ERR_CONFIG_FILE'
  | 'ERR_CONFIG_READ'
  | 'ERR_FATAL_CONFIG'
  | 'ERR_LISTEN'
  | 'ERR_IMPORT_REFUSED';
