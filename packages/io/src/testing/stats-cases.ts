import assert from 'node:assert/strict';
import type { LatencySummary } from '../device-stats.js';
import { filled, rejectsWithCode } from './assertions.js';
import type { ConformanceCase } from './conformance-case.js';
import { Session, SMALL } from './session.js';

function checkLatency(l: LatencySummary, count: number, what: string): void {
  assert.equal(l.count, count, `${what} latency count`);
  assert.ok(l.p50 >= 0 && l.p50 <= l.p99 && l.p99 <= l.max, `${what}: p50 <= p99 <= max`);
  assert.ok(Number.isFinite(l.max), `${what}: max is finite`);
}

export const statsCases: ConformanceCase[] = [
  {
    name: 'stats count operations, bytes, errors and latency; resetStats zeroes them',
    run: (factory) =>
      Session.run(factory, SMALL, async ({ device }) => {
        for (let i = 0; i < 10; i++) await device.write(i * 100, filled(100, i));
        for (let i = 0; i < 6; i++) await device.read(i * 50, new Uint8Array(50));
        assert.equal(await device.read(980, new Uint8Array(50)), 20);
        await device.sync();
        await device.sync();
        await rejectsWithCode(device.write(2 ** 48, new Uint8Array(1)), 'ERR_ADDRESS_OUT_OF_RANGE');
        const s = device.stats();
        assert.equal(s.writes, 10);
        assert.equal(s.reads, 7);
        assert.equal(s.syncs, 2);
        assert.equal(s.bytesWritten, 1000);
        assert.equal(s.bytesRead, 320);
        assert.equal(s.errors, 1);
        assert.equal(s.inFlight, 0);
        assert.equal(s.queued, 0);
        assert.ok(s.inFlightHighWater >= 1);
        checkLatency(s.writeLatencyUs, 10, 'write');
        checkLatency(s.readLatencyUs, 7, 'read');
        checkLatency(s.syncLatencyUs, 2, 'sync');
        device.resetStats();
        const z = device.stats();
        assert.equal(z.reads + z.writes + z.syncs + z.bytesRead + z.bytesWritten + z.errors, 0);
        assert.equal(z.inFlightHighWater, 0);
        assert.equal(z.readLatencyUs.count, 0);
        assert.equal(z.readLatencyUs.max, 0);
        await device.read(0, new Uint8Array(1));
        assert.equal(device.stats().reads, 1, 'counting resumes after reset');
      }),
  },
];
