import { afterAll, afterEach, expect, test } from 'vitest';
import { client } from './crash-writer.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * Periodic checkpoints see collection changes that only the object cache
 * holds. A large sorted set (over the 8 MiB the background write-back
 * forces) that keeps changing is written back only by a checkpoint; the
 * log's write counters do not move, so a round that looked at them alone
 * found "no changes" and never checkpointed: without the AOF, a kill lost
 * every change since the server went quiet.
 */

const dirs: { remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

const MEMBERS = 200_000;

test('a checkpoint round after a quiet spell checkpoints a collection changed only in the cache', async () => {
  const dir = await tempDir('strata-periodic-');
  dirs.push(dir);
  const args = [
    ...['--port', '0', '--dir', dir.path, '--checkpoint-interval', '1'],
    ...['--memory', '64mb', '--log-level', 'debug'],
  ];
  const server = await StrataProcess.start(args);
  const r = client(server.port);
  await r.connect();
  try {
    for (let i = 0; i < MEMBERS; i += 5000) {
      const args: (string | number)[] = [];
      for (let j = i; j < i + 5000; j++) args.push(j, `member:${j}:padding-padding`);
      await r.zadd('big', ...args);
    }
    // Quiet: a round that finds nothing to do.
    const filled = server.process.stdout.length;
    await server.process.waitFor(/No changes since the last checkpoint\n/, 30_000, filled);
    // Now only the cached set changes, every 50 ms: never unchanged for a
    // whole write-back period, too large for the forced write-back.
    let n = 0;
    let writing = true;
    const writer = (async () => {
      while (writing) {
        await r.zadd('big', -1, `new:${n++}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    // The first round after the quiet one that checkpoints saw the cache's
    // change (nothing else wrote), so its checkpoint holds new:0 at least.
    try {
      const quiet = server.process.stdout.length;
      await server.process.waitFor(/changes in \d+ seconds\. Checkpointing\.\.\.\n/, 10_000, quiet);
      const round = server.process.stdout.length;
      await server.process.waitFor(/DB 0 saved on disk/, 30_000, round);
    } finally {
      writing = false;
      await writer;
    }
    await server.process.stop('SIGKILL');

    const again = await StrataProcess.start(args);
    const r2 = client(again.port);
    await r2.connect();
    try {
      expect(await r2.zscore('big', 'new:0')).toBe('-1');
      expect(await r2.zcard('big')).toBeGreaterThan(MEMBERS);
    } finally {
      r2.disconnect();
    }
  } finally {
    r.disconnect();
  }
}, 120_000);
