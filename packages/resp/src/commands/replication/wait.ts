import { parseInteger } from '../../args.js';
import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { block, mayBlock } from '../blocking/blocking.js';

/** Replicas that acknowledged the client's writes: none, until replication exists. */
const ACKED_REPLICAS = 0;

function parseWaitTimeout(arg: Uint8Array): number {
  let ms: number;
  try {
    ms = parseInteger(arg);
  } catch {
    throw new CommandError('ERR_OUT_OF_RANGE', 'ERR timeout is not an integer or out of range');
  }
  if (ms < 0) throw new CommandError('ERR_OUT_OF_RANGE', 'ERR timeout is negative');
  return ms;
}

const replyAcked = (c: Client) => {
  c.reply.integer(ACKED_REPLICAS);
};

/**
 * WAIT numreplicas timeout (Redis 7's waitCommand, a server with no
 * replicas): enough replicas have acknowledged at once when none are asked
 * for; else the client blocks until the timeout (0: for ever), a CLIENT
 * UNBLOCK or its disconnect, and answers how many did: 0. Inside MULTI it
 * answers at once, as Redis does.
 */
export function wait(c: Client, argv: Buffer[]): CommandResult {
  const wanted = parseInteger(argv[1]!);
  const timeoutMs = parseWaitTimeout(argv[2]!);
  if (wanted <= ACKED_REPLICAS || !mayBlock(c)) {
    replyAcked(c);
    return undefined;
  }
  return block(c, [], timeoutMs, () => null, replyAcked);
}
