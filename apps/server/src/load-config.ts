import { readdir, readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { StrataError } from '@strata/io';
import { ArgumentError, type Flag } from './args.js';
import { ConfigError, DEFAULT_CONFIG, type EffectiveConfig, finalizeConfig } from './config.js';
import {
  applyConfigFile,
  ConfigFileError,
  type ConfigFiles,
  ConfigReadError,
  includer,
} from './config-file.js';
import { applyDirective, type DirectiveState, directiveState } from './directives.js';
import type { ServerErrorCode } from './errors.js';
import { checkLogFile } from './log-file.js';
import { VERSION } from './version.js';

/** A configuration the server cannot start with; `message` is what to print (stderr, exit 1). */
export class FatalConfigError extends StrataError<ServerErrorCode> {
  override name = 'FatalConfigError';

  constructor(message: string) {
    super('ERR_FATAL_CONFIG', message);
  }
}

export interface LoadedConfig extends EffectiveConfig {
  /** The config file read, resolved, or null. */
  readonly configFile: string | null;
  /** The Redis parameters given (file, includes, flags), in order, as CONFIG GET prints them. */
  readonly parameters: DirectiveState['parameters'];
  /** The directives given that strata-server does not act on, for one warning. */
  readonly unused: readonly string[];
  /** The `user` lines given, checked, in order. */
  readonly users: DirectiveState['users'];
}

export interface ConfigSources {
  readonly configFile: string | null;
  readonly flags: readonly Flag[];
}

/** The real file system. */
export const nodeConfigFiles: ConfigFiles = {
  read: (path) => readFile(path, 'utf8'),
  readdir: (path) => readdir(path),
  exists: (path) =>
    stat(path).then(
      () => true,
      () => false,
    ),
};

const header = (what: string) => `*** FATAL CONFIG ${what} (Strata ${VERSION}) ***`;

/** Redis's report of a bad config file line. */
export function fileErrorText(e: ConfigFileError): string {
  return [
    header('FILE ERROR'),
    `Reading the configuration file, at line ${e.lineNumber}`,
    `>>> '${e.line}'`,
    e.reason,
  ].join('\n');
}

function flagErrorText(message: string): string {
  return [header('ERROR'), message, "See 'strata-server --help' for the options."].join('\n');
}

/**
 * Defaults, then the config file (and what it includes), then the flags
 * (a flag wins over the file, as in Redis, which reads them as lines after
 * the file's), then the checks across settings and the log file. Throws
 * FatalConfigError with the text to print.
 */
export async function loadConfig(
  sources: ConfigSources,
  files: ConfigFiles = nodeConfigFiles,
): Promise<LoadedConfig> {
  const state = directiveState({ ...DEFAULT_CONFIG });
  let configFile: string | null = null;
  try {
    if (sources.configFile !== null) {
      configFile = resolve(sources.configFile);
      await applyConfigFile(state, sources.configFile, files);
    }
  } catch (e) {
    if (e instanceof ConfigFileError) throw new FatalConfigError(fileErrorText(e));
    if (e instanceof ConfigReadError) throw new FatalConfigError(e.message);
    throw e;
  }
  for (const flag of sources.flags) {
    try {
      // `--include x` reads x as a config file line would.
      await applyDirective(state, flag.name, flag.values, includer(state, files));
    } catch (e) {
      if (e instanceof ConfigFileError) throw new FatalConfigError(fileErrorText(e));
      if (e instanceof ConfigReadError) throw new FatalConfigError(e.message);
      if (!(e instanceof ConfigError)) throw e;
      const arg = [flag.raw, ...flag.values].join(' ');
      throw new FatalConfigError(flagErrorText(new ArgumentError(arg, e.message).message));
    }
  }
  let effective: EffectiveConfig;
  try {
    effective = finalizeConfig(state.config);
  } catch (e) {
    if (e instanceof ConfigError) throw new FatalConfigError(`${header('ERROR')}\n${e.message}`);
    throw e;
  }
  // Redis opens the log file once while loading: it could not stop later.
  const logError = await checkLogFile(effective.config.logfile);
  if (logError !== null) {
    throw new FatalConfigError(`${header('FILE ERROR')}\nCan't open the log file: ${logError}`);
  }
  return {
    ...effective,
    configFile,
    parameters: state.parameters,
    unused: [...state.unused],
    users: state.users,
  };
}

/** The text for a command-line mistake found before any value was read. */
export function argumentErrorText(e: ArgumentError): string {
  return flagErrorText(e.message);
}
