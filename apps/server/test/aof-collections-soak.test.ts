import { expect, test } from 'vitest';
import { failureDir, runCollectionsCrash } from './collections-crash-run.js';

/**
 * The collections crash test (collections-crash-run.ts), longer, run only on
 * demand (STRATA_SOAK=1; minutes of CPU). Env: SOAK_CYCLES (20 kills),
 * SOAK_MIN_MS (1200), SOAK_MAX_MS (2000), SOAK_PAD (bytes appended to each
 * member / list item; 0), SOAK_STATS (JSONL file, a line per recovery),
 * SOAK_KEEP (where a failure's data and logs go; default
 * <tmpdir>/strata-soak-fail-<time>).
 */
const env = (name: string, d: number) => Number(process.env[name] ?? d);

test.runIf(process.env.STRATA_SOAK === '1')(
  'soak: HINCRBY, SADD and RPUSH survive SIGKILL with checkpoints and compaction',
  async () => {
    const kills = env('SOAK_CYCLES', 20);
    const r = await runCollectionsCrash({
      minKills: kills,
      maxKills: kills,
      minMs: env('SOAK_MIN_MS', 1200),
      maxMs: env('SOAK_MAX_MS', 2000),
      pad: 'x'.repeat(env('SOAK_PAD', 0)),
      keep: process.env.SOAK_KEEP ?? failureDir('strata-soak-fail'),
      ...(process.env.SOAK_STATS === undefined ? {} : { stats: process.env.SOAK_STATS }),
    });
    console.log(
      `collections soak: ${r.kills} kills, ${r.totalAcked} steps acked in total, final ${r.finalAcked}, ${r.checkpoints} checkpoints, ${r.compactions} compactions`,
    );
    expect(r.checkpoints).toBeGreaterThan(0);
  },
  3_600_000,
);
