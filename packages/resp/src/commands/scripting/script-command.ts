import { CommandError } from '../../errors.js';
import type { CommandDefinition } from '../../server/command-table.js';
import { helpReply } from '../shared/help-reply.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { killSubcommand } from './kill-subcommand.js';
import { evalVmSetup, scriptsSlot } from './script-cache.js';

const HELP = [
  'SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'DEBUG (YES|SYNC|NO)',
  '    Set the debug mode for subsequent scripts executed.',
  'EXISTS <sha1> [<sha1> ...]',
  '    Return information about the existence of the scripts in the script cache.',
  'FLUSH [ASYNC|SYNC]',
  '    Flush the Lua scripts cache. Very dangerous on replicas.',
  '    When called without the optional mode argument, the behavior is determined by the',
  '    lazyfree-lazy-user-flush configuration directive. Valid modes are:',
  '    * ASYNC: Asynchronously flush the scripts cache.',
  '    * SYNC: Synchronously flush the scripts cache.',
  'KILL',
  '    Kill the currently executing Lua script.',
  'LOAD <script>',
  '    Load a script into the scripts cache without executing it.',
  'HELP',
  '    Prints this help.',
];

const meta = { ...NO_KEYS, acl: ['scripting'], group: 'scripting' } as const;

/** SCRIPT LOAD, EXISTS, FLUSH, KILL, HELP (DEBUG: Redis's Lua debugger is not here). */
export const scriptCommand: CommandDefinition = {
  name: 'script',
  arity: -2,
  flags: [],
  ...meta,
  since: '2.6.0',
  complexity: 'Depends on subcommand.',
  summary: 'A container for Lua scripts management commands.',
  subcommands: [
    {
      name: 'load',
      arity: 3,
      flags: ['noscript', 'stale'],
      ...meta,
      tips: ['request_policy:all_nodes', 'response_policy:all_succeeded'],
      since: '2.6.0',
      complexity: 'O(N) with N being the length in bytes of the script body.',
      summary: 'Loads a server-side Lua script to the script cache.',
      setup: evalVmSetup,
      handler(c, argv) {
        c.reply.bulk(c.server.state(scriptsSlot).load(argv[2]!).sha);
        return undefined;
      },
    },
    {
      name: 'exists',
      arity: -3,
      flags: ['noscript'],
      ...meta,
      tips: ['request_policy:all_shards', 'response_policy:agg_logical_and'],
      since: '2.6.0',
      complexity:
        'O(N) with N being the number of scripts to check (so checking a single script is an O(1) operation).',
      summary: 'Determines whether server-side Lua scripts exist in the script cache.',
      handler(c, argv) {
        const scripts = c.server.state(scriptsSlot);
        c.reply.array(argv.length - 2);
        for (let i = 2; i < argv.length; i++) {
          c.reply.integer(scripts.has(argv[i]!.toString('latin1').toLowerCase()) ? 1 : 0);
        }
        return undefined;
      },
    },
    {
      name: 'flush',
      arity: -2,
      flags: ['noscript'],
      ...meta,
      tips: ['request_policy:all_nodes', 'response_policy:all_succeeded'],
      since: '2.6.0',
      complexity: 'O(N) with N being the number of scripts in cache',
      summary: 'Removes all server-side Lua scripts from the script cache.',
      handler(c, argv) {
        const mode = argv[2]?.toString('latin1').toLowerCase();
        if (argv.length > 3 || (mode !== undefined && mode !== 'sync' && mode !== 'async')) {
          throw new CommandError('ERR_SYNTAX', 'ERR SCRIPT FLUSH only support SYNC|ASYNC option');
        }
        c.server.state(scriptsSlot).flush();
        c.reply.simple('OK');
        return undefined;
      },
    },
    killSubcommand('2.6.0', 'Terminates a server-side Lua script during execution.'),
    {
      name: 'help',
      arity: 2,
      flags: ['loading', 'stale'],
      ...meta,
      since: '5.0.0',
      complexity: 'O(1)',
      summary: 'Returns helpful text about the different subcommands.',
      handler: helpReply(HELP),
    },
  ],
};
