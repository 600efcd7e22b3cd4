import type { CommandFamily } from '../family.js';
import { setCommands } from './sets.js';

/** Sets: SADD, SREM, SINTER, SSCAN... */
export const setsFamily: CommandFamily = { name: 'sets', commands: setCommands };
