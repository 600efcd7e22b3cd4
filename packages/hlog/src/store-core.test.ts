import { MemoryDevice } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { StoreCore } from './store.js';
import { SetFlag } from './store-types.js';

const k = (s: string) => Buffer.from(s);

function tiny(clock?: () => number) {
  const device = new MemoryDevice({ segmentSize: 1 << 16 });
  return new StoreCore({ device, memory: 4096, pageSize: 1024, indexBuckets: 16, clock });
}

describe('store core', () => {
  it('sets, gets, overwrites and deletes in memory synchronously', () => {
    const s = tiny();
    expect(s.read(k('a')).status).toBe('notFound');
    expect(s.upsert(k('a'), k('one')).status).toBe('ok');
    const v = s.read(k('a'));
    expect(v.status).toBe('found');
    if (v.status !== 'found') return;
    expect(v.bytes.subarray(v.offset, v.offset + v.length).toString()).toBe('one');
    // Mutable region: shorter and same-slot values update in place.
    const tail = s.log.tail;
    s.upsert(k('a'), k('two'));
    expect(s.log.tail).toBe(tail);
    s.upsert(k('a'), k('a much longer value than before'));
    expect(s.log.tail).toBeGreaterThan(tail);
    const r = s.read(k('a'));
    expect(r.status === 'found' && r.bytes.toString('utf8', r.offset, r.offset + r.length)).toBe(
      'a much longer value than before',
    );
    expect(s.remove(k('a')).status).toBe('deleted');
    expect(s.read(k('a')).status).toBe('notFound');
    expect(s.remove(k('a')).status).toBe('notFound');
  });

  it('honours NX, XX, GET and KEEPTTL', async () => {
    const now = 1000;
    const s = tiny(() => now);
    expect((await s.set(k('x'), k('1'), { xx: true })).status).toBe('notSet');
    expect((await s.set(k('x'), k('1'), { nx: true })).status).toBe('ok');
    expect((await s.set(k('x'), k('2'), { nx: true })).status).toBe('notSet');
    const g = await s.set(k('x'), k('3'), { get: true });
    expect(g.old?.toString()).toBe('1');
    await s.set(k('x'), k('4'), { ttlMs: 500 });
    expect(await s.ttl(k('x'))).toBe(500);
    await s.set(k('x'), k('5'), { keepTtl: true });
    expect(await s.ttl(k('x'))).toBe(500);
    await s.set(k('x'), k('6'));
    expect(await s.ttl(k('x'))).toBe(-1);
    expect(await s.ttl(k('nope'))).toBe(-2);
    expect(s.upsert(k('x'), k('7'), 0, SetFlag.NX).status).toBe('notSet');
  });

  it('expires lazily and supports expire/persist', async () => {
    let now = 1000;
    const s = tiny(() => now);
    await s.set(k('e'), k('v'), { ttlMs: 100 });
    expect(await s.exists(k('e'))).toBe(true);
    now = 1100;
    expect(await s.exists(k('e'))).toBe(false);
    expect((await s.get(k('e'))).status).toBe('notFound');
    await s.set(k('p'), k('v'));
    expect(await s.persist(k('p'))).toBe(false);
    expect(await s.expire(k('p'), 50)).toBe(true);
    expect(await s.ttl(k('p'))).toBe(50);
    expect(await s.persist(k('p'))).toBe(true);
    expect(await s.ttl(k('p'))).toBe(-1);
    expect(await s.expire(k('missing'), 50)).toBe(false);
    expect(await s.expire(k('p'), -1)).toBe(true);
    expect(await s.exists(k('p'))).toBe(false);
  });

  it('INCR, APPEND, SETRANGE and rmw', async () => {
    const s = tiny();
    expect(await s.incrBy(k('n'))).toBe(1);
    expect(await s.incrBy(k('n'), 41)).toBe(42);
    expect(await s.incrBy(k('n'), -50)).toBe(-8);
    await s.set(k('big'), k('9223372036854775806'));
    expect(await s.incrBy(k('big'))).toBe(9223372036854775807n);
    await expect(s.incrBy(k('big'))).rejects.toMatchObject({ code: 'ERR_INCR_OVERFLOW' });
    await s.set(k('s'), k('abc'));
    await expect(s.incrBy(k('s'))).rejects.toMatchObject({ code: 'ERR_NOT_INTEGER' });
    expect(await s.append(k('s'), k('def'))).toBe(6);
    expect(await s.append(k('new'), k('xy'))).toBe(2);
    expect(await s.setRange(k('s'), 8, k('Z'))).toBe(9);
    expect((await s.get(k('s'))).status === 'found').toBe(true);
    const r = await s.get(k('s'));
    expect(r.status === 'found' && r.value).toEqual(Buffer.from('abcdef\0\0Z'));
    expect(await s.setRange(k('none'), 3, k(''))).toBe(0);
    const u = await s.rmw(k('s'), (old) =>
      old ? Buffer.from(old.toString().toUpperCase()) : null,
    );
    expect(u.status === 'ok' && u.value.toString()).toBe('ABCDEF\0\0Z');
    expect((await s.rmw(k('absent'), () => null)).status).toBe('notFound');
  });

  it('reads records from the device, following the chain', async () => {
    const s = tiny();
    const n = 300;
    for (let i = 0; i < n; i++) {
      const v = s.upsert(k(`key${i}`), k(`value-${i}-${'x'.repeat(i % 40)}`));
      if (v.status === 'pending') await v.pending;
    }
    expect(s.log.head).toBeGreaterThan(0);
    let pending = 0;
    for (let i = 0; i < n; i++) {
      const r = s.read(k(`key${i}`));
      if (r.status === 'pending') pending++;
      const got = await s.get(k(`key${i}`));
      expect(got.status === 'found' && got.value.toString()).toBe(
        `value-${i}-${'x'.repeat(i % 40)}`,
      );
    }
    expect(pending).toBeGreaterThan(n / 2);
    // Updates of on-disk records copy to the tail.
    expect(await s.incrBy(k('cnt'), 5)).toBe(5);
    expect(await s.append(k('key0'), k('!'))).toBe('value-0-!'.length);
    expect(await s.delete(k('key1'))).toBe(true);
    expect(await s.exists(k('key1'))).toBe(false);
    expect((await s.set(k('key2'), k('z'), { nx: true })).status).toBe('notSet');
    expect((await s.set(k('key2'), k('z'), { xx: true, get: true })).old?.toString()).toBe(
      'value-2-xx',
    );
  });

  it('keeps concurrent pending increments on one key linearizable', async () => {
    const s = tiny();
    await s.set(k('c'), k('0'));
    for (let i = 0; i < 200; i++) await s.set(k(`filler${i}`), Buffer.alloc(20, i));
    const ops = [];
    for (let i = 0; i < 50; i++) ops.push(s.incrBy(k('c')));
    const results = await Promise.all(ops);
    expect(new Set(results).size).toBe(50);
    const r = await s.get(k('c'));
    expect(r.status === 'found' && r.value.toString()).toBe('50');
  });

  it('stores large values as blobs', async () => {
    const s = tiny();
    const big = Buffer.alloc(10_000);
    for (let i = 0; i < big.length; i++) big[i] = i * 7;
    await s.set(k('big'), big);
    const r = await s.get(k('big'));
    expect(r.status === 'found' && r.value.equals(big)).toBe(true);
    expect(await s.append(k('big'), k('tail'))).toBe(10_004);
    const r2 = await s.get(k('big'));
    expect(r2.status === 'found' && r2.value.subarray(10_000).toString()).toBe('tail');
    expect(await s.expire(k('big'), 100_000)).toBe(true);
    const r3 = await s.get(k('big'));
    expect(r3.status === 'found' && r3.value.length).toBe(10_004);
    await s.set(k('small'), k('s'));
    expect(await s.append(k('small'), Buffer.alloc(500, 1))).toBe(501);
  });
});
