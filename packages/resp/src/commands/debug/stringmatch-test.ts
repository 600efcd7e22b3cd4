import { compileGlob } from '@strata/scan';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';

/**
 * A hundredth of stringmatchlen_fuzz_test's ten million cycles: compiling
 * a pattern costs ~30 µs here, so Redis's count would hold every client for
 * minutes (Redis takes ~5 s); this takes about as long as Redis.
 */
const CYCLES = 100_000;
/** stringmatchlen_fuzz_test's buffer sizes. */
const MAX_LEN = 32;
/** Cycles between yields: the test runs in slices, every other client held. */
const SLICE = 2_000;

const yieldNow = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * DEBUG STRINGMATCH-TEST: Redis's fuzz test of its glob matcher
 * (stringmatchlen_fuzz_test): random patterns and strings of up to 31
 * bytes below 128, matched, the result unused (CYCLES of them). Here scan's
 * matcher (KEYS, SCAN MATCH...) runs on them; a crash would be its failure.
 */
export function stringmatchTest(c: Client): CommandResult {
  return c.server.runExclusive(c, async () => {
    const str = new Uint8Array(MAX_LEN);
    const pat = new Uint8Array(MAX_LEN);
    const rand = (n: number) => Math.floor(Math.random() * n);
    for (let done = 0; done < CYCLES; done += SLICE) {
      for (let k = 0; k < SLICE; k++) {
        const strlen = rand(MAX_LEN);
        const patlen = rand(MAX_LEN);
        for (let j = 0; j < strlen; j++) str[j] = rand(128);
        for (let j = 0; j < patlen; j++) pat[j] = rand(128);
        compileGlob(pat.subarray(0, patlen)).match(str, 0, strlen);
      }
      await yieldNow();
    }
    c.reply.simple('Apparently Redis did not crash: test passed');
  });
}
