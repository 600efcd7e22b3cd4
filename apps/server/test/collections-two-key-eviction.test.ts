import { afterAll, afterEach, expect, test } from 'vitest';
import { client } from './crash-writer.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * Two-key collection writes (SMOVE, LMOVE) when the object cache cannot
 * hold both keys (--memory 64kb: the cache's minimum budget, 64 KiB; each
 * collection here is larger): loading the second key evicts the first, and
 * an unchanged (clean) entry is dropped at once. The command must still
 * change the cached structure, not a copy the cache let go of (whose
 * `changed` is ignored): the acknowledged move must be in both keys.
 */

const dirs: { remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

const N = 3000;

async function server() {
  const dir = await tempDir('strata-two-key-');
  dirs.push(dir);
  return StrataProcess.start([
    ...['--port', '0', '--dir', dir.path, '--memory', '64kb', '--page-size', '16kb'],
    ...['--segment-size', '64kb'],
  ]);
}

test('SMOVE between two sets that do not fit the cache together moves the member', async () => {
  const { port } = await server();
  const r = client(port);
  await r.connect();
  try {
    for (const k of ['s1', 's2', 's3']) {
      for (let i = 0; i < N; i += 500) {
        await r.sadd(k, ...Array.from({ length: 500 }, (_, j) => `${k}-member-${i + j}`));
      }
    }
    // s3 was loaded last: s1 and s2 are written back and out of the cache.
    expect(await r.scard('s3')).toBe(N);
    const moved = await r.smove('s1', 's2', 's1-member-7');
    expect({
      moved,
      inSrc: await r.sismember('s1', 's1-member-7'),
      inDst: await r.sismember('s2', 's1-member-7'),
      src: await r.scard('s1'),
      dst: await r.scard('s2'),
    }).toEqual({ moved: 1, inSrc: 0, inDst: 1, src: N - 1, dst: N + 1 });
  } finally {
    r.disconnect();
  }
}, 60_000);

test('LMOVE between two lists that do not fit the cache together moves the element', async () => {
  const { port } = await server();
  const r = client(port);
  await r.connect();
  try {
    for (const k of ['l1', 'l2', 'l3']) {
      for (let i = 0; i < N; i += 500) {
        await r.rpush(k, ...Array.from({ length: 500 }, (_, j) => `${k}-item-${i + j}`));
      }
    }
    expect(await r.llen('l3')).toBe(N);
    const moved = await r.lmove('l1', 'l2', 'LEFT', 'RIGHT');
    expect({
      moved,
      srcFirst: await r.lindex('l1', 0),
      dstLast: await r.lindex('l2', -1),
      src: await r.llen('l1'),
      dst: await r.llen('l2'),
    }).toEqual({
      moved: 'l1-item-0',
      srcFirst: 'l1-item-1',
      dstLast: 'l1-item-0',
      src: N - 1,
      dst: N + 1,
    });
  } finally {
    r.disconnect();
  }
}, 60_000);

/**
 * Runs a two-key command again while the server answers that its keys
 * could not be held in memory together (its documented answer when other
 * loads keep evicting them: nothing was changed, try again).
 */
async function tryAgain<T>(command: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await command();
    } catch (e) {
      if (attempt >= 100 || !/could not be held in memory together/.test(String(e))) throw e;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

test("SMOVE and LMOVE keep every move while another client's loads keep evicting their keys", async () => {
  const { port } = await server();
  const r = client(port);
  const other = client(port);
  await r.connect();
  await other.connect();
  const M = 150;
  try {
    for (const k of ['s1', 's2', 's3', 's4', 's5']) {
      for (let i = 0; i < N; i += 500) {
        await r.sadd(k, ...Array.from({ length: 500 }, (_, j) => `${k}-member-${i + j}`));
      }
    }
    for (const k of ['l1', 'l2']) {
      for (let i = 0; i < N; i += 500) {
        await r.rpush(k, ...Array.from({ length: 500 }, (_, j) => `${k}-item-${i + j}`));
      }
    }
    // The other client loads the other sets over and over while the moves run.
    let stop = false;
    const churn = (async () => {
      let n = 0;
      while (!stop) {
        await Promise.all(['s3', 's4', 's5', 's3', 's5'].map((k) => other.scard(k)));
        n++;
      }
      return n;
    })();
    const moves = await Promise.all(
      Array.from({ length: M }, (_, i) =>
        tryAgain<number | string | null>(() =>
          i % 2 === 0
            ? r.smove('s1', 's2', `s1-member-${i}`)
            : r.lmove('l1', 'l2', 'LEFT', 'RIGHT'),
        ),
      ),
    );
    stop = true;
    expect(await churn).toBeGreaterThan(0);
    const smoves = Math.ceil(M / 2);
    const lmoves = M - smoves;
    expect(moves.filter((m) => m === 1)).toHaveLength(smoves);
    expect({
      s1: await r.scard('s1'),
      s2: await r.scard('s2'),
      l1: await r.llen('l1'),
      l2: await r.llen('l2'),
      lastMoved: await r.lindex('l2', -1),
      inDst: await r.smismember('s2', 's1-member-0', `s1-member-${2 * (smoves - 1)}`),
    }).toEqual({
      s1: N - smoves,
      s2: N + smoves,
      l1: N - lmoves,
      l2: N + lmoves,
      lastMoved: `l1-item-${lmoves - 1}`,
      inDst: [1, 1],
    });
  } finally {
    r.disconnect();
    other.disconnect();
  }
}, 120_000);
