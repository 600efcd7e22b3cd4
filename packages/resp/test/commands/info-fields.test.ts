import type { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { serverWithClient } from '../support/test-server.js';

/** INFO's fields that dashboards read (redis_exporter, RedisInsight), with values from this server. */
const setup = serverWithClient();
const r = (): Redis => setup.client;
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

function field(info: string, name: string): string {
  const m = new RegExp(`^${name}:(.*)\\r$`, 'm').exec(info);
  if (m === null) throw new Error(`no ${name} in INFO`);
  return m[1]!;
}

describe('INFO fields', () => {
  test("the default sections in Redis 7's order, cpu and cluster among them", async () => {
    const titles = [...(await r().info()).matchAll(/^# (\w+)\r$/gm)].map((m) => m[1]);
    expect(titles).toEqual([
      'Server',
      'Clients',
      'Memory',
      'Persistence',
      'Stats',
      'Replication',
      'CPU',
      'Modules',
      'Errorstats',
      'Cluster',
      'Keyspace',
    ]);
    expect(await r().info('cluster')).toBe('# Cluster\r\ncluster_enabled:0\r\n');
    const cpu = await r().info('cpu');
    expect(Number(field(cpu, 'used_cpu_user'))).toBeGreaterThan(0);
  });

  test('run_id, memory in bytes and human form, the peak', async () => {
    const info = await r().info('everything');
    expect(field(info, 'run_id')).toMatch(/^[0-9a-f]{40}$/);
    expect(field(await r().info('server'), 'run_id')).toBe(field(info, 'run_id'));
    const used = Number(field(info, 'used_memory'));
    expect(field(info, 'used_memory_human')).toMatch(/^\d+\.\d{2}[KMG]$/);
    expect(Number(field(info, 'used_memory_peak'))).toBeGreaterThanOrEqual(used);
    expect(field(info, 'maxmemory_policy')).toBe('noeviction');
    expect(Number(field(info, 'total_system_memory'))).toBeGreaterThan(used);
  });

  test('instantaneous_ops_per_sec follows the load; expired_keys and total_error_replies count', async () => {
    const before = await r().info('stats');
    const errors = Number(field(before, 'total_error_replies'));
    const expired = Number(field(before, 'expired_keys'));
    // About half a second of pipelined PINGs: the 100 ms samples see them.
    const until = Date.now() + 500;
    while (Date.now() < until) {
      const p = r().pipeline();
      for (let i = 0; i < 200; i++) p.ping();
      await p.exec();
    }
    expect(Number(field(await r().info('stats'), 'instantaneous_ops_per_sec'))).toBeGreaterThan(0);
    await r().set('info:e', 'v', 'PX', 1);
    await sleep(10);
    expect(await r().get('info:e')).toBeNull();
    await expect(r().call('NOSUCHCOMMAND')).rejects.toThrow();
    let after = await r().info('stats');
    // Counted when the store's expiry notices it: on access or by its active cycle.
    for (let i = 0; i < 200 && Number(field(after, 'expired_keys')) === expired; i++) {
      await sleep(10);
      after = await r().info('stats');
    }
    expect(Number(field(after, 'expired_keys'))).toBe(expired + 1);
    expect(Number(field(after, 'total_error_replies'))).toBe(errors + 1);
    expect(await r().info('errorstats')).toMatch(/^# Errorstats\r\nerrorstat_ERR:count=\d+\r\n$/);
    await r().set('info:s', 'v');
    await expect(r().lpush('info:s', 'x')).rejects.toThrow('WRONGTYPE');
    expect(await r().info('errorstats')).toContain('errorstat_WRONGTYPE:count=1\r\n');
  });
});
