import { MemoryDevice } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { AccessClock, LFU_INIT_VAL, LRU_CLOCK_MAX } from './access-clock.js';
import { HashIndex } from './hash-index.js';
import { hashKey } from './key-hash.js';
import { StoreCore } from './store.js';

const k = (s: string) => Buffer.from(s);

function keyHash(i: number): number {
  const b = Buffer.alloc(16);
  b.writeUInt32LE(i, 0);
  b.writeUInt32LE(i * 3 + 5, 8);
  return hashKey(b);
}

/** A clock the test moves by hand. */
function manual(start: number): { now: () => number; set(ms: number): void } {
  let t = start;
  return { now: () => t, set: (ms) => (t = ms) };
}

describe('access clock', () => {
  it('computes idle time as Redis, across the 2^24-second wrap', () => {
    const t = manual(1_000_000_000);
    const c = new AccessClock(t.now);
    const word = c.lru;
    t.set(1_000_000_000 + 42_400);
    c.tick();
    expect(c.idleMs(word)).toBe(42_000);
    // A word from just before the wrap, read just after it.
    const wrapAt = (LRU_CLOCK_MAX + 1) * 1000;
    t.set(wrapAt + 3000);
    c.tick();
    expect(c.lru).toBe(3);
    expect(c.idleMs(LRU_CLOCK_MAX - 2)).toBe((3 + 2) * 1000);
  });

  it('counts LFU accesses logarithmically and decays per lfu-decay-time', () => {
    const t = manual(60_000 * 1000);
    const c = new AccessClock(t.now);
    c.configure({ lfu: true, logFactor: 0, decayTime: 1 });
    expect(c.fresh & 0xff).toBe(LFU_INIT_VAL);
    let w = c.fresh;
    for (let i = 0; i < 10; i++) w = c.touched(w);
    // Factor 0: every access counts.
    expect(c.decayed(w)).toBe(15);
    t.set(60_000 * 1004);
    c.tick();
    expect(c.decayed(w)).toBe(11);
    c.configure({ lfu: true, logFactor: 0, decayTime: 0 });
    expect(c.decayed(w)).toBe(15);
    // Factor 10 at counter 11 (decayed from 15): an access counts with p = 1/61.
    c.configure({ lfu: true, logFactor: 10, decayTime: 1 });
    c.random = () => 0.02;
    expect(c.touched(w) & 0xff).toBe(11);
    c.random = () => 0.01;
    expect(c.touched(w) & 0xff).toBe(12);
  });
});

describe('index access words', () => {
  it('follow their entries through splits, overflow buckets, removal and snapshots', () => {
    const t = manual(5_000_000);
    const clock = new AccessClock(t.now);
    const idx = new HashIndex({ initialBuckets: 16 });
    idx.clock = clock;
    const n = 20_000;
    // Every key gets its own word: the clock moves a second per key.
    for (let i = 1; i <= n; i++) {
      t.set(5_000_000 + i * 1000);
      clock.tick();
      idx.upsert(keyHash(i), i * 8 + 32);
    }
    expect(idx.stats().overflowBuckets).toBeGreaterThan(0);
    const expected = (i: number): number => {
      // Keys sharing an entry share its word: the first one created it.
      let first = i;
      for (let j = 1; j < i; j++) {
        if (
          idx.bucketOf(keyHash(j)) === idx.bucketOf(keyHash(i)) &&
          idx.tagOf(keyHash(j)) === idx.tagOf(keyHash(i))
        ) {
          first = j;
          break;
        }
      }
      return Math.floor((5_000_000 + first * 1000) / 1000);
    };
    for (let i = 1; i <= n; i += 97) expect(idx.accessOf(keyHash(i))).toBe(expected(i));
    // A touch rewrites one entry's word only.
    t.set(9_000_000_000);
    clock.tick();
    idx.find(keyHash(500));
    idx.touchLast();
    expect(idx.accessOf(keyHash(500))).toBe(9_000_000);
    expect(idx.accessOf(keyHash(501))).toBe(expected(501));
    // The snapshot keeps the words.
    const copy = HashIndex.fromSnapshot(Buffer.concat(idx.snapshot()));
    expect(copy.accessLoaded).toBe(true);
    for (let i = 1; i <= n; i += 97)
      expect(copy.accessOf(keyHash(i))).toBe(idx.accessOf(keyHash(i)));
    // A removed entry's slot starts afresh when reused.
    idx.remove(keyHash(500), idx.find(keyHash(500)));
    expect(idx.accessOf(keyHash(500))).toBe(-1);
    idx.upsert(keyHash(500), 8);
    expect(idx.accessOf(keyHash(500))).toBe(clock.fresh);
  });

  it('reads a format-1 snapshot (no words) and leaves the words to its owner', () => {
    const idx = new HashIndex({ initialBuckets: 16 });
    for (let i = 1; i <= 100; i++) idx.upsert(keyHash(i), i * 8 + 32);
    const bytes = Buffer.concat(idx.snapshot());
    const v1 = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
    v1[0] = 0x58444948; // 'HIDX'
    const copy = HashIndex.fromSnapshot(bytes);
    expect(copy.accessLoaded).toBe(false);
    expect(copy.find(keyHash(7))).toBe(7 * 8 + 32);
    const device = new MemoryDevice({ segmentSize: 1 << 16 });
    const core = new StoreCore(
      { device, memory: 4096, pageSize: 1024, clock: () => 77_000 },
      undefined,
      copy,
    );
    expect(core.index.accessOf(keyHash(7))).toBe(77);
  });
});

describe('store access', () => {
  function store(now: () => number): StoreCore {
    const device = new MemoryDevice({ segmentSize: 1 << 16 });
    return new StoreCore({ device, memory: 4096, pageSize: 1024, indexBuckets: 16, clock: now });
  }

  it('touches on reads and writes only while touching, and survives the move to disk', async () => {
    const t = manual(10_000_000);
    const s = store(t.now);
    s.access.touching = true;
    s.upsert(k('a'), k('1'));
    expect(s.accessWord(k('a'))).toBe(10_000);
    expect(s.accessWord(k('missing'))).toBe(-1);
    t.set(10_030_000);
    s.access.tick();
    // Not touching (OBJECT, CLIENT NO-TOUCH): a read leaves the word.
    s.access.touching = false;
    expect(s.read(k('a')).status).toBe('found');
    expect(s.access.idleMs(s.accessWord(k('a')))).toBe(30_000);
    s.access.touching = true;
    expect(s.read(k('a')).status).toBe('found');
    expect(s.access.idleMs(s.accessWord(k('a')))).toBe(0);
    // Push `a` to the device: its word stays with the index.
    t.set(10_050_000);
    s.access.tick();
    s.access.touching = false;
    for (let i = 0; i < 200; i++) {
      const v = s.upsert(k(`fill${i}`), k('x'.repeat(40)));
      if (v.status === 'pending') await v.pending;
    }
    expect(s.read(k('a')).status).toBe('pending');
    expect(s.access.idleMs(s.accessWord(k('a')))).toBe(20_000);
    // A read from the device started while touching touches when it completes,
    // whatever the clock's flag is by then.
    s.access.touching = true;
    const r = s.read(k('a'));
    s.access.touching = false;
    expect(r.status).toBe('pending');
    if (r.status === 'pending') expect((await r.pending).status).toBe('found');
    expect(s.access.idleMs(s.accessWord(k('a')))).toBe(0);
  });

  it('starts a deleted, expired or re-created key afresh under LFU, and counts writes as accesses', async () => {
    const t = manual(600_000);
    const s = store(t.now);
    s.access.configure({ lfu: true, logFactor: 0, decayTime: 1 });
    s.access.touching = true;
    s.upsert(k('a'), k('1'));
    expect(s.access.decayed(s.accessWord(k('a')))).toBe(LFU_INIT_VAL);
    // One command that finds its key twice (a read, then the write) counts once.
    s.access.command++;
    s.read(k('a'));
    s.upsert(k('a'), k('2'));
    expect(s.access.decayed(s.accessWord(k('a')))).toBe(LFU_INIT_VAL + 1);
    s.access.command++;
    s.upsert(k('a'), k('2'));
    expect(s.access.decayed(s.accessWord(k('a')))).toBe(LFU_INIT_VAL + 2);
    s.delete(k('a'));
    s.upsert(k('a'), k('3'));
    expect(s.access.decayed(s.accessWord(k('a')))).toBe(LFU_INIT_VAL);
    // An expired key written again is a new key too (its record still there).
    s.access.command++;
    s.upsert(k('e'), k('1'), t.now() + 1000);
    s.access.command++;
    s.read(k('e'));
    expect(s.access.decayed(s.accessWord(k('e')))).toBe(LFU_INIT_VAL + 1);
    t.set(600_000 + 2000);
    s.access.command++;
    s.upsert(k('e'), k('2'));
    expect(s.access.decayed(s.accessWord(k('e')))).toBe(LFU_INIT_VAL);
    // A read-modify-write (APPEND) of an expired key: a new key as well.
    s.access.command++;
    s.upsert(k('f'), k('1'), t.now() + 1000);
    s.access.command++;
    s.read(k('f'));
    t.set(600_000 + 4000);
    s.access.command++;
    expect(await s.append(k('f'), k('x'))).toBe(1);
    expect(s.access.decayed(s.accessWord(k('f')))).toBe(LFU_INIT_VAL);
    expect(s.setAccessWord(k('a'), (s.access.minutes << 8) | 100)).toBe(true);
    expect(s.access.decayed(s.accessWord(k('a')))).toBe(100);
    expect(s.setAccessWord(k('zz'), 1)).toBe(false);
  });
});
