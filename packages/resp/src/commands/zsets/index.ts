import type { CommandFamily } from '../family.js';
import { zsetCommands } from './zsets.js';

/** Sorted sets: ZADD, ZRANGE, ZUNIONSTORE, ZSCAN... */
export const zsetsFamily: CommandFamily = { name: 'zsets', commands: zsetCommands };
