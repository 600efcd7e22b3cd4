import type { CommandFamily } from '../family.js';
import { scanCommands } from './scan.js';

/** Passes over a whole keyspace: DBSIZE, KEYS, SCAN, RANDOMKEY. */
export const scanFamily: CommandFamily = { name: 'scan', commands: scanCommands };
