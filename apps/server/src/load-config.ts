import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { StrataError } from '@strata/io';
import { ArgumentError, type Flag } from './args.js';
import {
  ConfigError,
  DEFAULT_CONFIG,
  type EffectiveConfig,
  finalizeConfig,
  type ServerConfig,
} from './config.js';
import { applyConfigText, applySetting, ConfigFileError } from './config-file.js';
import type { ServerErrorCode } from './errors.js';
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
}

export interface ConfigSources {
  readonly configFile: string | null;
  readonly flags: readonly Flag[];
}

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
 * Defaults, then the config file, then the flags (a flag wins over the
 * file, as in Redis), then the checks across settings. Throws
 * FatalConfigError with the text to print.
 */
export async function loadConfig(
  sources: ConfigSources,
  read: (path: string) => Promise<string> = (p) => readFile(p, 'utf8'),
): Promise<LoadedConfig> {
  const config: ServerConfig = { ...DEFAULT_CONFIG };
  let configFile: string | null = null;
  if (sources.configFile !== null) {
    configFile = resolve(sources.configFile);
    let text: string;
    try {
      text = await read(configFile);
    } catch (e) {
      const reason =
        (e as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'No such file or directory'
          : (e as Error).message;
      throw new FatalConfigError(
        `Fatal error, can't open config file '${sources.configFile}': ${reason}`,
      );
    }
    try {
      applyConfigText(config, text);
    } catch (e) {
      if (e instanceof ConfigFileError) throw new FatalConfigError(fileErrorText(e));
      throw e;
    }
  }
  for (const flag of sources.flags) {
    try {
      applySetting(config, flag.name, [flag.value]);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      const arg = `${flag.raw} ${flag.value}`;
      throw new FatalConfigError(flagErrorText(new ArgumentError(arg, e.message).message));
    }
  }
  try {
    return { ...finalizeConfig(config), configFile };
  } catch (e) {
    if (e instanceof ConfigError) throw new FatalConfigError(`${header('ERROR')}\n${e.message}`);
    throw e;
  }
}

/** The text for a command-line mistake found before any value was read. */
export function argumentErrorText(e: ArgumentError): string {
  return flagErrorText(e.message);
}
