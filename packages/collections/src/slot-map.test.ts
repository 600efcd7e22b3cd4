import { Prng } from '@strata/io';
import { describe, expect, it } from 'vitest';
import { cursorSlot, SlotMap, slotCursor } from './slot-map.js';

describe('SlotMap', () => {
  it('keeps members in their slots across deletes and reuses holes', () => {
    const m = new SlotMap<number>();
    for (let i = 0; i < 10; i++) m.set(`k${i}`, i);
    expect(m.size).toBe(10);
    expect(m.delete('k3')).toBe(true);
    expect(m.delete('k3')).toBe(false);
    expect(m.keyAt(4)).toBe('k4');
    expect(m.set('new', 99)).toBe(true);
    expect(m.keyAt(3)).toBe('new');
    expect(m.set('new', 100)).toBe(false);
    expect(m.get('new')).toBe(100);
  });

  it('swap sets a key and gives back its old value, reusing holes like set', () => {
    const m = new SlotMap<string>();
    expect(m.swap('a', 'x')).toBeUndefined();
    expect(m.swap('b', 'y')).toBeUndefined();
    expect(m.swap('a', 'z')).toBe('x');
    expect(m.get('a')).toBe('z');
    expect(m.size).toBe(2);
    m.delete('a');
    expect(m.swap('c', 'w')).toBeUndefined();
    expect(m.keyAt(0)).toBe('c');
    expect(m.size).toBe(2);
  });

  it('compacts once holes outnumber members and bumps the epoch', () => {
    const m = new SlotMap<number>();
    for (let i = 0; i < 300; i++) m.set(`k${i}`, i);
    const epoch = m.epoch;
    for (let i = 0; i < 200; i++) m.delete(`k${i}`);
    expect(m.epoch).toBeGreaterThan(epoch);
    expect(m.slotCount).toBeLessThan(300);
    for (let i = 200; i < 300; i++) expect(m.get(`k${i}`)).toBe(i);
  });

  it('a cursor walk returns every member present throughout, despite concurrent changes', () => {
    const rng = new Prng(7);
    const m = new SlotMap<number>();
    for (let i = 0; i < 2000; i++) m.set(`k${i}`, i);
    const stable = new Set<string>();
    for (let i = 0; i < 1000; i++) stable.add(`k${i}`);
    const seen = new Set<string>();
    let cursor = 0;
    let calls = 0;
    do {
      let slot = cursorSlot(cursor, m.epoch);
      const end = Math.min(m.slotCount, slot + 37);
      for (; slot < end; slot++) {
        const k = m.keyAt(slot);
        if (k !== undefined) seen.add(k);
      }
      cursor = slot >= m.slotCount ? 0 : slotCursor(slot, m.epoch);
      // Churn among the unstable members (compactions included).
      for (let j = 0; j < 40; j++) {
        const k = `k${1000 + Math.floor(rng.next() * 3000)}`;
        if (rng.next() < 0.7) m.delete(k);
        else m.set(k, 0);
      }
      calls++;
    } while (cursor !== 0 && calls < 100_000);
    for (const k of stable) expect(seen.has(k)).toBe(true);
  });

  it('picks random occupied slots', () => {
    const m = new SlotMap<number>();
    for (let i = 0; i < 100; i++) m.set(`k${i}`, i);
    for (let i = 0; i < 60; i++) m.delete(`k${i}`);
    const rng = new Prng(1);
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) seen.add(m.keyAt(m.randomSlot(() => rng.next()))!);
    expect(seen.size).toBe(40);
  });
});
