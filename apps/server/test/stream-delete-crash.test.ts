import { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { dirForFile, StrataProcess } from './strata-process.js';

/**
 * DEL of a large stream on disk deletes its head, then its blocks in the
 * background, slice by slice. strata-server killed (SIGKILL) right after
 * the DEL, or right after a SAVE taken while the blocks are being deleted,
 * must come back with the stream whole or gone, never
 * a head whose blocks are missing: every entry reads back, or none does.
 */
const SMALL = ['--memory', '64kb', '--page-size', '16kb'];
const ENTRIES = 80_000; // 80 sealed blocks: more than one slice of deletes

const tmp = dirForFile('strata-stream-crash-');

async function client(port: number): Promise<Redis> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
  await r.connect();
  return r;
}

async function fill(r: Redis, n: number): Promise<void> {
  for (let at = 0; at < n; at += 2000) {
    const p = r.pipeline();
    for (let i = at; i < Math.min(n, at + 2000); i++) p.xadd('s', `${i + 1}-0`, 'f', `v${i}`);
    await p.exec();
  }
}

/** The stream is all there, entry by entry, or not there at all. */
async function wholeOrGone(r: Redis): Promise<'whole' | 'gone'> {
  if ((await r.exists('s')) === 0) return 'gone';
  expect(await r.xlen('s')).toBe(ENTRIES);
  let seen = 0;
  let from = '-';
  for (;;) {
    const page = await r.xrange('s', from, '+', 'COUNT', 5000);
    if (page.length === 0) break;
    for (const [id, fields] of page) {
      seen++;
      expect(id).toBe(`${seen}-0`);
      expect(fields).toEqual(['f', `v${seen - 1}`]);
    }
    from = `(${page[page.length - 1]![0]}`;
  }
  expect(seen).toBe(ENTRIES);
  return 'whole';
}

describe('a crash while a stream is being deleted', () => {
  test('leaves the stream whole or gone, never half of it', async () => {
    const outcomes: string[] = [];
    // How the kill meets the delete: right after it, or after a SAVE whose
    // checkpoint lands while the blocks are still being deleted.
    for (const when of ['after-del', 'after-save'] as const) {
      const dir = `${tmp.path}/${when}`;
      let t = await StrataProcess.start(['--port', '0', '--dir', dir, ...SMALL]);
      let r = await client(t.port);
      await fill(r, ENTRIES);
      await r.set('k', 'v');
      expect(await r.save()).toBe('OK');
      r.disconnect();
      await t.process.stop();
      // Started again: the head is on disk, not cached.
      t = await StrataProcess.start(['--port', '0', '--dir', dir, ...SMALL]);
      r = await client(t.port);
      expect(await r.del('s')).toBe(1);
      if (when === 'after-save') expect(await r.save()).toBe('OK');
      r.disconnect();
      await t.process.stop('SIGKILL');

      t = await StrataProcess.start(['--port', '0', '--dir', dir, ...SMALL]);
      r = await client(t.port);
      outcomes.push(`${when}: ${await wholeOrGone(r)}`);
      expect(await r.get('k')).toBe('v');
      // The key is usable: a new stream under it reads back.
      await r.del('s');
      await r.xadd('s', '1-0', 'a', 'b');
      expect(await r.xrange('s', '-', '+')).toEqual([['1-0', ['a', 'b']]]);
      r.disconnect();
      await t.process.stop('SIGKILL');
    }
    // A checkpoint after the DEL keeps it; none before the kill brings the stream back whole.
    expect(outcomes).toEqual(['after-del: whole', 'after-save: gone']);
  }, 240_000);
});
