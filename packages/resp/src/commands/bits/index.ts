import type { CommandFamily } from '../family.js';
import { bitfieldCommand, bitfieldRoCommand } from './bitfield.js';
import { bitopCommand } from './bitop.js';
import { bitposCommand } from './bitpos.js';
import { bitCommands } from './bits.js';
import { lcsCommand } from './lcs.js';

/**
 * Bitmaps on strings as Redis 7.0's bitops.c: SETBIT, GETBIT, BITCOUNT,
 * BITPOS, BITOP, BITFIELD, BITFIELD_RO (and LCS, a string command kept here).
 */
export const bitsFamily: CommandFamily = {
  name: 'bits',
  commands: [
    ...bitCommands,
    bitposCommand,
    bitopCommand,
    bitfieldCommand,
    bitfieldRoCommand,
    lcsCommand,
  ],
};
