import type { CommandFamily } from '../family.js';
import { listCommands } from './lists.js';

/** Lists: LPUSH, LPOP, LRANGE, LMOVE... */
export const listsFamily: CommandFamily = { name: 'lists', commands: listCommands };
