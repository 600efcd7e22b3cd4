import { describe, expect, test } from 'vitest';
import { serverWithClient } from '../support/test-server.js';

/**
 * XADD `*` takes its milliseconds from the wall time the command started
 * at (Redis 7.2's commandTimeSnapshot), read from the clock its timing
 * reads (server/wall-clock.ts): within the time the call took, and IDs
 * rise in a pipeline that runs within one millisecond.
 */
const t = serverWithClient();

const msOf = (id: string) => Number(id.split('-')[0]);
const seqOf = (id: string) => Number(id.split('-')[1]);

describe('XADD * and the clock', () => {
  test('the ID is the wall time of the call, then the next sequence within a millisecond', async () => {
    for (let round = 0; round < 20; round++) {
      const before = Date.now();
      const id = (await t.client.xadd('s:clock', '*', 'f', 'v')) as string;
      const after = Date.now();
      // Within a ms of the call's span (the two clocks' offset is read a call apart).
      expect(msOf(id)).toBeGreaterThanOrEqual(before - 1);
      expect(msOf(id)).toBeLessThanOrEqual(after + 1);
    }
    const p = t.client.pipeline();
    for (let i = 0; i < 500; i++) p.xadd('s:clock', '*', 'f', String(i));
    const ids = (await p.exec())!.map(([e, id]) => {
      expect(e).toBeNull();
      return id as string;
    });
    for (let i = 1; i < ids.length; i++) {
      const [a, b] = [ids[i - 1]!, ids[i]!];
      if (msOf(b) === msOf(a)) expect(seqOf(b)).toBe(seqOf(a) + 1);
      else {
        expect(msOf(b)).toBeGreaterThan(msOf(a));
        expect(seqOf(b)).toBe(0);
      }
    }
  });
});
