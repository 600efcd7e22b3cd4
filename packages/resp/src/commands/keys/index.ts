import type { CommandFamily } from '../family.js';
import { keyCommands } from './keys.js';
import { objectCommand } from './object.js';

/** Keys of any type: DEL, EXISTS, EXPIRE, TTL, RENAME, COPY, MOVE, TYPE, OBJECT... */
export const keysFamily: CommandFamily = {
  name: 'keys',
  commands: [...keyCommands, objectCommand],
};
