import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { splitNumkeys } from './numkeys.js';
import { type CachedScript, evalVmSetup, scriptsSlot } from './script-cache.js';
import { prepareRun } from './script-flags.js';
import { parseShebang } from './shebang.js';

const NOT_INTEGER = 'ERR value is not an integer or out of range';

function runScript(
  c: Client,
  script: CachedScript,
  argv: Buffer[],
  split: { keys: Buffer[]; args: Buffer[] },
  readOnly: boolean,
): CommandResult {
  const { keys, args } = split;
  const scripts = c.server.state(scriptsSlot);
  const flags = script.flags;
  const mode = prepareRun(c, flags !== null, flags?.has('no-writes') === true, readOnly);
  return scripts.engine.run(c, {
    ref: script.ref,
    name: script.sha,
    keys,
    args,
    mode,
    isFunction: false,
    argv,
  });
}

function evalBody(readOnly: boolean) {
  return (c: Client, argv: Buffer[]): CommandResult => {
    // Numkeys first: Redis refuses bad arguments before it compiles.
    const split = splitNumkeys(argv, NOT_INTEGER);
    const script = c.server.state(scriptsSlot).load(argv[1]!);
    return runScript(c, script, argv, split, readOnly);
  };
}

function evalSha(readOnly: boolean) {
  return (c: Client, argv: Buffer[]): CommandResult => {
    const split = splitNumkeys(argv, NOT_INTEGER);
    const sha = argv[1]!.toString('latin1').toLowerCase();
    const script = sha.length === 40 ? c.server.state(scriptsSlot).get(sha) : undefined;
    if (script === undefined) {
      throw new CommandError('ERR_NOSCRIPT', 'NOSCRIPT No matching script. Please use EVAL.');
    }
    return runScript(c, script, argv, split, readOnly);
  };
}

const KEYS_NOTE =
  'We cannot tell how the keys will be used so we assume the worst, RW and UPDATE flags';

/** Redis's evalGetCommandFlags: a script whose shebang declares `no-writes` will not write. */
function evalMayWrite(_c: Client, argv: readonly Buffer[]): boolean {
  if (argv.length < 2) return true;
  const shebang = parseShebang(argv[1]!);
  return !(shebang.ok && shebang.flags?.has('no-writes') === true);
}

function evalShaMayWrite(c: Client, argv: readonly Buffer[]): boolean {
  if (argv.length < 2) return true;
  const sha = argv[1]!.toString('latin1').toLowerCase();
  const flags = c.server.peekState(scriptsSlot)?.get(sha)?.flags;
  return flags?.has('no-writes') !== true;
}

const evalMeta = {
  arity: -3,
  ...NO_KEYS,
  acl: ['scripting'],
  group: 'scripting',
  complexity: 'Depends on the script that is executed.',
} as const;

export const evalCommands: CommandDefinition[] = [
  {
    name: 'eval',
    flags: ['noscript', 'stale', 'skip_monitor', 'no_mandatory_keys', 'movablekeys'],
    ...evalMeta,
    keyFlags: ['RW', 'access', 'update'],
    keyNotes: KEYS_NOTE,
    since: '2.6.0',
    summary: 'Executes a server-side Lua script.',
    mayWriteWith: evalMayWrite,
    // EVALSHA needs none: a cached script has its VM, an unknown one answers NOSCRIPT.
    setup: evalVmSetup,
    handler: evalBody(false),
  },
  {
    name: 'evalsha',
    flags: ['noscript', 'stale', 'skip_monitor', 'no_mandatory_keys', 'movablekeys'],
    ...evalMeta,
    keyFlags: ['RW', 'access', 'update'],
    keyNotes: KEYS_NOTE,
    since: '2.6.0',
    summary: 'Executes a server-side Lua script by SHA1 digest.',
    mayWriteWith: evalShaMayWrite,
    handler: evalSha(false),
  },
  {
    name: 'eval_ro',
    flags: ['readonly', 'noscript', 'stale', 'skip_monitor', 'no_mandatory_keys', 'movablekeys'],
    ...evalMeta,
    keyFlags: ['RO', 'access'],
    since: '7.0.0',
    summary: 'Executes a read-only server-side Lua script.',
    setup: evalVmSetup,
    handler: evalBody(true),
  },
  {
    name: 'evalsha_ro',
    flags: ['readonly', 'noscript', 'stale', 'skip_monitor', 'no_mandatory_keys', 'movablekeys'],
    ...evalMeta,
    keyFlags: ['RO', 'access'],
    since: '7.0.0',
    summary: 'Executes a read-only server-side Lua script by SHA1 digest.',
    handler: evalSha(true),
  },
];
