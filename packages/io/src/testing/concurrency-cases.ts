import assert from 'node:assert/strict';
import { assertBytes } from './assertions.js';
import type { ConformanceCase } from './conformance-case.js';
import { Session, SMALL } from './session.js';

const SIZE = 64;

function pattern(i: number): Uint8Array {
  const data = new Uint8Array(SIZE);
  for (let j = 0; j < SIZE; j++) data[j] = (i * 13 + j) & 0xff;
  return data;
}

export const concurrencyCases: ConformanceCase[] = [
  {
    name: 'many operations in flight: all complete, at most maxInFlight issued at once',
    run: (factory, { concurrency }) =>
      Session.run(factory, { ...SMALL, maxInFlight: 4 }, async ({ device }) => {
        // Spread over segments, in a shuffled order, so IO crosses files.
        const stride = SIZE * 3;
        const writes: Promise<void>[] = [];
        for (let i = 0; i < concurrency; i++) writes.push(device.write(i * stride, pattern(i)));
        await Promise.all(writes);
        const afterWrites = device.stats();
        assert.equal(afterWrites.writes, concurrency);
        assert.ok(
          afterWrites.inFlightHighWater <= 4,
          `high water ${afterWrites.inFlightHighWater} > 4`,
        );
        assert.ok(afterWrites.inFlightHighWater >= 2, 'operations overlapped');
        const intos = Array.from({ length: concurrency }, () => new Uint8Array(SIZE));
        const counts = await Promise.all(intos.map((into, i) => device.read(i * stride, into)));
        for (let i = 0; i < concurrency; i++) {
          assert.equal(counts[i], SIZE);
          assertBytes(intos[i]!, pattern(i), `operation ${i}`);
        }
        const stats = device.stats();
        assert.ok(stats.inFlightHighWater <= 4, `high water ${stats.inFlightHighWater} > 4`);
        assert.equal(stats.inFlight, 0);
        assert.equal(stats.queued, 0);
        assert.equal(stats.reads, concurrency);
        assert.equal(stats.errors, 0);
      }),
  },
  {
    name: 'excess operations queue instead of failing',
    run: (factory) =>
      Session.run(factory, { ...SMALL, maxInFlight: 1 }, async ({ device }) => {
        const ops: Promise<unknown>[] = [];
        for (let i = 0; i < 50; i++) {
          ops.push(device.write(i * SIZE, pattern(i)));
          ops.push(device.read(i * SIZE, new Uint8Array(SIZE)));
        }
        ops.push(device.sync());
        const results = await Promise.allSettled(ops);
        const failed = results.filter((r) => r.status === 'rejected');
        assert.equal(failed.length, 0, 'nothing fails for being busy');
        assert.equal(device.stats().inFlightHighWater, 1);
      }),
  },
];
