import type { CommandFamily } from '../family.js';
import { stringCommands } from './strings.js';

/** Strings: GET, SET, INCR, APPEND... */
export const stringsFamily: CommandFamily = { name: 'strings', commands: stringCommands };
