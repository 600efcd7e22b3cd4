import { resolve } from 'node:path';
import { StrataError } from '@strata/io';
import { splitInlineArgs } from '@strata/protocol';
import { ConfigError } from './config.js';
import { applyDirective, type DirectiveState, type Include } from './directives.js';
import type { ServerErrorCode } from './errors.js';
import { expandGlob, hasWildcard } from './include-glob.js';
import { strerror } from './system-error.js';

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

/** A config file (the one given, or an include) that cannot be read. */
export class ConfigReadError extends StrataError<ServerErrorCode> {
  override name = 'ConfigReadError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super('ERR_CONFIG_READ', `Fatal error, can't open config file '${path}': ${reason}`);
  }
}

/** The file system the config files are read from (tests give their own). */
export interface ConfigFiles {
  read(path: string): Promise<string>;
  /** Names in a directory; rejects when it cannot be listed. */
  readdir(path: string): Promise<string[]>;
  exists(path: string): Promise<boolean>;
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

/**
 * Applies every directive of a config text in order (a later line wins).
 * `include` reads its file (relative to the working directory, as Redis)
 * into the same state where it stands; `reading` holds the files being
 * read, so a file that includes itself is an error instead of a loop.
 */
export async function applyConfigText(
  state: DirectiveState,
  text: string,
  files: ConfigFiles,
  reading: readonly string[] = [],
): Promise<void> {
  const include = includer(state, files, reading);
  for (const line of parseConfigText(text)) {
    try {
      await applyDirective(state, line.args[0]!, line.args.slice(1), include);
    } catch (e) {
      if (e instanceof ConfigError) {
        throw new ConfigFileError(line.lineNumber, line.text, e.message);
      }
      throw e;
    }
  }
}

/**
 * `include <path>`: the file, or with a wildcard every file that matches
 * (none: nothing, as Redis), read where the directive stands.
 */
export function includer(
  state: DirectiveState,
  files: ConfigFiles,
  reading: readonly string[] = [],
): Include {
  return async (path) => {
    const paths = hasWildcard(path) ? await expandGlob(path, files) : [path];
    for (const p of paths) {
      if (reading.includes(resolve(p))) {
        throw new ConfigError(`include cycle: '${p}' is being read already`);
      }
      await applyConfigFile(state, p, files, reading);
    }
  };
}

/** Reads `path` and applies it; ConfigReadError when it cannot be read. */
export async function applyConfigFile(
  state: DirectiveState,
  path: string,
  files: ConfigFiles,
  reading: readonly string[] = [],
): Promise<void> {
  let text: string;
  try {
    text = await files.read(path);
  } catch (e) {
    throw new ConfigReadError(path, strerror(e));
  }
  await applyConfigText(state, text, files, [...reading, resolve(path)]);
}
