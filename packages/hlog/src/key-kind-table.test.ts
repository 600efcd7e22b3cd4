import { describe, expect, it } from 'vitest';
import { hashKey } from './key-hash.js';
import { KeyKind, KeyKindTable } from './key-kind-table.js';

describe('KeyKindTable', () => {
  it('keeps the newest kind per key like a Map, through growth, shared hashes and long keys', () => {
    const table = new KeyKindTable();
    const model = new Map<string, number>();
    let seed = 5;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const kinds = [KeyKind.PLAIN, KeyKind.DELETED, KeyKind.EXPIRING] as const;
    for (let i = 0; i < 40_000; i++) {
      // Now and then a key longer than an arena chunk (a chunk of its own).
      const tail = i % 9_973 === 0 ? 'z'.repeat((1 << 20) + 100) : 'x'.repeat(rand(40));
      const name = `key-${rand(8000)}${tail}`;
      const key = Buffer.from(`..${name}`);
      // Shared hashes (also equal in the 30 bits the table keeps): told apart by bytes.
      const r = rand(8);
      const hash = r === 0 ? 12345 : r === 1 ? 12345 + 2 ** 40 : hashKey(key.subarray(2));
      const kind = kinds[rand(3)]!;
      const previous = table.set(key, 2, key.length - 2, hash, kind);
      const id = `${hash}:${name}`;
      expect(previous).toBe(model.get(id) ?? 0);
      model.set(id, kind);
    }
    expect(table.size).toBe(model.size);
    for (const kind of kinds) {
      expect(table.count(kind)).toBe([...model.values()].filter((k) => k === kind).length);
    }
  });

  it('reserve on an empty table takes the size at once and keeps working', () => {
    const table = new KeyKindTable();
    table.reserve(100_000);
    const key = Buffer.alloc(8);
    for (let i = 0; i < 100_000; i++) {
      key.writeUInt32LE(i, 0);
      expect(table.set(key, 0, 8, hashKey(key), KeyKind.PLAIN)).toBe(0);
    }
    key.writeUInt32LE(77, 0);
    expect(table.set(key, 0, 8, hashKey(key), KeyKind.DELETED)).toBe(KeyKind.PLAIN);
    expect(table.count(KeyKind.PLAIN)).toBe(99_999);
    expect(table.count(KeyKind.DELETED)).toBe(1);
  });
});
