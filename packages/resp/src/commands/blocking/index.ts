import type { CommandFamily } from '../family.js';
import { blockingCommands } from './blocking.js';
import { serveReadyKeys } from './blocking-registry.js';

/**
 * Blocking pops and moves (BLPOP, BLMOVE, BZPOPMIN...). After an EXEC it
 * serves the clients blocked on keys the transaction made ready, as Redis
 * does once the whole transaction ran.
 */
export const blockingFamily: CommandFamily = {
  name: 'blocking',
  commands: blockingCommands,
  hooks: { afterExec: serveReadyKeys },
};
