import { describe, expect, it } from 'vitest';
import { decodeKeyCount, encodeKeyCount, KeyCount } from './key-count.js';
import { K_ABSENT, K_EXPIRING, K_PLAIN } from './step-codes.js';

function counter(): { count: KeyCount; clock: { now: number } } {
  const clock = { now: 1_000 };
  // No device here: these writes never leave a state unresolved.
  const count = new KeyCount(
    () => clock.now,
    () => Promise.reject(new Error('no chain reads in this test')),
  );
  return { count, clock };
}

describe('KeyCount', () => {
  it('markEncoded: the count of its call, encoded in slices while the keys keep changing', async () => {
    const { count } = counter();
    for (let i = 0; i < 40_000; i++) count.changed(Buffer.from(`e${i}`), K_ABSENT, 5_000 + i, 0);
    for (let i = 0; i < 1_000; i++) count.changed(Buffer.from(`p${i}`), K_ABSENT, 0, 0);
    const expected = count.snapshot();
    const encoding = count.markEncoded();
    // Between the slices: keys with an expiry deleted, added, made plain.
    let turns = 0;
    let done = false;
    void encoding.then(() => {
      done = true;
    });
    while (!done) {
      turns++;
      for (let j = 0; j < 300; j++) {
        const i = turns * 300 + j;
        count.changed(Buffer.from(`e${i}`), K_EXPIRING, -1, 0);
        count.changed(Buffer.from(`new${i}`), K_ABSENT, 9_000, 0);
        count.changed(Buffer.from(`e${i + 20_000}`), K_EXPIRING, 0, 0);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(turns).toBeGreaterThan(1);
    const decoded = decodeKeyCount(Buffer.concat(await encoding));
    expect(decoded?.plain).toBe(expected.plain);
    const sort = (a: Array<[string, number]>) => [...a].sort((x, y) => (x[0] < y[0] ? -1 : 1));
    expect(sort(decoded?.expiring ?? [])).toEqual(sort(expected.expiring));
    // The same bytes as the synchronous encoding of that moment, in another order.
    expect(Buffer.concat(await encoding).length).toBe(encodeKeyCount(expected).length);
  });

  it('tells onExpired of each key whose expiry passed once, by a slice, a count or a lookup; not of a delete or a persist', async () => {
    const { count, clock } = counter();
    const heard: string[] = [];
    count.onExpired = (key) => heard.push(key.toString('latin1'));
    for (let i = 0; i < 50; i++) count.changed(Buffer.from(`k${i}`), K_ABSENT, 2_000 + i, 0);
    count.changed(Buffer.from('later'), K_ABSENT, 99_000, 0);
    count.changed(Buffer.from('k0'), K_EXPIRING, -1, 0); // deleted: no event
    count.changed(Buffer.from('k1'), K_EXPIRING, 0, 0); // persisted: no event
    clock.now = 2_010;
    // Slices of 8 slots go round the table (several rounds: an entry a removal
    // shifts behind the cursor waits for the next): k2..k10 (expiry <= 2_010) are heard.
    for (let i = 0; i < 2_000; i++) count.expireSome(8);
    expect(heard.sort()).toEqual(['k10', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9']);
    heard.length = 0;
    clock.now = 2_020;
    count.expired(Buffer.from('xk11'), 1, 3); // found expired on a lookup
    count.expired(Buffer.from('k11'), 0, 3); // again: already gone, not heard twice
    expect(heard).toEqual(['k11']);
    heard.length = 0;
    expect(await count.exact()).toBe(1 + 29 + 1); // k1 plain, k21..k49, later
    expect(heard.sort()).toEqual(['k12', 'k13', 'k14', 'k15', 'k16', 'k17', 'k18', 'k19', 'k20']);
  });

  it('expiringTtl counts keys with an expiry ahead and sums their remaining time, skipping passed ones without removing them', () => {
    const { count, clock } = counter();
    count.changed(Buffer.from('a'), K_ABSENT, 2_000, 0);
    count.changed(Buffer.from('b'), K_ABSENT, 5_000, 0);
    count.changed(Buffer.from('c'), K_ABSENT, 1_500, 0);
    count.changed(Buffer.from('p'), K_ABSENT, 0, 0); // no expiry: not counted
    expect(count.expiringTtl()).toEqual({ count: 3, ttlSum: 1_000 + 4_000 + 500 });
    count.changed(Buffer.from('b'), K_EXPIRING, 0, 0); // persisted
    clock.now = 1_600; // c has passed
    expect(count.expiringTtl()).toEqual({ count: 1, ttlSum: 400 });
    expect(count.expiringSize).toBe(2); // c stays until a sweep or a count removes it
  });

  it('tracks keys with an expiry by their bytes (binary keys, overwrites, persist, delete, passing)', async () => {
    const { count, clock } = counter();
    const a = Buffer.from([0x00, 0xff, 0x80, 0x61]);
    const b = Buffer.from([0xc3, 0x28]); // not valid UTF-8
    const aView = Buffer.concat([Buffer.from('xx'), a]).subarray(2); // same bytes, other offset
    count.changed(a, K_ABSENT, 5_000, 0);
    count.changed(b, K_ABSENT, 2_000, 0);
    count.changed(Buffer.from('plain'), K_ABSENT, 0, 0);
    expect(count.hasExpiring(aView)).toBe(true);
    expect(count.hasExpiring(Buffer.from([0x00, 0xff, 0x80]))).toBe(false);
    expect(await count.exact()).toBe(3);
    // A new expiry replaces the old one: still one key.
    count.changed(a, K_EXPIRING, 9_000, 0);
    expect(count.expiringSize).toBe(2);
    clock.now = 2_000; // b's expiry passes: it no longer counts, and leaves the table
    expect(await count.exact()).toBe(2);
    expect(count.hasExpiring(b)).toBe(false);
    // PERSIST: from expiring to plain.
    count.changed(a, K_EXPIRING, 0, 0);
    expect(count.hasExpiring(a)).toBe(false);
    expect(count.plainKeys).toBe(2);
    // Expire again, then delete.
    count.changed(a, K_PLAIN, 3_000, 0);
    expect(count.hasExpiring(a)).toBe(true);
    count.changed(a, K_EXPIRING, -1, 0);
    expect(count.hasExpiring(a)).toBe(false);
    expect(await count.exact()).toBe(1);
  });

  it('forgetExpiring drops a key found expired by the active cycle (key inside a page)', async () => {
    const { count } = counter();
    const page = Buffer.alloc(64);
    page.write('key:7', 40, 'latin1');
    count.changed(Buffer.from('key:7'), K_ABSENT, 5_000, 0);
    count.changed(Buffer.from('key:8'), K_ABSENT, 5_000, 0);
    count.forgetExpiring(page, 40, 5);
    expect(count.hasExpiring(Buffer.from('key:7'))).toBe(false);
    expect(count.hasExpiring(Buffer.from('key:8'))).toBe(true);
    expect(await count.exact()).toBe(1);
  });

  it('snapshot, encode, decode and restore give the same count and keys', async () => {
    const { count, clock } = counter();
    for (let i = 0; i < 3_000; i++) {
      const key = Buffer.from([i & 0xff, i >> 8, 0xfe]);
      count.changed(key, K_ABSENT, i % 3 === 0 ? 0 : 10_000 + i, 0);
    }
    // Some expiring keys deleted again: the table shifts its probe runs.
    for (let i = 1; i < 3_000; i += 7) {
      if (i % 3 !== 0) count.changed(Buffer.from([i & 0xff, i >> 8, 0xfe]), K_EXPIRING, -1, 0);
    }
    const want = await count.exact();
    const decoded = decodeKeyCount(encodeKeyCount(count.snapshot()));
    expect(decoded).not.toBeNull();
    const copy = counter();
    copy.clock.now = clock.now;
    copy.count.restore(decoded!);
    expect(await copy.count.exact()).toBe(want);
    for (let i = 0; i < 3_000; i++) {
      const key = Buffer.from([i & 0xff, i >> 8, 0xfe]);
      expect(copy.count.hasExpiring(key)).toBe(count.hasExpiring(key));
    }
    // Past every expiry: only the plain keys are left.
    copy.clock.now = 1e9;
    expect(await copy.count.exact()).toBe(1_000);
  });
});
