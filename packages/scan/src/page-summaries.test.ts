import {
  copyKey,
  createRecordSpace,
  keyOffsetOf,
  PAGE_HEADER_SIZE,
  RecordFlag,
  RecordType,
  recordSize,
  writeRecordHeader,
} from '@strata/hlog';
import { afterEach, describe, expect, it } from 'vitest';
import { k, openTiny, removeTempDirs, reopenLast, rng } from '../test/support.js';
import { compileGlob } from './glob-matcher.js';
import { KeyScanner, type ScanOptions } from './key-scanner.js';
import type { PageContext } from './log-iterator.js';
import { PageSummaries, type SummaryQuery } from './page-summaries.js';
import { buildSummaries, countKeys, forEachLive, listKeys } from './whole-log.js';

afterEach(removeTempDirs);

const NONE = new Uint8Array(0);
const TYPES = [
  RecordType.STRING,
  RecordType.HASH,
  RecordType.SET,
  RecordType.ZSET,
  RecordType.LIST,
] as const;

/** A fake device page of records (type, key, expiry; a 1-byte value), written by hlog. */
function fakePage(address: number, records: Array<[number, string, number]>): PageContext {
  const rec = createRecordSpace(1024);
  let off = PAGE_HEADER_SIZE;
  for (const [type, key, exp] of records) {
    const flags = exp !== 0 ? RecordFlag.HAS_EXPIRY : 0;
    const size = recordSize(key.length, 1, exp !== 0);
    writeRecordHeader(rec, off, 0, flags, type, key.length, 1, exp, size);
    rec.bytes.write(key, keyOffsetOf(rec, off), 'latin1');
    off += size;
  }
  return { address, rec, base: 0, used: off, onDisk: true };
}

async function allKeys(scanner: KeyScanner, options: ScanOptions): Promise<string[]> {
  const out = new Set<string>();
  let cursor = 0;
  do {
    const r = await scanner.scan(cursor, options);
    for (const key of r.keys) out.add(key.toString());
    cursor = r.cursor;
  } while (cursor !== 0);
  return [...out].sort();
}

describe('PageSummaries', () => {
  it('says "cannot match" only for absent types, absent prefixes, or all expired', async () => {
    const store = await openTiny();
    const s = new PageSummaries(store.log);
    const P = store.log.pageSize;
    s.observe(
      fakePage(0, [
        [0, 'user:1', 0],
        [3, 'session:9', 500],
      ]),
    );
    s.observe(
      fakePage(P, [
        [0, 'tmp:1', 100],
        [0, 'tmp:2', 200],
      ]),
    );
    const q = (over: Partial<SummaryQuery>): SummaryQuery => ({
      typeCode: -1,
      prefix: NONE,
      now: 0,
      ...over,
    });
    expect(s.cannotMatch(0, q({}))).toBe(false);
    expect(s.cannotMatch(0, q({ typeCode: 0 }))).toBe(false);
    expect(s.cannotMatch(0, q({ typeCode: 3 }))).toBe(false);
    expect(s.cannotMatch(0, q({ typeCode: 4 }))).toBe(true);
    for (const prefix of ['u', 'us', 'user', 'user:1', 'user:1234', 's', 'sess']) {
      expect(s.cannotMatch(0, q({ prefix: k(prefix) })), prefix).toBe(false);
    }
    // With two keys, most other prefixes are not in the 512-bit set.
    const absent = ['x', 'zz', 'abc', 'q', 'w:', 'nope'].filter((p) =>
      s.cannotMatch(0, q({ prefix: k(p) })),
    );
    expect(absent.length).toBeGreaterThanOrEqual(4);
    // Page 0 has a record without expiry: never all expired.
    expect(s.cannotMatch(0, q({ now: 1e15 }))).toBe(false);
    expect(s.cannotMatch(P, q({ now: 199 }))).toBe(false);
    expect(s.cannotMatch(P, q({ now: 200 }))).toBe(true);
    // Unknown pages are never skipped.
    expect(s.cannotMatch(5 * P, q({ typeCode: 9 }))).toBe(false);
    await store.close();
  });

  it('scans with summaries return exactly what scans without them return', async () => {
    let now = 50_000;
    const store = await openTiny({ clock: () => now });
    const rand = rng(99);
    const prefixes = ['alpha:', 'beta:', 'gamma:', 'x'];
    // Clustered writes: each run of keys shares a prefix, so pages differ.
    for (let run = 0; run < 60; run++) {
      const prefix = prefixes[Math.floor(rand() * prefixes.length)]!;
      const ttl = rand() < 0.3 ? 1 + Math.floor(rand() * 400) : 0;
      // Runs of one type too, so pages differ in the types they hold.
      const type = TYPES[Math.floor(rand() * TYPES.length)]!;
      for (let i = 0; i < 25; i++) {
        const key = `${prefix}${Math.floor(rand() * 400)}`;
        if (rand() < 0.1) await store.delete(k(key));
        else await store.set(k(key), k(`v${run}`), ttl === 0 ? { type } : { ttlMs: ttl, type });
      }
    }
    now += 200;
    const summaries = new PageSummaries(store.log);
    expect(await buildSummaries(store, summaries)).toBeGreaterThan(0);
    const clock = (): number => now;
    const plain = new KeyScanner(store, { clock });
    const sieved = new KeyScanner(store, { clock, summaries });
    const patterns = ['*', 'alpha:*', 'beta:1*', 'x*', 'gamma:?', '*:3', 'zeta:*', 'ALPHA:*'];
    for (const match of patterns) {
      for (const options of [
        { match, count: 7 },
        { match, count: 50, type: 'string' },
        { match, count: 30, type: 'zset' },
        { match, count: 30, type: 'list' },
        { match, nocase: true, count: 20 },
      ]) {
        expect(await allKeys(sieved, options), JSON.stringify(options)).toEqual(
          await allKeys(plain, options),
        );
      }
      const glob = compileGlob(k(match));
      const naive = (await listKeys(store, '*', { clock }))
        .map((b) => b.toString())
        .filter((key) => glob.match(k(key)))
        .sort();
      expect((await listKeys(store, match, { clock, summaries })).map(String).sort()).toEqual(
        naive,
      );
    }
    expect(await countKeys(store, { clock, summaries })).toBe(await countKeys(store, { clock }));
    for (const type of ['string', 'hash', 'set', 'zset', 'list']) {
      const plainKeys: string[] = [];
      await forEachLive(store, { type }, (r, o) => plainKeys.push(copyKey(r, o).toString()), {
        clock,
      });
      expect(plainKeys.length, type).toBeGreaterThan(0);
      const sievedKeys: string[] = [];
      const stats = await forEachLive(
        store,
        { type },
        (r, o) => sievedKeys.push(copyKey(r, o).toString()),
        { clock, summaries },
      );
      expect(sievedKeys.sort(), type).toEqual(plainKeys.sort());
      expect(stats.skippedPages, type).toBeGreaterThan(0);
    }
    expect(sieved.skippedPages).toBeGreaterThan(0);
    await store.close();
  });

  it('reads only the pages that can match a rare prefix', async () => {
    const store = await openTiny();
    for (let i = 0; i < 1500; i++) {
      await store.set(k(i >= 700 && i < 720 ? `rare:${i}` : `bulk:${i}`), k(`value-${i}`));
    }
    const summaries = new PageSummaries(store.log);
    await buildSummaries(store, summaries);
    const stats = await forEachLive(store, { match: 'rare:*' }, () => {}, { summaries });
    const pages = stats.diskPages + stats.memoryPages + stats.skippedPages;
    expect(stats.skippedPages).toBeGreaterThan(pages * 0.9);
    expect(stats.diskPages).toBeLessThanOrEqual(4);
    expect(await listKeys(store, 'rare:*', { summaries })).toHaveLength(20);
    await store.close();
  });

  it('fills from memory as scans run, and is rebuilt after a restart', async () => {
    const store = await openTiny();
    const summaries = new PageSummaries(store.log);
    const scanner = new KeyScanner(store, { summaries });
    for (let i = 0; i < 800; i++) {
      await store.set(k(`m:${i}`), k(`v${i}`));
      if (i % 20 === 0) await scanner.scan(0, { count: 1 });
    }
    // Every page went through memory while a scan ran: all summarized without reads.
    const before = summaries.summarized;
    expect(before).toBeGreaterThan(10);
    expect(await buildSummaries(store, summaries)).toBeLessThanOrEqual(2);
    await store.close();
    const again = await reopenLast();
    const fresh = new PageSummaries(again.log);
    expect(await buildSummaries(again, fresh)).toBeGreaterThan(10);
    expect(await buildSummaries(again, fresh)).toBe(0);
    expect(await countKeys(again, { summaries: fresh })).toBe(800);
    await again.close();
  });
});
