import type { CommandFamily } from '../family.js';
import { fieldExpiryCommands } from './field-expiry-commands.js';
import { fieldExpiryCycle } from './field-expiry-cycle.js';
import { hashCommands } from './hashes.js';

/**
 * Hashes: HSET, HGET, HINCRBY, HSCAN..., and field expiry (HEXPIRE...,
 * HGETEX, HSETEX, HGETDEL) with its active cycle, started as the server
 * starts listening and stopped as it closes.
 */
export const hashesFamily: CommandFamily = {
  name: 'hashes',
  commands: [...hashCommands, ...fieldExpiryCommands],
  hooks: {
    beforeListen: (s) => {
      s.state(fieldExpiryCycle).start();
      return Promise.resolve();
    },
    onServerClose: (s) => s.peekState(fieldExpiryCycle)?.stop(),
  },
};
