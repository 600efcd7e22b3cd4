import { replyBulks } from '@strata/protocol';
import type { PropagationRule } from '../../server/command-log.js';
import { NONE } from '../shared/replay-rules.js';

const SREM = Buffer.from('SREM');

/** SPOP: the members it drew at random, as SREM. */
export const spopReplay: PropagationRule = (argv, reply) => {
  const members = replyBulks(reply);
  return members.length === 0 ? NONE : [[SREM, argv[1]!, ...members.map((m) => Buffer.from(m))]];
};
