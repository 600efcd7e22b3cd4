import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { type CachedScript, scriptsSlot } from './script-cache.js';

/** EVAL's numkeys, checked as Redis checks it: its keys, then its arguments. */
function splitArguments(argv: Buffer[]): { keys: Buffer[]; args: Buffer[] } {
  const text = argv[2]!.toString('latin1');
  const n = /^-?(0|[1-9][0-9]*)$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n)) {
    throw new CommandError('ERR_NOT_INTEGER', 'ERR value is not an integer or out of range');
  }
  if (n < 0) throw new CommandError('ERR_SYNTAX', "ERR Number of keys can't be negative");
  if (n > argv.length - 3) {
    throw new CommandError('ERR_SYNTAX', "ERR Number of keys can't be greater than number of args");
  }
  return { keys: argv.slice(3, 3 + n), args: argv.slice(3 + n) };
}

function runScript(
  c: Client,
  script: CachedScript,
  argv: Buffer[],
  readOnly: boolean,
): CommandResult {
  const { keys, args } = splitArguments(argv);
  const scripts = c.server.state(scriptsSlot);
  const mode = { readOnly: readOnly || script.mode?.readOnly === true };
  if (keys.length > 0) c.server.keyspace.get(c.db)?.prefetch(keys, keys.length);
  return scripts.engine.run(c, script.ref, script.sha, keys, args, mode);
}

function evalBody(readOnly: boolean) {
  return (c: Client, argv: Buffer[]): CommandResult => {
    // Numkeys first: Redis refuses bad arguments before it compiles.
    splitArguments(argv);
    const script = c.server.state(scriptsSlot).load(argv[1]!);
    return runScript(c, script, argv, readOnly);
  };
}

function evalSha(readOnly: boolean) {
  return (c: Client, argv: Buffer[]): CommandResult => {
    splitArguments(argv);
    const sha = argv[1]!.toString('latin1').toLowerCase();
    const script = sha.length === 40 ? c.server.state(scriptsSlot).get(sha) : undefined;
    if (script === undefined) {
      throw new CommandError('ERR_NOSCRIPT', 'NOSCRIPT No matching script. Please use EVAL.');
    }
    return runScript(c, script, argv, readOnly);
  };
}

const KEYS_NOTE =
  'We cannot tell how the keys will be used so we assume the worst, RW and UPDATE flags';

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
    handler: evalSha(false),
  },
  {
    name: 'eval_ro',
    flags: ['readonly', 'noscript', 'stale', 'skip_monitor', 'no_mandatory_keys', 'movablekeys'],
    ...evalMeta,
    keyFlags: ['RO', 'access'],
    since: '7.0.0',
    summary: 'Executes a read-only server-side Lua script.',
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
