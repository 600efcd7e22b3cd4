import { describe, expect, it } from 'vitest';
import { DeviceStatsRecorder, now } from './device-stats.js';

describe('DeviceStatsRecorder', () => {
  it('counts operations, bytes, errors and latency', () => {
    const r = new DeviceStatsRecorder();
    const t = now() - 2; // 2 ms ago
    r.recordRead(t, 100);
    r.recordRead(t, 50);
    r.recordWrite(t, 10);
    r.recordSync(t);
    r.recordError();
    const s = r.snapshot();
    expect(s).toMatchObject({
      reads: 2,
      writes: 1,
      syncs: 1,
      bytesRead: 150,
      bytesWritten: 10,
      errors: 1,
    });
    expect(s.readLatencyUs.count).toBe(2);
    expect(s.readLatencyUs.p50).toBeGreaterThanOrEqual(1800);
    expect(s.readLatencyUs.max).toBeGreaterThanOrEqual(2000);
    expect(s.syncLatencyUs.count).toBe(1);
  });

  it('tracks in-flight, high water and queued; reset keeps live gauges', () => {
    const r = new DeviceStatsRecorder();
    r.onIssue();
    r.onIssue();
    r.onIssue();
    r.onFinish();
    r.onEnqueue();
    expect(r.snapshot()).toMatchObject({ inFlight: 2, inFlightHighWater: 3, queued: 1 });
    r.recordRead(now(), 1);
    r.reset();
    expect(r.snapshot()).toMatchObject({ reads: 0, inFlight: 2, inFlightHighWater: 2, queued: 1 });
    expect(r.snapshot().readLatencyUs.count).toBe(0);
  });
});
