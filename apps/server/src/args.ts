import { parseArgs } from 'node:util';
import { StrataError } from '@strata/io';
import { findSetting, SETTINGS } from './config.js';
import type { ServerErrorCode } from './errors.js';

type OptionSpec = { type: 'string' } | { type: 'boolean'; short: string };

/** Every setting (and alias) takes a value; --help and --version do not. */
const OPTIONS: Record<string, OptionSpec> = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
};
for (const s of SETTINGS) {
  for (const name of [s.name, ...s.aliases]) OPTIONS[name] = { type: 'string' };
}

/** A setting given on the command line. */
export interface Flag {
  readonly name: string;
  /** As typed, for error messages: `--port`. */
  readonly raw: string;
  readonly value: string;
}

export type Invocation =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | {
      readonly kind: 'run';
      /** The config file, a positional argument (`strata-server ./strata.conf`). */
      readonly configFile: string | null;
      /** In command-line order; they override the config file. */
      readonly flags: readonly Flag[];
    };

/** A command-line mistake: `arg` is what was typed, `reason` what is wrong with it. */
export class ArgumentError extends StrataError<ServerErrorCode> {
  override name = 'ArgumentError';
  constructor(
    readonly arg: string,
    readonly reason: string,
  ) {
    super('ERR_ARGUMENT', `Invalid argument '${arg}': ${reason}`);
  }
}

/**
 * Parses strata-server's arguments (without `node` and the script):
 * `[config-file] [--setting value | --setting=value ...]`, `--help`,
 * `--version`. Values are checked later, with the config file's.
 */
export function parseCommandLine(argv: readonly string[]): Invocation {
  // Not strict: unknown options and missing values get this tool's messages.
  const { tokens } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help')) return { kind: 'help' };
  if (tokens.some((t) => t.kind === 'option' && t.name === 'version')) return { kind: 'version' };

  const flags: Flag[] = [];
  const positionals: string[] = [];
  for (const t of tokens) {
    if (t.kind === 'positional') {
      positionals.push(t.value);
      continue;
    }
    if (t.kind === 'option-terminator') continue;
    const known = t.rawName === `--${t.name}` && OPTIONS[t.name]?.type === 'string';
    const setting = known ? findSetting(t.name) : undefined;
    if (setting === undefined) {
      throw new ArgumentError(t.rawName, 'unknown option (see strata-server --help)');
    }
    // parseArgs takes the next argument as the value whatever it looks like
    // (so `--port -1` gets a range error); `--port --bind x` forgot one.
    const value = t.value;
    if (value === undefined || (!t.inlineValue && value.startsWith('--'))) {
      throw new ArgumentError(t.rawName, `a value is required (--${setting.name} ${setting.arg})`);
    }
    flags.push({ name: setting.name, raw: t.rawName, value });
  }
  if (positionals.length > 1) {
    throw new ArgumentError(
      positionals[1]!,
      `one config file at most (already given: '${positionals[0]}')`,
    );
  }
  return { kind: 'run', configFile: positionals[0] ?? null, flags };
}
