import { parseInteger } from '../../args.js';
import { CommandError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { bitmapGroup } from '../shared/command-groups.js';
import { KEY1 } from '../shared/key-positions.js';
import { isBitUnit, resolveBitSpan } from './bit-range.js';
import { withString } from './bit-strings.js';

const bitArgumentError = () =>
  new CommandError('ERR_NOT_INTEGER', 'ERR The bit argument must be 1 or 0.');

/**
 * The first bit equal to `bit` in `b[off + firstBit / 8 ...]` between
 * the bits `firstBit` and `lastBit` (bit positions in the value), or -1.
 */
export function findBit(
  b: Uint8Array,
  off: number,
  bit: 0 | 1,
  firstBit: number,
  lastBit: number,
): number {
  const flip = bit === 1 ? 0 : 0xff;
  const first = Math.floor(firstBit / 8);
  const last = Math.floor(lastBit / 8);
  for (let i = first; i <= last; i++) {
    let v = b[off + i]! ^ flip;
    if (v === 0) continue;
    // Bits of the edge bytes outside the range do not count.
    if (i === first) v &= 0xff >> (firstBit & 7);
    if (i === last) v &= (0xff << (7 - (lastBit & 7))) & 0xff;
    if (v !== 0) return i * 8 + Math.clz32(v) - 24;
  }
  return -1;
}

/**
 * BITPOS key bit [start [end [BYTE|BIT]]] as Redis 7.0's bitposCommand:
 * the bit argument first, then the lookup (a missing key is all zeros: 0
 * for a clear bit, -1 for a set one, whatever the range), then the range.
 * Clear bits past the end count when no end was given (the value is
 * zero-padded then), so all ones answer the length in bits.
 */
function bitpos(c: Client, argv: Buffer[]): CommandResult {
  const b = parseInteger(argv[2]!);
  if (b !== 0 && b !== 1) throw bitArgumentError();
  const bit: 0 | 1 = b === 1 ? 1 : 0;
  return withString(c, argv[1]!, (bytes, off, len) => {
    if (bytes === null) {
      c.reply.integer(bit === 1 ? -1 : 0);
      return;
    }
    c.reply.integer(position(argv, bit, bytes, off, len));
  });
}

function position(argv: Buffer[], bit: 0 | 1, bytes: Uint8Array, off: number, len: number): number {
  const argc = argv.length;
  let start = 0;
  let end = len - 1;
  let isBit = false;
  const endGiven = argc >= 5;
  if (argc >= 4 && argc <= 6) {
    start = parseInteger(argv[3]!);
    if (argc === 6) isBit = isBitUnit(argv[5]!);
    if (endGiven) end = parseInteger(argv[4]!);
    else end = isBit ? len * 8 + 7 : len - 1;
  } else if (argc !== 3) throw syntaxError();
  const span = resolveBitSpan(start, end, isBit, len);
  if (span === null) return -1;
  const found = findBit(bytes, off, bit, span.firstBit, span.lastBit);
  if (found !== -1 || bit === 1 || endGiven) return found;
  // No clear bit in a range that runs to the end: the first of the padding.
  return Math.floor(span.lastBit / 8) * 8 + 8;
}

export const bitposCommand: CommandDefinition = {
  name: 'bitpos',
  arity: -3,
  flags: ['readonly'],
  ...KEY1,
  ...bitmapGroup,
  since: '2.8.7',
  complexity: 'O(N)',
  summary: 'Find first bit set or clear in a string',
  handler: bitpos,
};
