import {
  CommandError,
  discardWithoutMultiError,
  execAbortError,
  execWithoutMultiError,
  multiNestedError,
  watchInMultiError,
} from '../../errors.js';
import type { Client, QueuedCommand } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { execDeniedMessage } from '../acl/acl-users.js';
import { ALL_KEYS, NO_KEYS } from '../shared/key-positions.js';

const FLAGS = ['noscript', 'loading', 'stale', 'fast', 'allow_busy'] as const;
const meta = {
  ...NO_KEYS,
  acl: ['transaction'],
  group: 'transactions',
  complexity: 'O(1)',
} as const;

/**
 * EXEC: every queued command, and nothing of another client between them.
 * Commands that stay in memory run in this one synchronous step. The first
 * one that goes to disk takes the server's exclusive gate, so other
 * clients' commands wait until the transaction ends; and when other clients
 * already have commands on the disk, EXEC waits for them first, so none of
 * their writes can land in the middle of it.
 */
function exec(c: Client): CommandResult {
  const m = c.multi;
  if (m === null) throw execWithoutMultiError();
  c.multi = null;
  const dirty = c.watchDirty;
  c.unwatchAll();
  if (m.error) throw execAbortError();
  if (dirty) {
    c.reply.nullArray();
    return undefined;
  }
  const server = c.server;
  if (!server.othersIdle(c)) {
    return server.runExclusive(c, async () => {
      c.reply.array(m.queue.length);
      c.beginExec();
      try {
        await runFrom(c, m.queue, 0);
      } finally {
        c.endExec();
      }
    });
  }
  // The gate is held for the whole queue, free while it all stays in
  // memory (one synchronous step), and kept when a command goes to disk;
  // a command that takes the gate itself (FLUSHDB, RENAME) leaves it to EXEC.
  server.exclusive = c;
  c.reply.array(m.queue.length);
  // Its writes reach the command log as MULTI, the writes, EXEC.
  c.beginExec();
  const r = runFrom(c, m.queue, 0);
  if (r === undefined) {
    c.endExec();
    server.releaseExclusive(c);
    return undefined;
  }
  return r.finally(() => {
    c.endExec();
    server.releaseExclusive(c);
  });
}

function runFrom(c: Client, queue: QueuedCommand[], from: number): CommandResult {
  for (let i = from; i < queue.length; i++) {
    const q = queue[i]!;
    // ACL rules are checked again at EXEC, in case they changed since the command was queued.
    if (!c.user.unrestricted) {
      const denied = c.server.users.check(c, q.spec, q.argv, 'multi');
      if (denied !== null) {
        c.replyError(new CommandError('ERR_NOPERM', execDeniedMessage(denied)));
        continue;
      }
    }
    const r = c.call(q.spec, q.argv);
    if (r !== undefined) return r.then(() => runFrom(c, queue, i + 1));
  }
  return undefined;
}

export const transactionCommands: CommandDefinition[] = [
  {
    name: 'multi',
    runsInMulti: true,
    arity: 1,
    flags: FLAGS,
    ...meta,
    since: '1.2.0',
    summary: 'Starts a transaction.',
    handler(c) {
      if (c.multi !== null) throw multiNestedError();
      c.multi = { queue: [], error: false };
      c.reply.simple('OK');
      return undefined;
    },
  },
  {
    name: 'exec',
    runsInMulti: true,
    runsTransaction: true,
    arity: 1,
    flags: ['noscript', 'loading', 'stale', 'skip_slowlog'],
    ...meta,
    complexity: 'Depends on commands in the transaction',
    since: '1.2.0',
    summary: 'Executes all commands in a transaction.',
    handler: exec,
  },
  {
    name: 'discard',
    runsInMulti: true,
    arity: 1,
    flags: FLAGS,
    ...meta,
    complexity: 'O(N), when N is the number of queued commands',
    since: '2.0.0',
    summary: 'Discards a transaction.',
    handler(c) {
      if (c.multi === null) throw discardWithoutMultiError();
      c.multi = null;
      c.unwatchAll();
      c.reply.simple('OK');
      return undefined;
    },
  },
  {
    name: 'watch',
    runsInMulti: true,
    arity: -2,
    flags: FLAGS,
    ...meta,
    ...ALL_KEYS,
    complexity: 'O(1) for every key.',
    since: '2.2.0',
    summary: 'Monitors changes to keys to determine the execution of a transaction.',
    handler(c, argv) {
      if (c.multi !== null) throw watchInMultiError();
      for (let i = 1; i < argv.length; i++) {
        const key = argv[i]!;
        if (c.server.watch(c, c.db, key)) {
          c.watching.push({ db: c.db, key: key.toString('latin1') });
        }
      }
      c.reply.simple('OK');
      return undefined;
    },
  },
  {
    name: 'unwatch',
    arity: 1,
    flags: FLAGS,
    ...meta,
    since: '2.2.0',
    summary: 'Forgets about watched keys of a transaction.',
    handler(c) {
      c.unwatchAll();
      c.reply.simple('OK');
      return undefined;
    },
  },
];
