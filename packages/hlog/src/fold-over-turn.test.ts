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

  it('a turn not used in its own microtasks goes stale', async () => {
    const hook = foldOverOnOwnTurn();
    await hook();
    // Many microtasks later, still the same callback's: usable.
    for (let i = 0; i < 50; i++) await Promise.resolve();
    expect(hook()).toBeUndefined();
    // In another callback (a timer, an I/O completion): wait for a fresh one.
    const stale = foldOverOnOwnTurn();
    await stale();
    await new Promise((r) => setTimeout(r, 1));
    expect(stale()).toBeInstanceOf(Promise);
    const again = foldOverOnOwnTurn();
    const p = again();
    await p;
    await new Promise((r) => setImmediate(r));
    expect(again()).toBeInstanceOf(Promise);
  });
});
