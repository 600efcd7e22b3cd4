import { replyBulk } from '@strata/protocol';
import type { PropagationRule } from '../../server/command-log.js';
import { NONE } from '../shared/replay-rules.js';

const HSETEX = Buffer.from('HSETEX');
const KEEPTTL = Buffer.from('KEEPTTL');
const FIELDS = Buffer.from('FIELDS');
const ONE = Buffer.from('1');

/**
 * HINCRBYFLOAT: the value it wrote, as Redis 8 propagates it (HSETEX
 * KEEPTTL FIELDS 1, so a field's expiry time survives the replay).
 */
export const hincrbyfloatReplay: PropagationRule = (argv, reply) => {
  const v = replyBulk(reply);
  return v === null ? NONE : [[HSETEX, argv[1]!, KEEPTTL, FIELDS, ONE, argv[2]!, Buffer.from(v)]];
};
