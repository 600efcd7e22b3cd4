import { StrataError } from '@strata/io';
import { splitInlineArgs } from '@strata/protocol';
import { ConfigError, findSetting, type ServerConfig } from './config.js';
import type { ServerErrorCode } from './errors.js';

/** One directive of a config file. */
export interface ConfigLine {
  /** 1-based. */
  readonly lineNumber: number;
  /** The line as written, trimmed. */
  readonly text: string;
  /** Directive name, then its arguments, unquoted. */
  readonly args: readonly string[];
}

/** A config file line that cannot be used: where, and why. */
export class ConfigFileError extends StrataError<ServerErrorCode> {
  override name = 'ConfigFileError';
  constructor(
    readonly lineNumber: number,
    readonly line: string,
    readonly reason: string,
  ) {
    super('ERR_CONFIG_FILE', `line ${lineNumber}: ${reason}`);
  }
}

/**
 * Splits a redis.conf-style text into directives, as Redis's config loader
 * does: one directive per line, blank lines and lines starting with `#`
 * skipped, arguments split with sdssplitargs (so `"a b"`, `'x'` and `\x41`
 * escapes work as in Redis).
 */
export function parseConfigText(text: string): ConfigLine[] {
  const lines: ConfigLine[] = [];
  const raw = text.split('\n');
  for (let i = 0; i < raw.length; i++) {
    const line = raw[i]!.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
    if (line === '' || line.startsWith('#')) continue;
    const bytes = Buffer.from(line, 'utf8');
    const args = splitInlineArgs(bytes, 0, bytes.length, true);
    if (args === null) {
      throw new ConfigFileError(i + 1, line, 'Unbalanced quotes in configuration line');
    }
    if (args.length === 0) continue;
    lines.push({ lineNumber: i + 1, text: line, args: args.map((a) => a.toString('utf8')) });
  }
  return lines;
}

/** Applies a setting by name with its arguments; throws ConfigError. */
export function applySetting(config: ServerConfig, name: string, values: readonly string[]): void {
  const setting = findSetting(name);
  if (setting === undefined) throw new ConfigError('Bad directive or wrong number of arguments');
  if (values.length !== 1) {
    throw new ConfigError(
      setting.name === 'bind' && values.length > 1
        ? 'strata-server listens on one address: bind takes one argument'
        : `wrong number of arguments: ${setting.name} takes one`,
    );
  }
  setting.apply(config, values[0]!);
}

/** Applies every directive of a config file in order (a later line wins). */
export function applyConfigText(config: ServerConfig, text: string): void {
  for (const line of parseConfigText(text)) {
    try {
      applySetting(config, line.args[0]!, line.args.slice(1));
    } catch (e) {
      if (e instanceof ConfigError)
        throw new ConfigFileError(line.lineNumber, line.text, e.message);
      throw e;
    }
  }
}
