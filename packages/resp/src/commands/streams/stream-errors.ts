import { CommandError } from '../../errors.js';

/** The stream commands' own errors, in Redis 7.0's words. */

export function streamError(message: string): CommandError {
  return new CommandError('ERR_STREAM', `ERR ${message}`);
}

export function noGroupError(message: string): CommandError {
  return new CommandError('ERR_NOGROUP', `NOGROUP ${message}`, true);
}

/** NOGROUP of XPENDING / XCLAIM / XAUTOCLAIM / XREADGROUP-less lookups. */
export function noKeyOrGroupError(key: Buffer, group: Buffer): CommandError {
  return noGroupError(
    `No such key '${key.toString('latin1')}' or consumer group '${group.toString('latin1')}'`,
  );
}

/** NOGROUP of XGROUP / XINFO CONSUMERS: the key exists, the group does not. */
export function noSuchGroupError(key: Buffer, group: Buffer): CommandError {
  return noGroupError(
    `No such consumer group '${group.toString('latin1')}' for key name '${key.toString('latin1')}'`,
  );
}

export const busyGroupError = () =>
  new CommandError('ERR_BUSYGROUP', 'BUSYGROUP Consumer Group name already exists');

export const noSuchKeyError = () => new CommandError('ERR_NO_SUCH_KEY', 'ERR no such key');

/** addReplySubcommandSyntaxError: the subcommand as typed, and its container's HELP. */
export function subcommandSyntaxError(sub: Buffer, container: 'XGROUP' | 'XINFO'): CommandError {
  return new CommandError(
    'ERR_SYNTAX',
    `ERR unknown subcommand or wrong number of arguments for '${sub.toString('latin1')}'. Try ${container} HELP.`,
    true,
  );
}
