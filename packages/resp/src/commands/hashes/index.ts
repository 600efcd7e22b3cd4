import type { CommandFamily } from '../family.js';
import { hashCommands } from './hashes.js';

/** Hashes: HSET, HGET, HINCRBY, HSCAN... */
export const hashesFamily: CommandFamily = { name: 'hashes', commands: hashCommands };
