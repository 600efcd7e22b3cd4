import { Redis } from 'ioredis';
import { expect, test } from 'vitest';
import { luaLoaded } from '../../src/commands/scripting/lua-module.js';
import { startServer } from '../support/test-server.js';

/**
 * fengari and its VMs cost a start ~30 ms and ~12 MB of RSS: a server
 * loads them with the first script or function, not before (its start
 * restores the saved function libraries, of which there are none here).
 */
test('a server that has run no script has loaded no Lua; the first EVAL loads it', async () => {
  const server = await startServer();
  const client = new Redis({ port: server.port, host: '127.0.0.1', lazyConnect: true });
  try {
    await client.connect();
    await client.set('k', 'v');
    expect(await client.get('k')).toBe('v');
    expect(await client.call('FUNCTION', 'LIST')).toEqual([]);
    expect(await client.call('SCRIPT', 'EXISTS', 'a'.repeat(40))).toEqual([0]);
    expect(luaLoaded()).toBe(false);
    expect(await client.eval("return redis.call('get', KEYS[1])", 1, 'k')).toBe('v');
    expect(luaLoaded()).toBe(true);
    await client.call('SCRIPT', 'FLUSH');
    expect(await client.eval('return 2', 0)).toBe(2);
  } finally {
    client.disconnect();
    await server.stop();
  }
});
