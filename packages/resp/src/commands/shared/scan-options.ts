import { eqi, parseInteger } from '../../args.js';
import { invalidCursorError, syntaxError } from '../../errors.js';

/**
 * The arguments every SCAN-family command shares (SCAN, HSCAN, SSCAN,
 * ZSCAN): the cursor, and the option words as Redis 7's scanGenericCommand
 * reads them, in one loop for all of them.
 */

const ULONG_MAX = (1n << 64n) - 1n;

/**
 * A cursor as Redis 7.0 reads it (strtoul, base 10): no leading space, no
 * trailing bytes, at most 2^64 - 1; a sign is allowed (`-1` wraps) and the
 * empty string is 0. Cursors are log addresses: one past 2^53 cannot be
 * ours, it is taken as past the tail (the iteration starts over).
 */
export function parseCursor(arg: Uint8Array): number {
  const m = /^([+-]?)([0-9]*)$/.exec(Buffer.from(arg).toString('latin1'));
  if (m === null || (m[1] !== '' && m[2] === '')) throw invalidCursorError();
  const digits = m[2]!;
  if (m[1] === '' && digits.length <= 15) return digits === '' ? 0 : Number(digits);
  let v = BigInt(digits);
  if (v > ULONG_MAX) throw invalidCursorError();
  if (m[1] === '-' && v !== 0n) v = ULONG_MAX + 1n - v;
  return v <= MAX_SAFE ? Number(v) : Number.MAX_SAFE_INTEGER;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export interface ScanWords {
  /** COUNT (at least 1), or undefined when absent. */
  count: number | undefined;
  /** MATCH's pattern, or null: none, or a lone `*` (Redis then matches without it). */
  match: Buffer | null;
  /** TYPE's name, where the command accepts it. */
  type: string | undefined;
  /** The command's own flag word was given. */
  flag: boolean;
}

/**
 * The option words from `argv[from]` on (later ones win): COUNT n, MATCH p,
 * TYPE t (SCAN only) and the command's own flag word; anything else is
 * `ERR syntax error`, as Redis answers.
 */
export function parseScanWords(
  argv: Buffer[],
  from: number,
  accepts: { readonly type: boolean; readonly flag: string | null },
): ScanWords {
  const words: ScanWords = { count: undefined, match: null, type: undefined, flag: false };
  for (let i = from; i < argv.length; ) {
    const a = argv[i]!;
    const more = argv.length - i >= 2;
    if (more && eqi(a, 'count')) {
      const count = parseInteger(argv[i + 1]!);
      if (count < 1) throw syntaxError();
      words.count = count;
      i += 2;
    } else if (more && eqi(a, 'match')) {
      const p = argv[i + 1]!;
      words.match = p.length === 1 && p[0] === 0x2a ? null : p;
      i += 2;
    } else if (more && accepts.type && eqi(a, 'type')) {
      words.type = argv[i + 1]!.toString('latin1');
      i += 2;
    } else if (accepts.flag !== null && eqi(a, accepts.flag)) {
      words.flag = true;
      i += 1;
    } else throw syntaxError();
  }
  return words;
}
