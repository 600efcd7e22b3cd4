import { describe, expect, test } from 'vitest';
import { AofClock } from './aof-clock.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('AofClock', () => {
  test('live: one reading per event-loop turn, a new one on the next turn', async () => {
    const clock = new AofClock();
    const a = clock.now();
    const spin = Date.now() + 3;
    while (Date.now() < spin) {
      // The same turn: the time the first check saw.
    }
    expect(clock.now()).toBe(a);
    await nextTurn();
    await nextTurn();
    expect(clock.now()).toBeGreaterThanOrEqual(a + 3);
  });

  test('replay: the stamp of the command being applied; unstamped and after replay: the real time', async () => {
    const clock = new AofClock();
    clock.replayAt(1_000);
    expect(clock.now()).toBe(1_000);
    await nextTurn();
    expect(clock.now()).toBe(1_000);
    clock.replayAt(1_050);
    expect(clock.now()).toBe(1_050);
    clock.replayAt(undefined);
    expect(clock.now()).toBeGreaterThan(1_000_000_000_000);
    clock.replayAt(2_000);
    clock.live();
    expect(clock.now()).toBeGreaterThan(1_000_000_000_000);
  });
});
