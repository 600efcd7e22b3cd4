import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startInProcess } from '../test/in-process-server.js';
import { infoFields } from '../test/info-fields.js';
import type { ServerConfig } from './config.js';
import type { StrataServer } from './strata-server.js';

let dir: string;
let server: StrataServer | null = null;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-aof-info-'));
});
afterEach(async () => {
  await server?.shutdown();
  server = null;
  await rm(dir, { recursive: true, force: true });
});

async function start(config: Partial<ServerConfig>): Promise<Redis> {
  const started = await startInProcess(dir, config);
  server = started.server;
  return new Redis({
    port: started.port,
    host: '127.0.0.1',
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
}

const fields = infoFields;

describe('INFO persistence and CONFIG GET with the AOF', () => {
  test('appendonly yes: aof_enabled, sizes that grow with writes, the settings in CONFIG GET', async () => {
    const r = await start({ appendonly: true, appendfsync: 'always' });
    try {
      const before = await fields(r, 'persistence');
      expect(before.get('loading')).toBe('0');
      expect(before.get('aof_enabled')).toBe('1');
      expect(before.get('aof_rewrite_in_progress')).toBe('0');
      expect(before.get('aof_last_write_status')).toBe('ok');
      expect(before.get('aof_base_size')).toBe('0');
      for (let i = 0; i < 20; i++) await r.set(`k${i}`, 'v'.repeat(100));
      const after = await fields(r, 'persistence');
      // Every acknowledged SET is in the file (appendfsync always): ~130 bytes each, plus a SELECT.
      const size = Number(after.get('aof_current_size'));
      expect(size).toBeGreaterThan(20 * 120);
      // The file holds them, then zeros written ahead (cut off at shutdown).
      const file = join(dir, 'appendonlydir', 'appendonly.aof.1.incr.aof');
      expect((await stat(file)).size).toBeGreaterThanOrEqual(size);
      expect(Number(after.get('aof_fsyncs'))).toBeGreaterThan(0);
      expect(after.get('aof_buffer_length')).toBe('0');
      // INFO (default) shows the persistence section too.
      expect(await r.info()).toMatch(/# Persistence\r\nloading:0\r\n[^#]*aof_enabled:1\r\n/);
      expect(await r.config('GET', 'append*')).toEqual(
        expect.arrayContaining([
          'appendonly',
          'yes',
          'appendfsync',
          'always',
          'appendfilename',
          'appendonly.aof',
        ]),
      );
      // appendfsync changes live (test/live-config.test.ts); appendfilename is start-up only.
      expect(await r.config('SET', 'appendfsync', 'no')).toBe('OK');
      expect(await r.config('GET', 'appendfsync')).toEqual(['appendfsync', 'no']);
      expect((await fields(r, 'persistence')).get('aof_enabled')).toBe('1');
      await expect(r.config('SET', 'appendfilename', 'x.aof')).rejects.toThrow(
        "can't set immutable config",
      );
      // Two databases in one command: refused (their AOF positions are per database).
      await r.set('m', '1');
      await expect(r.move('m', 1)).rejects.toThrow(
        'ERR MOVE is not supported while appendonly is yes',
      );
      await expect(r.copy('m', 'm2', 'DB', 1)).rejects.toThrow(
        'ERR COPY to another database is not supported while appendonly is yes',
      );
      expect(await r.copy('m', 'm2', 'DB', 0)).toBe(1);
      expect(await r.copy('m', 'm3')).toBe(1);
      expect(await r.mget('m', 'm2', 'm3')).toEqual(['1', '1', '1']);
    } finally {
      r.disconnect();
    }
  });

  test('appendonly no: aof_enabled:0 and no size fields; CONFIG GET appendonly no', async () => {
    const r = await start({ appendonly: false, appendfsync: 'everysec' });
    try {
      const f = await fields(r, 'persistence');
      expect(f.get('aof_enabled')).toBe('0');
      expect(f.get('aof_last_write_status')).toBe('ok');
      expect(f.has('aof_current_size')).toBe(false);
      expect(await r.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
      expect(await r.config('GET', 'appendfsync')).toEqual(['appendfsync', 'everysec']);
      // Without the AOF, MOVE runs.
      await r.set('m', '1');
      expect(await r.move('m', 1)).toBe(1);
    } finally {
      r.disconnect();
    }
  });
});
