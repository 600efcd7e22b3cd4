import { createHash } from 'node:crypto';
import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { ServerState } from '../../server/server-state.js';
import { serverSlot } from '../family.js';
import { readConfig } from '../server/config.js';
import { ScriptEngine } from './script-run.js';
import { parseShebang, type ScriptFlag } from './shebang.js';

/** A script compiled once: EVAL and SCRIPT LOAD add it, EVALSHA finds it by its SHA1. */
export interface CachedScript {
  readonly sha: string;
  /** Registry ref of its compiled function in the engine's VM. */
  readonly ref: number;
  /** From its shebang (`#!lua flags=no-writes`): null when it has none. */
  readonly flags: ReadonlySet<ScriptFlag> | null;
}

/** The server's scripts: the engine and the script cache (Redis's lua_scripts dict). */
export class Scripts {
  readonly engine: ScriptEngine;
  private readonly cache = new Map<string, CachedScript>();

  constructor(server: ServerState) {
    this.engine = new ScriptEngine(server, () =>
      Number(readConfig(server, 'busy-reply-threshold')),
    );
  }

  has(sha: string): boolean {
    return this.cache.has(sha);
  }

  get(sha: string): CachedScript | undefined {
    return this.cache.get(sha);
  }

  /** Compiles and caches `body` (once per SHA1); Redis's errors for a bad shebang or bad Lua. */
  load(body: Buffer): CachedScript {
    const sha = sha1(body);
    const known = this.cache.get(sha);
    if (known !== undefined) return known;
    const shebang = parseShebang(body);
    if (!shebang.ok) throw new CommandError('ERR_SCRIPT', shebang.error, true);
    // The shebang line is skipped but its newline kept, so line numbers are the user's.
    const code = body.subarray(shebang.length);
    const compiled = this.engine.vm.compile(code, '@user_script');
    if (!compiled.ok) {
      throw new CommandError(
        'ERR_SCRIPT',
        `ERR Error compiling script (new function): ${compiled.error}`,
        true,
      );
    }
    const script: CachedScript = { sha, ref: compiled.ref, flags: shebang.flags };
    this.cache.set(sha, script);
    return script;
  }

  /** SCRIPT FLUSH: every script gone, with the VM they lived in. */
  flush(): void {
    this.cache.clear();
    this.engine.reset();
  }
}

export const scriptsSlot = serverSlot('scripts', (server) => new Scripts(server));

export function sha1(body: Uint8Array): string {
  return createHash('sha1').update(body).digest('hex');
}

/**
 * The `setup` of the commands that make a script (EVAL, EVAL_RO, SCRIPT
 * LOAD): Redis makes its VM at start; here the first of them does, before
 * its clock starts.
 */
export const evalVmSetup = (c: Client): boolean =>
  c.server.state(scriptsSlot).engine.prepareEvalVm();

/** The `setup` of FUNCTION LOAD and RESTORE: the functions' VM (see evalVmSetup). */
export const functionsVmSetup = (c: Client): boolean =>
  c.server.state(scriptsSlot).engine.prepareFunctionsVm();
