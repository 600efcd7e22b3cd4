import { type CommandFamily, serverSlot } from '../family.js';
import { evalCommands } from './eval.js';
import { fcallCommands } from './fcall.js';
import { functionCommand } from './function-command.js';
import { FunctionLibraries, type FunctionStore } from './function-libraries.js';
import { scriptsSlot } from './script-cache.js';
import { scriptCommand } from './script-command.js';

export { fileFunctionStore } from './function-file-store.js';
export type { FunctionStore } from './function-libraries.js';

export interface ScriptingFamilyOptions {
  /** Where the function libraries are kept between runs; none: they live as long as the server. */
  readonly functionStore?: FunctionStore | null;
}

/**
 * Lua scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT, and the
 * functions (FUNCTION, FCALL, FCALL_RO), on fengari (Lua 5.3 in
 * JavaScript) made to behave as Redis's Lua 5.1. The libraries are loaded
 * from the function store before the server listens.
 */
export function scriptingFamily(options: ScriptingFamilyOptions = {}): CommandFamily {
  const libraries = serverSlot(
    'functions',
    (s) => new FunctionLibraries(s.state(scriptsSlot).engine, options.functionStore ?? null),
  );
  return {
    name: 'scripting',
    commands: [
      ...evalCommands,
      scriptCommand,
      functionCommand(libraries),
      ...fcallCommands(libraries),
    ],
    hooks: { beforeListen: (s) => s.state(libraries).restoreSaved() },
  };
}
