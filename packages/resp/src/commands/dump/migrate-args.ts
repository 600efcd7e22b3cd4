import { eqi, parseInteger } from '../../args.js';
import { CommandError, syntaxError } from '../../errors.js';

/** MIGRATE's arguments, parsed as cluster.c's migrateCommand reads them. */
export interface MigrateArgs {
  readonly host: string;
  /** As given: the cached connection's name is `host:port` of the texts. */
  readonly port: string;
  readonly db: number;
  /** Milliseconds for each connect, write and read (<= 0 given: 1000). */
  readonly timeout: number;
  readonly copy: boolean;
  readonly replace: boolean;
  /** AUTH password, or AUTH2 username password. */
  readonly auth: { readonly username: Buffer | null; readonly password: Buffer } | null;
  /** Where the keys are in argv: the `key` argument, or everything after KEYS. */
  readonly firstKey: number;
  readonly keyCount: number;
}

/**
 * MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
 * [AUTH password | AUTH2 username password] [KEYS key...], checked in
 * Redis's order: the options (a syntax error, KEYS with a non-empty key),
 * then the timeout, then the database (both integers, nothing more).
 * `redact` hears of each credential as it is read (SLOWLOG and MONITOR
 * show it as `(redacted)`, as Redis's redactClientCommandArgument).
 */
export function parseMigrate(
  argv: readonly Buffer[],
  redact: (index: number) => void,
): MigrateArgs {
  let copy = false;
  let replace = false;
  let username: Buffer | null = null;
  let password: Buffer | null = null;
  let firstKey = 3;
  let keyCount = 1;
  for (let j = 6; j < argv.length; j++) {
    const a = argv[j]!;
    const more = argv.length - 1 - j;
    if (eqi(a, 'copy')) copy = true;
    else if (eqi(a, 'replace')) replace = true;
    else if (eqi(a, 'auth')) {
      if (more === 0) throw syntaxError();
      password = argv[++j]!;
      redact(j);
    } else if (eqi(a, 'auth2')) {
      if (more < 2) throw syntaxError();
      username = argv[++j]!;
      redact(j);
      password = argv[++j]!;
      redact(j);
    } else if (eqi(a, 'keys')) {
      if (argv[3]!.length !== 0) {
        throw new CommandError(
          'ERR_SYNTAX',
          'ERR When using MIGRATE KEYS option, the key argument must be set to the empty string',
        );
      }
      firstKey = j + 1;
      keyCount = argv.length - j - 1;
      break;
    } else throw syntaxError();
  }
  const timeout = parseInteger(argv[5]!);
  const db = parseInteger(argv[4]!);
  return {
    host: argv[1]!.toString('latin1'),
    port: argv[2]!.toString('latin1'),
    db,
    timeout: timeout <= 0 ? 1000 : timeout,
    copy,
    replace,
    auth: password === null ? null : { username, password },
    firstKey,
    keyCount,
  };
}

/** Arguments MIGRATE's options take, skipped when looking for KEYS (migrateGetKeys). */
const OPTION_ARGS: Readonly<Record<string, number>> = { copy: 0, replace: 0, auth: 1, auth2: 2 };

/**
 * MIGRATE's key positions as Redis 7.0's migrateGetKeys finds them: `key`,
 * or every argument after KEYS (option arguments skipped on the way); none
 * when KEYS comes with a non-empty `key` (COMMAND GETKEYS: invalid).
 */
export function migrateKeys(argv: readonly Uint8Array[]): number[] {
  let first = 3;
  let count = 1;
  for (let i = 6; i < argv.length; i++) {
    const a = argv[i]!;
    if (eqi(a, 'keys')) {
      if (argv[3]!.length > 0) return [];
      first = i + 1;
      count = argv.length - first;
      break;
    }
    for (const [option, skip] of Object.entries(OPTION_ARGS)) {
      if (eqi(a, option)) {
        i += skip;
        break;
      }
    }
  }
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(first + i);
  return out;
}
