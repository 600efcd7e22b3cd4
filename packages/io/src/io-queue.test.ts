import { describe, expect, it } from 'vitest';
import { DeviceStatsRecorder } from './device-stats.js';
import { IoQueue } from './io-queue.js';

async function ticks(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

describe('IoQueue', () => {
  it('grants free slots synchronously, then queues FIFO and hands slots over', async () => {
    const stats = new DeviceStatsRecorder();
    const q = new IoQueue(2, stats);
    expect(q.acquire()).toBeUndefined();
    expect(q.acquire()).toBeUndefined();
    const order: number[] = [];
    const waits = [1, 2, 3].map((i) => q.acquire()!.then(() => order.push(i)));
    expect(q.queued).toBe(3);
    expect(stats.queued).toBe(3);
    expect(q.inFlight).toBe(2);
    q.release();
    await ticks();
    expect(order).toEqual([1]);
    expect(q.acquire()).toBeInstanceOf(Promise); // no barging past waiters
    q.release();
    q.release();
    await Promise.all(waits);
    expect(order).toEqual([1, 2, 3]);
    expect(stats.inFlightHighWater).toBe(2);
    expect(q.inFlight).toBe(2);
  });

  it('an exclusive acquire waits for earlier operations and holds back later ones', async () => {
    const q = new IoQueue(3);
    q.acquire();
    q.acquire();
    const events: string[] = [];
    const exclusive = q.acquireExclusive()!.then(() => events.push('exclusive'));
    const later = q.acquire()!.then(() => events.push('later'));
    q.release();
    await ticks();
    expect(events).toEqual([]);
    q.release();
    await exclusive;
    expect(events).toEqual(['exclusive']);
    expect(q.inFlight).toBe(1);
    q.releaseExclusive();
    await later;
    expect(events).toEqual(['exclusive', 'later']);
  });

  it('rejectWaiters rejects only waiting operations; whenIdle waits for in-flight ones', async () => {
    const stats = new DeviceStatsRecorder();
    const q = new IoQueue(1, stats);
    q.acquire();
    const waiting = [q.acquire()!, q.acquire()!];
    q.rejectWaiters(() => new Error('closed'));
    for (const w of waiting) await expect(w).rejects.toThrow('closed');
    expect(stats.queued).toBe(0);
    let idle = false;
    const whenIdle = q.whenIdle().then(() => {
      idle = true;
    });
    await ticks();
    expect(idle).toBe(false);
    q.release();
    await whenIdle;
    expect(idle).toBe(true);
    expect(stats.inFlight).toBe(0);
  });

  it('never fails for being busy: 10 000 operations through 3 slots', async () => {
    const stats = new DeviceStatsRecorder();
    const q = new IoQueue(3, stats);
    let active = 0;
    let peak = 0;
    const run = async () => {
      const w = q.acquire();
      if (w !== undefined) await w;
      active++;
      peak = Math.max(peak, active);
      await Promise.resolve();
      active--;
      q.release();
    };
    await Promise.all(Array.from({ length: 10_000 }, run));
    expect(peak).toBe(3);
    expect(stats.inFlightHighWater).toBe(3);
    expect(q.inFlight).toBe(0);
    expect(q.queued).toBe(0);
  });

  it('rejects a non-positive capacity', () => {
    expect(() => new IoQueue(0)).toThrow(RangeError);
  });
});
