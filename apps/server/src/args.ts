import { StrataError } from '@strata/io';
import { findSetting } from './config.js';
import { isDirectiveName } from './directives.js';
import type { ServerErrorCode } from './errors.js';

/** A directive given on the command line: `--bind 127.0.0.1 ::1`. */
export interface Flag {
  /** The directive, lowercase, without the dashes. */
  readonly name: string;
  /** As typed, for error messages: `--port`. */
  readonly raw: string;
  readonly values: readonly string[];
}

export type Invocation =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | {
      readonly kind: 'run';
      /** The config file, the first argument (`strata-server ./redis.conf --port 7000`). */
      readonly configFile: string | null;
      /** In command-line order; read after the config file, so they win. */
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
 * Parses strata-server's arguments (without `node` and the script) as
 * redis-server does: `[config-file] [--directive value... ...]`, where a
 * directive is any config file directive and takes every argument up to
 * the next `--` (`--save 3600 1 300 100`, `--bind 127.0.0.1 -::1`,
 * `--save` alone for none); `--name=value` gives one value that may start
 * with `--`. `--help`/`-h` and `--version`/`-v` win over everything else.
 * Values are checked later, with the config file's.
 */
export function parseCommandLine(argv: readonly string[]): Invocation {
  if (argv.some((a) => a === '--help' || a === '-h')) return { kind: 'help' };
  if (argv.some((a) => a === '--version' || a === '-v')) return { kind: 'version' };

  let i = 0;
  let configFile: string | null = null;
  if (argv[0] !== undefined && !argv[0].startsWith('-')) configFile = argv[i++]!;
  const flags: Flag[] = [];
  while (i < argv.length) {
    const arg = argv[i++]!;
    if (!arg.startsWith('--')) {
      throw new ArgumentError(
        arg,
        configFile === null
          ? arg.startsWith('-')
            ? 'unknown option (see strata-server --help)'
            : 'the config file comes first (strata-server <config-file> [options])'
          : `one config file at most (already given: '${configFile}')`,
      );
    }
    const eq = arg.indexOf('=');
    const raw = eq === -1 ? arg : arg.slice(0, eq);
    const name = raw.slice(2).toLowerCase();
    if (name === '' || !isDirectiveName(name)) {
      throw new ArgumentError(raw, 'unknown option (see strata-server --help)');
    }
    const values: string[] = [];
    if (eq !== -1) values.push(arg.slice(eq + 1));
    else while (i < argv.length && !argv[i]!.startsWith('--')) values.push(argv[i++]!);
    // redis-server's special case: `--save` with nothing after it is `save ""`.
    if (name === 'save' && values.length === 0) values.push('');
    const setting = findSetting(name);
    if (values.length === 0 && setting !== undefined && setting.name !== 'bind') {
      const usage = setting.arg === '' ? '' : ` (--${setting.name} ${setting.arg})`;
      throw new ArgumentError(raw, `a value is required${usage}`);
    }
    flags.push({ name, raw, values });
  }
  return { kind: 'run', configFile, flags };
}
