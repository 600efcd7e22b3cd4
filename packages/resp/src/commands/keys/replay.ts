import { replyInteger } from '@strata/protocol';
import type { PropagationRule } from '../../server/command-log.js';
import { expireAt, NONE, num } from '../shared/replay-rules.js';

/**
 * EXPIRE, PEXPIRE (relative), EXPIREAT, PEXPIREAT (absolute): logged when
 * the expiry was set, as PEXPIREAT, or DEL when it is already past.
 * `unitMs`: the argument's unit in ms.
 */
export const expireReplay =
  (unitMs: number, absolute: boolean): PropagationRule =>
  (argv, reply, now) => {
    if (replyInteger(reply) !== 1) return NONE;
    const v = num(argv[2]!) * unitMs;
    return expireAt(argv[1]!, absolute ? v : now + v, now);
  };
