/**
 * Command errors: one class, a stable `code` per condition, and the exact
 * reply Redis 7 gives for it (clients parse some of them: `NOAUTH`,
 * `WRONGTYPE`, `NOPROTO`, `ERR unknown command`...). Handlers throw these;
 * the dispatcher turns them into error replies, so a handler never builds an
 * error string by hand and the wording lives in one place.
 */

// StrataError through hlog's re-export: resp has no @strata/io dependency of its own.
import { CorruptRecordError, type HlogErrorCode } from '@strata/hlog';
import { isStrataError, StrataError } from '@strata/io';

export type CommandErrorCode =
  | 'ERR_UNKNOWN_COMMAND'
  | 'ERR_UNKNOWN_SUBCOMMAND'
  | 'ERR_WRONG_ARITY'
  | 'ERR_NOAUTH'
  | 'ERR_WRONGPASS'
  | 'ERR_NO_PASSWORD'
  | 'ERR_NOPROTO'
  | 'ERR_SYNTAX'
  | 'ERR_NOT_INTEGER'
  | 'ERR_NOT_FLOAT'
  | 'ERR_NAN_OR_INFINITY'
  | 'ERR_OVERFLOW'
  | 'ERR_INVALID_EXPIRE'
  | 'ERR_DB_INDEX'
  | 'ERR_OFFSET'
  | 'ERR_TOO_LARGE'
  | 'ERR_WRONGTYPE'
  | 'ERR_MAX_CLIENTS'
  | 'ERR_NO_SUCH_CLIENT'
  | 'ERR_MULTI_NESTED'
  | 'ERR_EXEC_WITHOUT_MULTI'
  | 'ERR_DISCARD_WITHOUT_MULTI'
  | 'ERR_WATCH_IN_MULTI'
  | 'ERR_SUBSCRIBED_CONTEXT'
  | 'ERR_EXECABORT'
  | 'ERR_UNSUPPORTED'
  | 'ERR_KEY_TOO_LONG'
  /** A key with the prefix of strata's own records (hlog's INTERNAL_KEY_PREFIX). */
  | 'ERR_RESERVED_KEY'
  | 'ERR_INVALID_CURSOR'
  | 'ERR_STORE'
  /** A record of the key read from disk failed verification (hlog's ERR_CORRUPT_RECORD): never served. */
  | 'ERR_CORRUPT_RECORD'
  | 'ERR_MISCONF'
  /**
   * A write that ran (it is applied in memory) whose append to the AOF failed
   * (appendfsync always): the reply says so instead of OK; see notPersistedMessage.
   */
  | 'ERR_NOT_PERSISTED'
  /** CONFIG REWRITE with no config file, or one that could not be written. */
  | 'ERR_CONFIG_REWRITE'
  /** BGREWRITEAOF while a rewrite runs (an app's command: strata-server's aof-rewrite.ts). */
  | 'ERR_REWRITE_IN_PROGRESS'
  /** A value outside what the command accepts (counts, indexes, timeouts). */
  | 'ERR_OUT_OF_RANGE'
  | 'ERR_NO_SUCH_KEY'
  /** DEBUG LISTPACK/QUICKLIST of a value in another encoding. */
  | 'ERR_WRONG_ENCODING'
  /** DEBUG RELOAD could not save (Redis's bare `-ERR`) or load the databases. */
  | 'ERR_RELOAD'
  | 'ERR_CACHE_CONTENDED'
  /** A malformed stream ID, or one a stream command may not take where it was given. */
  | 'ERR_STREAM_ID'
  /** A stream rule other than ID syntax (IDs in order, counters in range). */
  | 'ERR_STREAM'
  | 'ERR_NOGROUP'
  | 'ERR_BUSYGROUP'
  /** A blocked client woken without data (CLIENT UNBLOCK ERROR, its stream deleted). */
  | 'ERR_UNBLOCKED'
  /** Scripting: no script by that SHA1, a script holds the server, none to kill, one that wrote. */
  | 'ERR_NOSCRIPT'
  | 'ERR_BUSY'
  | 'ERR_NOTBUSY'
  | 'ERR_UNKILLABLE'
  /** A script failed to compile or to run (its message is Redis's). */
  | 'ERR_SCRIPT'
  /** A script grew the heap past what scripts may use (RespServerOptions.scriptMemory). */
  | 'ERR_OOM'
  /** A client in MONITOR mode ran a command that reads or writes keys (Redis's replica rule). */
  | 'ERR_REPLICA_KEYSPACE'
  /** MONITOR inside a transaction (Redis: not for a client that must get a reply per command). */
  | 'ERR_DENY_BLOCKING'
  /** LATENCY GRAPH of an event with no samples. */
  | 'ERR_NO_LATENCY_SAMPLES'
  /** The client's ACL user may not run the command, or touch its keys or channels. */
  | 'ERR_NOPERM'
  /** An ACL command's own error (a rule that does not parse, an unknown user or category). */
  | 'ERR_ACL'
  /** RESTORE onto an existing key without REPLACE (Redis's BUSYKEY). */
  | 'ERR_BUSYKEY'
  /** A DUMP payload that fails its version or checksum check, or does not decode. */
  | 'ERR_DUMP_PAYLOAD'
  /** MIGRATE could not connect to, write to or read from its target in time (Redis's IOERR). */
  | 'ERR_IOERR'
  /** MIGRATE's target answered an error (quoted in the reply). */
  | 'ERR_TARGET'
  /** A hash field-expiry command's FIELDS block: missing, misplaced, or a count that does not fit. */
  | 'ERR_FIELDS';

/** An error reply. `message` is the whole reply after the `-`, code word first. */
export class CommandError extends StrataError<CommandErrorCode> {
  /**
   * The reply bytes when they quote client bytes (latin1 in `message`, so
   * they are sent back exactly as received), else undefined: `message` is ASCII.
   */
  readonly bytes: Buffer | undefined;

  constructor(code: CommandErrorCode, message: string, latin1 = false) {
    super(code, message);
    this.name = 'CommandError';
    this.bytes = latin1 ? Buffer.from(message, 'latin1') : undefined;
  }
}

// Fixed replies are built once: throwing them costs no formatting.
const fixed = (code: CommandErrorCode, message: string) => () => new CommandError(code, message);

export const syntaxError = fixed('ERR_SYNTAX', 'ERR syntax error');
/** The keys of one command never stayed in the collection cache together (other clients' loads kept evicting them). */
export const cacheContendedError = fixed(
  'ERR_CACHE_CONTENDED',
  'ERR the keys of this command could not be held in memory together; try again',
);
export const notIntegerError = fixed(
  'ERR_NOT_INTEGER',
  'ERR value is not an integer or out of range',
);
export const notFloatError = fixed('ERR_NOT_FLOAT', 'ERR value is not a valid float');
export const nanOrInfinityError = fixed(
  'ERR_NAN_OR_INFINITY',
  'ERR increment would produce NaN or Infinity',
);
export const overflowError = fixed('ERR_OVERFLOW', 'ERR increment or decrement would overflow');
export const noAuthError = fixed('ERR_NOAUTH', 'NOAUTH Authentication required.');
export const wrongPassError = fixed(
  'ERR_WRONGPASS',
  'WRONGPASS invalid username-password pair or user is disabled.',
);
export const noPasswordError = fixed(
  'ERR_NO_PASSWORD',
  'ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?',
);
export const noProtoError = fixed('ERR_NOPROTO', 'NOPROTO unsupported protocol version');
export const invalidCursorError = fixed('ERR_INVALID_CURSOR', 'ERR invalid cursor');
export const dbIndexError = fixed('ERR_DB_INDEX', 'ERR DB index is out of range');
export const offsetError = fixed('ERR_OFFSET', 'ERR offset is out of range');
export const tooLargeError = fixed(
  'ERR_TOO_LARGE',
  'ERR string exceeds maximum allowed size (proto-max-bulk-len)',
);
export const wrongTypeError = fixed(
  'ERR_WRONGTYPE',
  'WRONGTYPE Operation against a key holding the wrong kind of value',
);
export const maxClientsError = fixed('ERR_MAX_CLIENTS', 'ERR max number of clients reached');
export const noSuchClientError = fixed('ERR_NO_SUCH_CLIENT', 'ERR No such client');
export const multiNestedError = fixed('ERR_MULTI_NESTED', 'ERR MULTI calls can not be nested');
export const execWithoutMultiError = fixed('ERR_EXEC_WITHOUT_MULTI', 'ERR EXEC without MULTI');
export const discardWithoutMultiError = fixed(
  'ERR_DISCARD_WITHOUT_MULTI',
  'ERR DISCARD without MULTI',
);
export const watchInMultiError = fixed(
  'ERR_WATCH_IN_MULTI',
  'ERR WATCH inside MULTI is not allowed',
);
/** A RESP2 client in the pub/sub context ran a command other than (P|S)(UN)SUBSCRIBE, PING, QUIT, RESET. */
export function subscribedContextError(fullName: string): CommandError {
  return new CommandError(
    'ERR_SUBSCRIBED_CONTEXT',
    `ERR Can't execute '${fullName}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context`,
  );
}

/** Redis's execCommandAbort: EXEC refused as a whole (MISCONF...). */
export function execAbortBecauseError(reason: string): CommandError {
  return new CommandError('ERR_EXECABORT', `EXECABORT Transaction discarded because of: ${reason}`);
}

/** Writes refused while the AOF cannot be written (Redis's wording). */
export function aofWriteErrorMessage(reason: string): string {
  return `MISCONF Errors writing to the AOF file: ${oneLine(reason)}`;
}

/**
 * Writes refused after a failed checkpoint with stop-writes-on-bgsave-error
 * yes: Redis's reply for a failed RDB save, word for word (a checkpoint is
 * strata's save; INFO calls its status rdb_last_bgsave_status).
 */
export const BGSAVE_ERROR_MESSAGE =
  "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.";

/**
 * The reply of a write that ran but whose AOF append failed (appendfsync
 * always): no undo exists, so the reply says the change is applied and not
 * durable, and what a client does about it. Distinct from MISCONF, which
 * always means "refused before it ran": a client may retry a MISCONF write,
 * never a NOTPERSISTED one (an INCR would count twice).
 */
export function notPersistedMessage(reason: string): string {
  return (
    `NOTPERSISTED The command was applied in memory but could not be written to the AOF file: ${oneLine(reason)}. ` +
    'Do not retry it. It becomes durable once the disk can be written again ' +
    '(INFO persistence aof_last_write_status:ok) and may be lost if the server stops before.'
  );
}

/**
 * Writes refused while a database's log cannot be written. Redis's closest
 * wording is its RDB one; the log is our data file, so it names the log.
 */
export function storeWriteErrorMessage(db: number, reason: string): string {
  return (
    `MISCONF Strata is configured to persist data to its log, but it's currently unable to persist to disk (database ${db}: ${oneLine(reason)}). ` +
    'Commands that may modify the data set are disabled. Please check the logs for details about the error.'
  );
}

/** Redis's reply to a non-loopback client in protected mode (then it closes). */
export const PROTECTED_MODE_REPLY =
  "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n";

/** A command replayed through RespServer.execute answered an error (its text, without `-`). */
export class ReplayError extends StrataError<'ERR_REPLAY'> {
  constructor(message: string) {
    super('ERR_REPLAY', message);
    this.name = 'ReplayError';
  }
}

export const oneLine = (s: string): string => s.replace(/[\r\n]+/g, ' ');

export const execAbortError = fixed(
  'ERR_EXECABORT',
  'EXECABORT Transaction discarded because of previous errors.',
);

export function invalidExpireError(command: string): CommandError {
  return new CommandError('ERR_INVALID_EXPIRE', `ERR invalid expire time in '${command}' command`);
}

export function wrongArityError(fullName: string): CommandError {
  return new CommandError(
    'ERR_WRONG_ARITY',
    `ERR wrong number of arguments for '${fullName}' command`,
  );
}

/**
 * Redis's unknown-command reply: the name cut at 128 bytes, then the
 * arguments quoted and followed by a space each, while the list is shorter
 * than 128 bytes, the last one cut to what is left (sdscatprintf "'%.*s' ").
 * Bytes go through latin1 so nothing is re-encoded; the reply writer turns
 * \r and \n into spaces as addReplyErrorFormat does.
 */
export function unknownCommandError(argv: readonly Buffer[]): CommandError {
  let args = '';
  for (let i = 1; i < argv.length && args.length < 128; i++) {
    args += `'${cString(argv[i]!, 128 - args.length)}' `;
  }
  return new CommandError(
    'ERR_UNKNOWN_COMMAND',
    `ERR unknown command '${cString(argv[0]!, 128)}', with args beginning with: ${args}`,
    true,
  );
}

export function unknownSubcommandError(sub: Buffer, container: string): CommandError {
  return new CommandError(
    'ERR_UNKNOWN_SUBCOMMAND',
    `ERR unknown subcommand '${cString(sub, 128)}'. Try ${container.toUpperCase()} HELP.`,
    true,
  );
}

/** An argument as C's `%.*s` prints it: up to `max` bytes, stopping at a 0 byte. */
export function cString(bytes: Buffer, max: number): string {
  let end = Math.min(bytes.length, max);
  const zero = bytes.indexOf(0);
  if (zero !== -1 && zero < end) end = zero;
  return bytes.toString('latin1', 0, end);
}

/**
 * A record of the key on disk failed verification: one line naming the key
 * (bytes outside printable ASCII escaped, as `\xNN`; at most 128 of them),
 * where it is in the log and what is wrong. The value is never served; DEL
 * or an overwrite of the key works.
 */
export function corruptRecordError(e: CorruptRecordError): CommandError {
  return new CommandError(
    'ERR_CORRUPT_RECORD',
    `ERR corrupt record for key '${printableKey(e.key, 128)}' at log address ${e.recordAddress}: ${e.damage}`,
  );
}

/**
 * `key`'s first `max` bytes for a one-line message (an error reply, a log
 * line): printable ASCII as it is, the rest (quote and backslash too) as
 * `\xNN`, then `...` when it was longer.
 */
export function printableKey(key: Buffer, max: number): string {
  let out = '';
  const n = Math.min(key.length, max);
  for (let i = 0; i < n; i++) {
    const b = key[i]!;
    out +=
      b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c
        ? String.fromCharCode(b)
        : `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return key.length > max ? `${out}...` : out;
}

/**
 * Any error a handler threw, as an error reply: CommandErrors as they are,
 * the store's coded errors mapped by code (never by message) to what Redis
 * says for the same condition, anything else as `ERR <message>`.
 */
export function toCommandError(e: unknown): CommandError {
  if (e instanceof CommandError) return e;
  if (isStrataError(e)) {
    // `satisfies` ties each case to hlog's union, so a renamed code fails to compile.
    switch (e.code) {
      case 'ERR_NOT_INTEGER' satisfies HlogErrorCode:
        return notIntegerError();
      case 'ERR_INCR_OVERFLOW' satisfies HlogErrorCode:
        return overflowError();
      case 'ERR_VALUE_TOO_LARGE' satisfies HlogErrorCode:
        return tooLargeError();
      case 'ERR_CORRUPT_RECORD' satisfies HlogErrorCode:
        if (e instanceof CorruptRecordError) return corruptRecordError(e);
        break;
    }
  }
  const message = e instanceof Error ? e.message : String(e);
  return new CommandError('ERR_STORE', `ERR ${oneLine(message)}`);
}
