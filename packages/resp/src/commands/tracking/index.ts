import type { CommandFamily } from '../family.js';
import { trackingOff } from './tracking-commands.js';

/**
 * Client-side caching (CLIENT TRACKING and its siblings, listed by the
 * CLIENT container): the keys tracking clients read, invalidated when a
 * command changes them (`keyModified`, called by keyspace-events' notify),
 * broadcasts by prefix, the flush's null invalidation. RESET and a close
 * turn tracking off.
 */
export const trackingFamily: CommandFamily = {
  name: 'tracking',
  commands: [],
  hooks: { onClientReset: trackingOff, onClientClose: trackingOff },
};
