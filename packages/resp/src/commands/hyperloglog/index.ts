import type { CommandFamily } from '../family.js';
import { pfaddCommand } from './pfadd.js';
import { pfcountCommand } from './pfcount.js';
import { pfdebugCommand } from './pfdebug.js';
import { pfmergeCommand } from './pfmerge.js';
import { pfselftestCommand } from './pfselftest.js';

/**
 * HyperLogLogs as Redis 7.0 keeps them, in plain string values byte for
 * byte (hll-encoding.ts): PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST.
 */
export const hyperloglogFamily: CommandFamily = {
  name: 'hyperloglog',
  commands: [pfaddCommand, pfcountCommand, pfmergeCommand, pfdebugCommand, pfselftestCommand],
};
