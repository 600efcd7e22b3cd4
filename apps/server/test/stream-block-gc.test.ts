import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, expect, test } from 'vitest';
import { startInProcess } from './in-process-server.js';

/**
 * strata-server runs the stream block GC after each compaction: a stream
 * whose head on disk a blind SET overwrote leaves its blocks behind; once
 * compaction has dropped the old head, the next pass deletes them (INFO
 * storage's `stream_gc_orphans`).
 */
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

function storageField(info: string, field: string): number {
  const m = new RegExp(`db0:[^\\r\\n]*[:,]${field}=(\\d+)`).exec(info);
  return m === null ? Number.NaN : Number(m[1]);
}

test('a stream overwritten on disk: after compaction its blocks are collected', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'strata-server-gc-'));
  dirs.push(dir);
  const config = { memory: 256 * 1024, pageSize: 16 * 1024, segmentSize: 64 * 1024 };
  let { server, port } = await startInProcess(dir, config);
  let r = new Redis({ port, host: '127.0.0.1' });
  try {
    for (const key of ['s', 'keep']) {
      for (let at = 0; at < 8000; at += 1000) {
        const p = r.pipeline();
        for (let i = at; i < at + 1000; i++)
          p.xadd(key, `${i + 1}-0`, 'f', `v${i}-${'x'.repeat(60)}`);
        await p.exec();
      }
    }
    await r.set('other', 'kept');
    r.disconnect();
    await server.shutdown();
    // Restarted: the head is on disk, not cached; the SET over it reads nothing.
    ({ server, port } = await startInProcess(dir, { ...config, compactionThreshold: 64 * 1024 }));
    r = new Redis({ port, host: '127.0.0.1' });
    expect(await r.set('s', 'a string')).toBe('OK');
    let orphans = 0;
    for (let i = 0; i < 200 && orphans === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      orphans = storageField(await r.info('storage'), 'stream_gc_orphans');
    }
    expect(orphans).toBeGreaterThanOrEqual(8);
    expect(storageField(await r.info('storage'), 'stream_gc_passes')).toBeGreaterThan(0);
    expect(await r.get('s')).toBe('a string');
    expect(await r.get('other')).toBe('kept');
    // The live stream keeps every block.
    expect((await r.xrange('keep', '-', '+')).length).toBe(8000);
    expect(await r.dbsize()).toBe(3);
  } finally {
    r.disconnect();
    await server.shutdown();
  }
}, 120_000);
