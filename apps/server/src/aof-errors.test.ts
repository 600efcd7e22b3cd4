import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AofFileSystem, nodeFileSystem } from '@strata/aof';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DEFAULT_CONFIG } from './config.js';
import { Logger } from './logger.js';
import { StrataServer } from './strata-server.js';

/** The real file system, whose AOF writes fail (ENOSPC) while `full` is set. */
class FullDisk implements AofFileSystem {
  full = false;
  async open(path: string, create: 'new' | 'never') {
    const h = await nodeFileSystem.open(path, create);
    return {
      ...h,
      write: (data: Uint8Array, position: number) => {
        if (this.full) {
          const e: NodeJS.ErrnoException = new Error('ENOSPC: no space left on device, write');
          e.code = 'ENOSPC';
          throw e;
        }
        return h.write(data, position);
      },
    };
  }
  readFile = nodeFileSystem.readFile;
  writeFileAtomic = nodeFileSystem.writeFileAtomic;
  list = nodeFileSystem.list;
  remove = nodeFileSystem.remove;
  mkdirp = nodeFileSystem.mkdirp;
  syncDir = nodeFileSystem.syncDir;
}

let dir: string;
let server: StrataServer | null = null;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-aof-errors-'));
});
afterEach(async () => {
  await server?.shutdown();
  server = null;
  await rm(dir, { recursive: true, force: true });
});

describe('strata-server with a failing AOF disk', () => {
  test('writes get MISCONF while the AOF cannot be written, reads keep working, writes come back after', async () => {
    const disk = new FullDisk();
    const lines: string[] = [];
    server = new StrataServer(
      {
        config: {
          ...DEFAULT_CONFIG,
          port: 0,
          dir,
          memory: 64 * 1024,
          pageSize: 16 * 1024,
          appendonly: true,
          appendfsync: 'always',
        },
        notes: [],
        configFile: null,
        parameters: [],
        unused: [],
        users: [],
      },
      new Logger({ level: 'notice', write: (l) => void lines.push(l) }),
      () => undefined,
      disk,
    );
    const { port } = await server.start();
    const r = new Redis({
      port,
      host: '127.0.0.1',
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    try {
      expect(await r.set('a', '1')).toBe('OK');
      disk.full = true;
      // The write that met the full disk, then every write while it stays full.
      await expect(r.set('b', '2')).rejects.toThrow(
        /^MISCONF Errors writing to the AOF file: No space left on device/,
      );
      await expect(r.incr('n')).rejects.toThrow(/^MISCONF/);
      expect(await r.get('a')).toBe('1');
      expect(lines.join('')).toMatch(/# Error writing to the AOF file: No space left on device/);
      expect(await r.info('persistence')).toMatch(/\r\naof_last_write_status:err\r\n/);
      disk.full = false;
      // The retry (every 100 ms) writes what was pending; writes are accepted again.
      const deadline = Date.now() + 5000;
      for (;;) {
        try {
          expect(await r.set('c', '3')).toBe('OK');
          break;
        } catch (e) {
          if (Date.now() > deadline) throw e;
          await new Promise((res) => setTimeout(res, 50));
        }
      }
      expect(lines.join('')).toMatch(/AOF write error looks solved/);
      expect(await r.get('c')).toBe('3');
      expect(await r.info('persistence')).toMatch(/\r\naof_last_write_status:ok\r\n/);
      // A swap would mix two databases' AOF positions and checkpoints.
      await expect(r.swapdb(0, 1)).rejects.toThrow(
        'ERR SWAPDB is not supported while appendonly is yes',
      );
    } finally {
      r.disconnect();
    }
  });
});
