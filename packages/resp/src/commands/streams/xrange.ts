import { eqi, parseInteger } from '../../args.js';
import { syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { readStream, withBlocks } from './stream-access.js';
import { parseBound } from './stream-args.js';
import { writeRange } from './stream-replies.js';

/** XRANGE and XREVRANGE (xrangeGenericCommand): bounds, then COUNT, then the key. */
function range(c: Client, argv: Buffer[], reverse: boolean): CommandResult {
  const start = parseBound(argv[reverse ? 3 : 2]!, false);
  const end = parseBound(argv[reverse ? 2 : 3]!, true);
  // -1: no COUNT; 0 (a COUNT of 0 or less): a null array.
  let count = -1;
  for (let i = 4; i < argv.length; i++) {
    if (eqi(argv[i]!, 'count') && i + 1 < argv.length) {
      count = Math.max(0, parseInteger(argv[++i]!));
    } else throw syntaxError();
  }
  return readStream(c, argv[1]!, (s) => {
    if (s === null) c.reply.array(0);
    else if (count === 0) c.reply.nullArray();
    else {
      const n = count === -1 ? 0 : count;
      return withBlocks(
        c,
        s,
        s.refsFor(start, end, reverse, n),
        (blocks) => {
          writeRange(c.reply, s, blocks, start, end, n, reverse);
          return undefined;
        },
        reverse ? xrevrange : xrange,
        argv,
        argv[1]!,
      );
    }
    return undefined;
  });
}

export function xrange(c: Client, argv: Buffer[]): CommandResult {
  return range(c, argv, false);
}

export function xrevrange(c: Client, argv: Buffer[]): CommandResult {
  return range(c, argv, true);
}
