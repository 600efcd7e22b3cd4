import { expect, test } from 'vitest';
import { failureDir, runCollectionsCrash } from './collections-crash-run.js';

// Found (CI, 2026-11-30): after the first kill HGET h n = 1712 but SCARD s = 1711
// (acked 1711, sent 1727). A command of an EXEC waited for the disk and a
// checkpoint sealed the log meanwhile: its AOF position fell inside the
// MULTI, and replay skipped the whole transaction by its MULTI's offset, so
// the HINCRBY held by the checkpoint stayed and the SADD and RPUSH after the
// position were lost. Replay now judges each command of a transaction by its
// own offset (packages/aof: append-only-file.test.ts has the exact case).
test('HINCRBY, SADD and RPUSH survive SIGKILL with checkpoints and compaction running', async () => {
  const r = await runCollectionsCrash({
    minKills: 5,
    maxKills: 12,
    minMs: 1200,
    maxMs: 2000,
    pad: '',
    keep: failureDir('strata-collections-crash-fail'),
  });
  console.log(
    `collections crash: ${r.kills} kills, ${r.finalAcked} steps acked, ${r.checkpoints} checkpoints, ${r.compactions} compactions`,
  );
  expect(r.finalAcked).toBeGreaterThan(0);
  // The kills landed with checkpoints and compactions behind them.
  expect(r.checkpoints).toBeGreaterThan(0);
  expect(r.compactions).toBeGreaterThan(0);
}, 180_000);
