import type { CommandFamily } from '../family.js';
import { bitCommands } from './bits.js';

/** Bitmaps on strings: SETBIT, GETBIT, BITCOUNT, BITPOS. */
export const bitsFamily: CommandFamily = { name: 'bits', commands: bitCommands };
