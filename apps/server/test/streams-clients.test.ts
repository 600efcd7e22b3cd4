import Redis from 'ioredis';
import { createClient, createClientPool } from 'redis';
import { describe, expect, test } from 'vitest';
import { StrataProcess, serverForFile, tempDir } from './strata-process.js';

/**
 * Streams through the libraries Node programs use, against a real
 * strata-server process: ioredis's stream calls, node-redis's typed stream
 * API with blocking reads on a client pool (each blocking command on a
 * connection of its own), and a restart that keeps groups and PELs.
 */
const server = serverForFile();

function ioredis(): Redis {
  return new Redis({ port: server.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
}

describe('ioredis', () => {
  test('XADD, XRANGE, XREVRANGE, XLEN, XTRIM, XDEL', async () => {
    const r = ioredis();
    try {
      const a = (await r.xadd('io:s', '*', 'n', '1'))!;
      const b = (await r.xadd('io:s', '*', 'n', '2'))!;
      expect(a).toMatch(/^\d+-\d+$/);
      await r.xadd('io:s', 'MAXLEN', '~', '1000', '*', 'n', '3');
      expect(await r.xlen('io:s')).toBe(3);
      const all = await r.xrange('io:s', '-', '+');
      expect(all.map(([, f]) => f)).toEqual([
        ['n', '1'],
        ['n', '2'],
        ['n', '3'],
      ]);
      expect((await r.xrevrange('io:s', '+', '-', 'COUNT', 1))[0]![1]).toEqual(['n', '3']);
      expect(await r.xrange('io:s', `(${a}`, b)).toEqual([[b, ['n', '2']]]);
      expect(await r.xdel('io:s', a)).toBe(1);
      expect(await r.xtrim('io:s', 'MAXLEN', 1)).toBe(1);
      expect(await r.xlen('io:s')).toBe(1);
      await expect(r.xadd('io:s', '1-1', 'x', 'y')).rejects.toThrow(/equal or smaller/);
    } finally {
      r.disconnect();
    }
  });

  test('a consumer group: XREADGROUP BLOCK woken by XADD on another connection, XACK, XPENDING, XAUTOCLAIM', async () => {
    const consumer = ioredis();
    const producer = ioredis();
    try {
      expect(await producer.xgroup('CREATE', 'io:jobs', 'workers', '$', 'MKSTREAM')).toBe('OK');
      const read = consumer.xreadgroup(
        'GROUP',
        'workers',
        'w1',
        'COUNT',
        10,
        'BLOCK',
        5000,
        'STREAMS',
        'io:jobs',
        '>',
      );
      await until(async () => /blocked_clients:1/.test(await producer.info('clients')));
      const id = (await producer.xadd('io:jobs', '*', 'job', 'resize'))!;
      expect(await read).toEqual([['io:jobs', [[id, ['job', 'resize']]]]]);
      const summary = (await producer.xpending('io:jobs', 'workers')) as unknown[];
      expect(summary.slice(0, 3)).toEqual([1, id, id]);
      expect(summary[3]).toEqual([['w1', '1']]);
      const claimed = (await producer.xautoclaim(
        'io:jobs',
        'workers',
        'w2',
        0,
        '0-0',
      )) as unknown[];
      expect(claimed[1]).toEqual([[id, ['job', 'resize']]]);
      expect(await producer.xack('io:jobs', 'workers', id)).toBe(1);
      expect(((await producer.xpending('io:jobs', 'workers')) as unknown[])[0]).toBe(0);
      const groups = (await producer.xinfo('GROUPS', 'io:jobs')) as unknown[][];
      expect(groups[0]!.slice(0, 8)).toEqual([
        'name',
        'workers',
        'consumers',
        2,
        'pending',
        0,
        'last-delivered-id',
        id,
      ]);
    } finally {
      consumer.disconnect();
      producer.disconnect();
    }
  });
});

describe('node-redis', () => {
  test('xAdd, xRange, xReadGroup on a pool (blocking reads isolated), xAck, xInfoStream', async () => {
    const url = `redis://127.0.0.1:${server.port}`;
    const client = createClient({ url });
    const pool = createClientPool({ url });
    await client.connect();
    await pool.connect();
    try {
      await client.xGroupCreate('nr:events', 'g', '$', { MKSTREAM: true });
      // Two blocked consumers, each on a pooled connection of its own.
      const reads = [
        pool.xReadGroup('g', 'c1', { key: 'nr:events', id: '>' }, { COUNT: 1, BLOCK: 5000 }),
        pool.xReadGroup('g', 'c2', { key: 'nr:events', id: '>' }, { COUNT: 1, BLOCK: 5000 }),
      ];
      await until(async () => /blocked_clients:2/.test(await client.info('clients')));
      const first = await client.xAdd('nr:events', '*', { kind: 'a' });
      const second = await client.xAdd('nr:events', '*', { kind: 'b' });
      const got = await Promise.all(reads);
      const delivered = got.map((r) => {
        const streams = r as {
          name: string;
          messages: { id: string; message: Record<string, string> }[];
        }[];
        expect(streams[0]!.name).toBe('nr:events');
        return streams[0]!.messages[0]!;
      });
      expect(delivered.map((m) => m.id).sort()).toEqual([first, second].sort());
      expect(delivered.map((m) => m.message.kind).sort()).toEqual(['a', 'b']);
      expect(await client.xAck('nr:events', 'g', [first, second])).toBe(2);
      const range = await client.xRange('nr:events', '-', '+');
      expect(range.map((m) => m.message)).toEqual([{ kind: 'a' }, { kind: 'b' }]);
      const info = await client.xInfoStream('nr:events');
      expect(info.length).toBe(2);
      expect(info.groups).toBe(1);
    } finally {
      await client.quit();
      await pool.close();
    }
  });
});

describe('a restart', () => {
  test('after SIGKILL, the AOF brings back entries, groups, consumers and pending entries', async () => {
    const d = await tempDir();
    const args = ['--port', '0', '--dir', d.path, '--appendonly', 'yes', '--appendfsync', 'always'];
    const s = await StrataProcess.start(args);
    try {
      const a = new Redis({ port: s.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
      await a.xgroup('CREATE', 'rs:s', 'g', '0', 'MKSTREAM');
      const ids: string[] = [];
      for (let i = 0; i < 50; i++) ids.push((await a.xadd('rs:s', '*', 'i', String(i))) as string);
      await a.xreadgroup('GROUP', 'g', 'alice', 'COUNT', 20, 'STREAMS', 'rs:s', '>');
      await a.xack('rs:s', 'g', ids[0]!, ids[1]!);
      a.disconnect();
      // SIGKILL: what the AOF acknowledged must come back.
      s.process.child.kill('SIGKILL');
      await s.process.exited;
      const again = await StrataProcess.start(args);
      const r2 = new Redis({ port: again.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
      try {
        expect(await r2.xlen('rs:s')).toBe(50);
        const pending = (await r2.xpending('rs:s', 'g')) as unknown[];
        expect(pending.slice(0, 3)).toEqual([18, ids[2], ids[19]]);
        expect(pending[3]).toEqual([['alice', '18']]);
        const next = (await r2.xreadgroup(
          'GROUP',
          'g',
          'bob',
          'COUNT',
          1,
          'STREAMS',
          'rs:s',
          '>',
        )) as [string, [string, string[]][]][];
        expect(next[0]![1][0]![0]).toBe(ids[20]);
      } finally {
        r2.disconnect();
        again.process.child.kill('SIGKILL');
        await again.process.exited;
      }
    } finally {
      await d.remove();
    }
  });
});

async function until(cond: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
