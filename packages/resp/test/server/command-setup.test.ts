import { Redis } from 'ioredis';
import { expect, test } from 'vitest';
import { CommandError } from '../../src/errors.js';
import type { CommandDefinition } from '../../src/server/command-table.js';
import { startServer } from '../support/test-server.js';

/**
 * A command's `setup` (one-time work Redis does at start, such as the Lua
 * VM): it runs before the command's clock starts, once per need, and a
 * failure there is the command's error reply, never the server's end.
 */
test('setup runs before the handler, only when it has work; its failure answers as an error', async () => {
  let prepared = false;
  let failNext = false;
  const calls: string[] = [];
  const mine: CommandDefinition = {
    name: 'prepared',
    arity: 2,
    flags: ['fast'],
    firstKey: 0,
    lastKey: 0,
    step: 0,
    acl: [],
    summary: 'A test command with a setup step.',
    since: '7.0.0',
    group: 'server',
    complexity: 'O(1)',
    setup: () => {
      calls.push('setup');
      if (failNext) {
        failNext = false;
        throw new CommandError('ERR_UNSUPPORTED', 'ERR setup failed');
      }
      if (prepared) return false;
      prepared = true;
      return true;
    },
    handler: (c, argv) => {
      calls.push(`run ${argv[1]!.toString()}`);
      c.reply.simple(prepared ? 'READY' : 'NOT READY');
      return undefined;
    },
  };
  const server = await startServer({ commands: [mine] });
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    expect(await client.call('PREPARED', 'a')).toBe('READY');
    expect(await client.call('PREPARED', 'b')).toBe('READY');
    failNext = true;
    await expect(client.call('PREPARED', 'c')).rejects.toThrow('setup failed');
    // Queued in MULTI: set up when queued; a failure there is left to the run under EXEC.
    failNext = true;
    const exec = await client.multi().call('PREPARED', 'd').exec();
    expect(exec).toEqual([[null, 'READY']]);
    expect(await client.ping()).toBe('PONG');
    expect(calls).toEqual(['setup', 'run a', 'setup', 'run b', 'setup', 'setup', 'setup', 'run d']);
  } finally {
    client.disconnect();
    await server.stop();
  }
});
