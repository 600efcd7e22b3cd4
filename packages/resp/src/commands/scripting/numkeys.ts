import { CommandError } from '../../errors.js';

/**
 * EVAL's and FCALL's `numkeys` (argument 2): the keys after it, then the
 * arguments, checked in Redis's order. Only the words for a numkeys that
 * is no integer differ: EVAL's is Redis's generic one, FCALL's its own.
 */
export function splitNumkeys(
  argv: readonly Buffer[],
  notInteger: string,
): { keys: Buffer[]; args: Buffer[] } {
  const text = argv[2]!.toString('latin1');
  const n = /^-?(0|[1-9][0-9]*)$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new CommandError('ERR_NOT_INTEGER', notInteger);
  if (n < 0) throw new CommandError('ERR_SYNTAX', "ERR Number of keys can't be negative");
  if (n > argv.length - 3) {
    throw new CommandError('ERR_SYNTAX', "ERR Number of keys can't be greater than number of args");
  }
  return { keys: argv.slice(3, 3 + n), args: argv.slice(3 + n) };
}
