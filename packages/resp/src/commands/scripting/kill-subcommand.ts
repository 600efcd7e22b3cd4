import type { CommandDefinition } from '../../server/command-table.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { scriptsSlot } from './script-cache.js';

/** SCRIPT KILL and FUNCTION KILL: one engine, one running script, so one handler. */
export function killSubcommand(since: string, summary: string): CommandDefinition {
  return {
    name: 'kill',
    arity: 2,
    flags: ['noscript', 'allow_busy'],
    ...NO_KEYS,
    acl: ['scripting'],
    group: 'scripting',
    tips: ['request_policy:all_shards', 'response_policy:one_succeeded'],
    since,
    complexity: 'O(1)',
    summary,
    handler(c) {
      c.server.state(scriptsSlot).engine.kill();
      c.reply.simple('OK');
      return undefined;
    },
  };
}
