import { replyBulk } from '@strata/protocol';
import type { PropagationRule } from '../../server/command-log.js';
import { NONE } from '../shared/replay-rules.js';

const HSET = Buffer.from('HSET');

/** HINCRBYFLOAT: the value it wrote, as HSET. */
export const hincrbyfloatReplay: PropagationRule = (argv, reply) => {
  const v = replyBulk(reply);
  return v === null ? NONE : [[HSET, argv[1]!, argv[2]!, Buffer.from(v)]];
};
