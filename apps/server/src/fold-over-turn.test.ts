import { describe, expect, it } from 'vitest';
import { foldOverOnOwnTurn } from './fold-over-turn.js';

describe('foldOverOnOwnTurn', () => {
  it('waits for a callback of its own, allows the mark in its microtasks once, then waits again', async () => {
    const hook = foldOverOnOwnTurn();
    const first = hook();
    expect(first).toBeInstanceOf(Promise);
    // Other microtasks and callbacks queued before ours run first.
    const order: string[] = [];
    setImmediate(() => order.push('earlier callback'));
    await Promise.resolve();
    expect(hook()).toBeInstanceOf(Promise); // still not its turn
    await first;
    // In the microtasks of its own callback: the mark may fall, once.
    expect(hook()).toBeUndefined();
    expect(hook()).toBeInstanceOf(Promise);
  });

  it('a turn not used at once goes stale', async () => {
    const hook = foldOverOnOwnTurn();
    await hook();
    // Used only after other callbacks ran: wait for a fresh one.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(hook()).toBeInstanceOf(Promise);
  });
});
