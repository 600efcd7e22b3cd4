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
  const n = readNumkeys(argv[2]!);
  if (!Number.isSafeInteger(n)) throw new CommandError('ERR_NOT_INTEGER', notInteger);
  if (n < 0) throw new CommandError('ERR_SYNTAX', "ERR Number of keys can't be negative");
  if (n > argv.length - 3) {
    throw new CommandError('ERR_SYNTAX', "ERR Number of keys can't be greater than number of args");
  }
  return { keys: argv.slice(3, 3 + n), args: argv.slice(3 + n) };
}

/** `b` as an integer when it is one written plainly (`/^-?(0|[1-9][0-9]*)$/`), else NaN; no string made. */
function readNumkeys(b: Buffer): number {
  const len = b.length;
  let i = b[0] === 0x2d ? 1 : 0;
  if (i === len || (b[i] === 0x30 && len - i > 1)) return Number.NaN;
  // Past 15 digits the sum is no longer exact: such a count is refused either way, as Number() reads it.
  if (len - i > 15)
    return /^-?[1-9][0-9]*$/.test(b.toString('latin1')) ? Number(b.toString('latin1')) : Number.NaN;
  let n = 0;
  for (; i < len; i++) {
    const d = b[i]! - 0x30;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
  }
  return b[0] === 0x2d ? -n : n;
}
