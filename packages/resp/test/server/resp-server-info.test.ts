import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../support/test-server.js';

/** RespServerOptions.infoSections and configValues: an app's INFO fields and CONFIG GET settings. */
let t: TestServer;
let r: Redis;
let writes = 0;
beforeAll(async () => {
  t = await startServer({
    infoSections: {
      persistence: () => ['aof_enabled:1', `aof_current_size:${writes * 10}`],
      durability: () => [`writes:${writes}`],
    },
    configValues: { appendonly: () => 'yes', 'app-setting': () => String(writes) },
  });
  r = new Redis({ port: t.port, host: '127.0.0.1' });
});
afterAll(async () => {
  r.disconnect();
  await t.stop();
});

describe('an app adds INFO fields and CONFIG GET values', () => {
  test('a built-in section shows its own lines, then the app lines, computed on each INFO', async () => {
    writes = 3;
    expect(await r.info('persistence')).toBe(
      '# Persistence\r\nloading:0\r\nasync_loading:0\r\naof_enabled:1\r\naof_current_size:30\r\n',
    );
    writes = 4;
    expect(await r.info('persistence')).toContain('aof_current_size:40\r\n');
  });

  test("an app's own section: by name, in all / everything, not in the default set", async () => {
    writes = 5;
    expect(await r.info('durability')).toBe('# Durability\r\nwrites:5\r\n');
    expect(await r.info('all')).toContain('# Durability\r\nwrites:5\r\n');
    expect(await r.info('everything')).toContain('# Durability\r\n');
    expect(await r.info()).not.toContain('# Durability');
    expect(await r.info()).toContain('aof_enabled:1');
  });

  test('CONFIG GET: the app values replace built-in ones and match globs', async () => {
    writes = 7;
    expect(await r.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    expect(await r.config('GET', 'app-*')).toEqual(['app-setting', '7']);
    // Still a built-in default where the app says nothing.
    expect(await r.config('GET', 'appendfsync')).toEqual(['appendfsync', 'everysec']);
    // Unknown names match nothing.
    expect(await r.config('GET', 'toString')).toEqual([]);
  });
});
