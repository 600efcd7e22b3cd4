import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import type { ServerSlot } from '../family.js';
import { NO_KEYS } from '../shared/key-positions.js';
import type { FunctionLibraries } from './function-libraries.js';
import { splitNumkeys } from './numkeys.js';
import { scriptsSlot } from './script-cache.js';
import { prepareRun } from './script-flags.js';

function fcall(libraries: ServerSlot<FunctionLibraries>, readOnlyCall: boolean) {
  return (c: Client, argv: Buffer[]): CommandResult => {
    const fn = c.server.state(libraries).find(argv[1]!.toString('latin1'));
    if (fn === undefined) throw new CommandError('ERR_SCRIPT', 'ERR Function not found');
    const { keys, args } = splitNumkeys(argv, 'ERR Bad number of keys provided');
    // A function is always a flagged script (Redis runs none in EVAL's compatibility mode).
    const mode = prepareRun(c, true, fn.flags.includes('no-writes'), readOnlyCall);
    return c.server.state(scriptsSlot).engine.run(c, {
      ref: fn.ref,
      name: fn.name,
      keys,
      args,
      mode,
      isFunction: true,
      argv,
    });
  };
}

const meta = {
  arity: -3,
  ...NO_KEYS,
  acl: ['scripting'],
  group: 'scripting',
  since: '7.0.0',
  complexity: 'Depends on the function that is executed.',
  keyNotes: 'We cannot tell how the keys will be used so we assume the worst, RW and UPDATE flags',
} as const;

export function fcallCommands(libraries: ServerSlot<FunctionLibraries>): CommandDefinition[] {
  return [
    {
      name: 'fcall',
      flags: ['noscript', 'stale', 'skip_monitor', 'no_mandatory_keys', 'movablekeys'],
      ...meta,
      keyFlags: ['RW', 'access', 'update'],
      summary: 'Invokes a function.',
      // Redis's fcallGetCommandFlags: a function flagged no-writes will not write.
      mayWriteWith: (c, argv) =>
        argv.length < 2 ||
        c.server.state(libraries).find(argv[1]!.toString('latin1'))?.flags.includes('no-writes') !==
          true,
      handler: fcall(libraries, false),
    },
    {
      name: 'fcall_ro',
      flags: ['readonly', 'noscript', 'stale', 'skip_monitor', 'no_mandatory_keys', 'movablekeys'],
      ...meta,
      keyFlags: ['RO', 'access'],
      summary: 'Invokes a read-only function.',
      handler: fcall(libraries, true),
    },
  ];
}
