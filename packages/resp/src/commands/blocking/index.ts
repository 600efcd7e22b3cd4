import type { CommandFamily } from '../family.js';
import { blockingCommands } from './blocking.js';
import { serveReadyKeys, signalGone } from './blocking-registry.js';

/**
 * Blocking pops and moves (BLPOP, BLMOVE, BZPOPMIN...). After an EXEC it
 * serves the clients blocked on keys the transaction made ready, as Redis
 * does once the whole transaction ran; a key whose value went (deleted,
 * replaced, flushed, expired) has its waiters served from what it holds
 * after the command (a blocked XREADGROUP's UNBLOCKED).
 */
export const blockingFamily: CommandFamily = {
  name: 'blocking',
  commands: blockingCommands,
  hooks: { afterExec: serveReadyKeys, onKeyGone: signalGone, onKeyExpired: signalGone },
};
