import { eqi } from '../../args.js';
import { syntaxError } from '../../errors.js';
import type { CommandDefinition } from '../../server/command-table.js';
import { NO_KEYS } from '../shared/key-positions.js';

/**
 * CLIENT REPLY ON|OFF|SKIP (Redis 3.2): OFF drops every reply from now on,
 * SKIP the next command's, ON sends them again and answers OK; OFF and
 * SKIP answer nothing. Pushes (pub/sub messages, invalidations) are sent
 * meanwhile, as Redis sends them; MONITOR lines are not. The connection
 * drops the bytes (Connection.setReplyMode).
 */
export const clientReplySubcommand: CommandDefinition = {
  name: 'reply',
  arity: 3,
  flags: ['noscript', 'loading', 'stale'],
  ...NO_KEYS,
  acl: ['connection'],
  group: 'connection',
  complexity: 'O(1)',
  since: '3.2.0',
  summary: 'Instructs the server whether to reply to commands.',
  handler(c, argv) {
    const mode = argv[2]!;
    if (eqi(mode, 'on')) {
      c.setReplyMode('on');
      c.reply.simple('OK');
    } else if (eqi(mode, 'off')) c.setReplyMode('off');
    else if (eqi(mode, 'skip')) c.setReplyMode('skip');
    else throw syntaxError();
    return undefined;
  },
};
