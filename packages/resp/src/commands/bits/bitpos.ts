import type { RangePicker } from '@strata/hlog';
import { parseInteger } from '../../args.js';
import { CommandError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { bitmapGroup } from '../shared/command-groups.js';
import { KEY1 } from '../shared/key-positions.js';
import { type StringWalk, walkString } from '../shared/string-range.js';
import { type BitSpan, isBitUnit, resolveBitSpan } from './bit-range.js';

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

/** BITPOS's range arguments: start, maybe end, maybe the unit. */
interface PosRange {
  readonly start: number | null;
  readonly end: number | null;
  readonly isBit: boolean;
}

function parsePosRange(argv: Buffer[]): PosRange {
  const argc = argv.length;
  if (argc === 3) return { start: null, end: null, isBit: false };
  if (argc < 4 || argc > 6) throw syntaxError();
  const start = parseInteger(argv[3]!);
  const isBit = argc === 6 ? isBitUnit(argv[5]!) : false;
  const end = argc >= 5 ? parseInteger(argv[4]!) : null;
  return { start, end, isBit };
}

/**
 * BITPOS key bit [start [end [BYTE|BIT]]] as Redis 7.0's bitposCommand:
 * the bit argument first, then the lookup (a missing key is all zeros: 0
 * for a clear bit, -1 for a set one, whatever the range), then the range
 * (an argument error is kept until the key is found). Clear bits past the
 * end count when no end was given (the value is zero-padded then), so all
 * ones answer the length in bits. The range is searched window by window
 * and the walk stops at the first hit: a value on the device is read only
 * up to it.
 */
class BitPos implements RangePicker, StringWalk {
  from = 0;
  to = 0;
  private span: BitSpan | null = null;
  private found = -1;
  private readonly range: PosRange | null = null;
  private readonly error: unknown = null;

  constructor(
    private readonly c: Client,
    private readonly bit: 0 | 1,
    argv: Buffer[],
  ) {
    try {
      this.range = parsePosRange(argv);
    } catch (e) {
      this.error = e;
    }
  }

  pick(len: number): void {
    const r = this.range;
    let span: BitSpan | null = null;
    if (r !== null) {
      const start = r.start ?? 0;
      const end = r.end ?? (r.isBit ? len * 8 + 7 : len - 1);
      span = resolveBitSpan(start, end, r.isBit, len);
    }
    this.span = span;
    this.from = span === null ? 0 : Math.floor(span.firstBit / 8);
    this.to = span === null ? 0 : Math.floor(span.lastBit / 8) + 1;
  }

  start(): void {
    this.found = -1;
  }

  visit(b: Uint8Array, base: number, from: number, to: number): boolean {
    const span = this.span;
    if (span === null || to <= from) return false;
    const first = Math.max(span.firstBit, from * 8);
    const last = Math.min(span.lastBit, to * 8 - 1);
    this.found = findBit(b, base, this.bit, first, last);
    return this.found !== -1;
  }

  end(total: number): void {
    const reply = this.c.reply;
    if (total < 0) {
      reply.integer(this.bit === 1 ? -1 : 0);
      return;
    }
    if (this.error !== null) throw this.error;
    const span = this.span;
    if (span === null) reply.integer(-1);
    else if (
      this.found !== -1 ||
      this.bit === 1 ||
      (this.range !== null && this.range.end !== null)
    ) {
      reply.integer(this.found);
    }
    // No clear bit in a range that runs to the end: the first of the padding.
    else reply.integer(Math.floor(span.lastBit / 8) * 8 + 8);
  }
}

function bitpos(c: Client, argv: Buffer[]): CommandResult {
  const b = parseInteger(argv[2]!);
  if (b !== 0 && b !== 1) throw bitArgumentError();
  const pos = new BitPos(c, b === 1 ? 1 : 0, argv);
  return walkString(c, argv[1]!, pos, pos);
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
