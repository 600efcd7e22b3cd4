import type Redis from 'ioredis';
import { describe, expect, test } from 'vitest';
import { bothServers, clientFields, rawClientId, useTarget } from '../support/both-servers.js';
import { RawClient } from '../support/test-server.js';

/**
 * Client tracking behaviour that transcripts cannot hold byte for byte
 * (client ids, INFO counters, a bounded table), checked the same way
 * against strata and, when it is installed, a live redis-server.
 */
const targets = bothServers('client tracking');

async function info(r: Redis, section: string, name: string): Promise<number> {
  const text = await r.info(section);
  return Number(text.match(new RegExp(`^${name}:(\\d+)`, 'm'))?.[1]);
}

/** A RESP3 raw connection with tracking turned on by `options`; its client id. */
async function tracker(
  port: number,
  ...options: string[]
): Promise<{ raw: RawClient; id: number }> {
  const raw = await RawClient.connect(port);
  raw.send('hello', '3');
  await raw.readUntil((s) => s.includes('modules'));
  raw.take();
  const id = await rawClientId(raw);
  raw.send('client', 'tracking', 'on', ...options);
  await raw.readUntil((s) => s === '+OK\r\n');
  raw.take();
  return { raw, id };
}

describe.each(targets)('client tracking on %s', (_name, start) => {
  const t = useTarget(start);

  test('GETREDIR, TRACKINGINFO and CLIENT LIST name the redirect client; flags t, B', async () => {
    const target = await tracker(t.port);
    const a = await tracker(t.port, 'redirect', String(target.id));
    a.raw.send('client', 'getredir');
    expect(await a.raw.readUntil((s) => s.endsWith('\r\n'))).toBe(`:${target.id}\r\n`);
    a.raw.take();
    a.raw.send('client', 'trackinginfo');
    const infoReply = await a.raw.readUntil((s) => s.includes('prefixes'));
    expect(infoReply).toContain(`$8\r\nredirect\r\n:${target.id}\r\n`);
    expect(await clientFields(t.redis, a.id)).toMatchObject({
      flags: 't',
      redir: String(target.id),
    });
    const b = await tracker(t.port, 'bcast');
    expect(await clientFields(t.redis, b.id)).toMatchObject({ flags: 'tB', redir: '0' });
    expect(await info(t.redis, 'clients', 'tracking_clients')).toBe(3);
    expect(await info(t.redis, 'stats', 'tracking_total_prefixes')).toBe(1);
    for (const c of [target, a, b]) c.raw.close();
  });

  test('a redirect client that went away: the tracker is told tracking-redir-broken and flagged R', async () => {
    const target = await tracker(t.port);
    const a = await tracker(t.port, 'redirect', String(target.id));
    a.raw.send('get', 'broken:a');
    await a.raw.readUntil((s) => s.endsWith('_\r\n'));
    a.raw.take();
    target.raw.close();
    for (;;) {
      if ((await clientFields(t.redis, target.id)) === null) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    await t.redis.set('broken:a', '1');
    const push = await a.raw.readUntil(
      (s) => s.endsWith('\r\n') && s.includes('tracking-redir-broken'),
    );
    expect(push).toBe(`>2\r\n$21\r\ntracking-redir-broken\r\n:${target.id}\r\n`);
    expect((await clientFields(t.redis, a.id))?.flags).toBe('tR');
    a.raw.close();
    await t.redis.del('broken:a');
  });

  test('INFO counts the tracked keys and items; tracking-table-max-keys bounds the table', async () => {
    const a = await tracker(t.port);
    const b = await tracker(t.port);
    a.raw.send('mget', 'cnt:1', 'cnt:2', 'cnt:3');
    b.raw.send('mget', 'cnt:1', 'cnt:2');
    await a.raw.readUntil((s) => s.startsWith('*3'));
    await b.raw.readUntil((s) => s.startsWith('*2'));
    a.raw.take();
    b.raw.take();
    expect(await info(t.redis, 'stats', 'tracking_total_keys')).toBe(3);
    expect(await info(t.redis, 'stats', 'tracking_total_items')).toBe(5);
    expect(await t.redis.config('SET', 'tracking-table-max-keys', '2')).toBe('OK');
    try {
      expect(await t.redis.config('GET', 'tracking-table-max-keys')).toEqual([
        'tracking-table-max-keys',
        '2',
      ]);
      // One more read: the table is over its bound and some key is invalidated (Redis picks at random).
      a.raw.send('get', 'cnt:4');
      const got = await a.raw.readUntil((s) => s.includes('invalidate'), 5000);
      expect(got).toMatch(/>2\r\n\$10\r\ninvalidate\r\n\*1\r\n\$5\r\ncnt:\d\r\n/);
      for (let i = 0; i < 50 && (await info(t.redis, 'stats', 'tracking_total_keys')) > 2; i++) {
        await new Promise((res) => setTimeout(res, 20));
      }
      expect(await info(t.redis, 'stats', 'tracking_total_keys')).toBeLessThanOrEqual(2);
    } finally {
      await t.redis.config('SET', 'tracking-table-max-keys', '1000000');
      a.raw.close();
      b.raw.close();
    }
  });
});
