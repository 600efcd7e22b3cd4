import { eqi, parseInt64 } from '../../args.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition } from '../../server/command-table.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { mathRand, type Rand, schotterText, skylineText } from './lolwut-art.js';
import { SERVER_VERSION } from './server-info.js';

/** The version HELLO and INFO report (one owner): Redis prints its REDIS_VERSION there. */
const REDIS_VERSION = SERVER_VERSION;

/** Redis's getLongFromObjectOrReply clamped to a range (the pictures' limits). */
function clampedArg(argv: readonly Buffer[], i: number, fallback: number, max: number): number {
  if (argv.length <= i) return fallback;
  const v = Number(parseInt64(argv[i]!));
  return Math.min(Math.max(v, 1), max);
}

/**
 * LOLWUT [VERSION v] [args]: Redis's lolwutCommand. The version is read
 * as Redis formats it (`%u.0.0` of the long, so only 5 and 6, modulo
 * 2^32, have pictures); any other version, or none, prints the version
 * line (Redis 7 has no picture of its own).
 */
export function lolwutText(argv: readonly Buffer[], rand: Rand = mathRand): string {
  let version: bigint | null = null;
  let args = argv;
  if (argv.length >= 3 && eqi(argv[1]!, 'version')) {
    version = BigInt.asUintN(32, BigInt(parseInt64(argv[2]!)));
    // The picture's own arguments follow, as argv[1..] of its command.
    args = [argv[0]!, ...argv.slice(3)];
  }
  if (version === 5n) {
    const cols = clampedArg(args, 1, 66, 1000);
    const perRow = clampedArg(args, 2, 8, 200);
    const perCol = clampedArg(args, 3, 12, 200);
    return `${schotterText(cols, perRow, perCol, rand)}\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. ${REDIS_VERSION}\n`;
  }
  if (version === 6n) {
    const cols = clampedArg(args, 1, 80, 1000);
    const rows = clampedArg(args, 2, 20, 1000);
    return `${skylineText(cols, rows, rand)}\nDedicated to the 8 bit game developers of past and present.\nOriginal 8 bit image from Plaguemon by hikikomori. Redis ver. ${REDIS_VERSION}\n`;
  }
  return `Redis ver. ${REDIS_VERSION}\n`;
}

export const lolwutCommand: CommandDefinition = {
  name: 'lolwut',
  arity: -1,
  flags: ['readonly', 'fast'],
  ...NO_KEYS,
  acl: [],
  group: 'server',
  since: '5.0.0',
  complexity: '',
  summary: 'Display some computer art and the Redis version',
  handler(c: Client, argv) {
    // A verbatim string in RESP3 (txt), a bulk string in RESP2, as Redis's addReplyVerbatim.
    c.reply.verbatim(Buffer.from(lolwutText(argv), 'utf8'));
    return undefined;
  },
};
