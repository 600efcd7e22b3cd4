import type { CommandFamily } from '../family.js';
import { evalCommands } from './eval.js';
import { scriptCommand } from './script-command.js';

/**
 * Lua scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT, on fengari
 * (Lua 5.3 in JavaScript) made to behave as Redis's Lua 5.1.
 */
export const scriptingFamily: CommandFamily = {
  name: 'scripting',
  commands: [...evalCommands, scriptCommand],
};
