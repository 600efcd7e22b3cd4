import { describe, expect, test } from 'vitest';
import { StreamGroup } from './stream-group.js';
import { MAX_STREAM_ID, MIN_STREAM_ID, type StreamId, streamId } from './stream-id.js';

/** A small deterministic generator (the test's runs repeat). */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

/** The PEL as the group shows it: IDs in order with their owners. */
function pelOf(g: StreamGroup, start = MIN_STREAM_ID, end = MAX_STREAM_ID): string[] {
  const out: string[] = [];
  g.forPending(start, end, (e) => {
    out.push(`${e.id.charCodeAt(15)}:${e.consumer.name}`);
    return true;
  });
  return out;
}

describe('StreamGroup PEL', () => {
  test('acks from the oldest end, the newest end and the middle keep order, first and last', () => {
    const g = new StreamGroup('g', MIN_STREAM_ID, 0);
    const a = g.consumer('a', 0, true)!;
    for (let i = 1; i <= 100; i++) g.deliver(streamId(1, i), a, 0);
    expect(g.ack(streamId(1, 1))).toBe(true);
    expect(g.ack(streamId(1, 1))).toBe(false);
    expect(g.ack(streamId(1, 100))).toBe(true);
    expect(g.ack(streamId(1, 50))).toBe(true);
    expect(g.pendingCount).toBe(97);
    expect(a.pending).toBe(97);
    expect(g.firstPending()).toBe(streamId(1, 2));
    expect(g.lastPending()).toBe(streamId(1, 99));
    const ids: StreamId[] = [];
    g.forPending(streamId(1, 48), streamId(1, 52), (e) => {
      ids.push(e.id);
      return true;
    });
    expect(ids).toEqual([48, 49, 51, 52].map((s) => streamId(1, s)));
    for (let i = 2; i <= 99; i++) g.ack(streamId(1, i));
    expect(g.pendingCount).toBe(0);
    expect(g.firstPending()).toBeUndefined();
    expect(g.lastPending()).toBeUndefined();
  });

  test('an acked ID claimed again (XCLAIM FORCE) is pending once', () => {
    const g = new StreamGroup('g', MIN_STREAM_ID, 0);
    const a = g.consumer('a', 0, true)!;
    for (let i = 1; i <= 10; i++) g.deliver(streamId(1, i), a, 0);
    g.ack(streamId(1, 5));
    g.insert(streamId(1, 5), a, 7, 3);
    expect(pelOf(g)).toHaveLength(10);
    expect(g.pending(streamId(1, 5))?.deliveryCount).toBe(3);
    g.ack(streamId(1, 5));
    g.deliver(streamId(1, 5), a, 9);
    expect(pelOf(g)).toHaveLength(10);
  });

  test('randomized against a sorted model: deliveries, claims, acks, consumer deletions', () => {
    const rnd = lcg(7);
    const g = new StreamGroup('g', MIN_STREAM_ID, 0);
    const model = new Map<number, string>();
    const names = ['a', 'b', 'c'];
    let next = 1;
    for (let step = 0; step < 20_000; step++) {
      const r = rnd();
      const name = names[Math.floor(rnd() * names.length)]!;
      if (r < 0.45) {
        // A delivery of the next new entries, in ID order.
        const c = g.consumer(name, step, true)!;
        const seq = next++;
        g.deliver(streamId(1, seq), c, step);
        model.set(seq, name);
      } else if (r < 0.55 && next > 1) {
        // A claim (FORCE) of any ID, pending or not.
        const seq = 1 + Math.floor(rnd() * (next - 1));
        const c = g.consumer(name, step, true)!;
        const e = g.pending(streamId(1, seq));
        if (e === undefined) g.insert(streamId(1, seq), c, step, 1);
        else g.setOwner(e, c);
        model.set(seq, name);
      } else if (r < 0.995 && next > 1) {
        // Acks mostly of the oldest pending, sometimes of any ID (pending or not).
        const live = [...model.keys()].sort((x, y) => x - y);
        const pick = rnd() < 0.7 && live.length > 0 ? live[0]! : 1 + Math.floor(rnd() * (next - 1));
        expect(g.ack(streamId(1, pick))).toBe(model.delete(pick));
      } else {
        const had = [...model.values()].filter((n) => n === name).length;
        const existed = g.consumers.has(name);
        expect(g.deleteConsumer(name)).toBe(existed ? had : -1);
        for (const [seq, n] of model) if (n === name) model.delete(seq);
      }
      if (step % 97 === 0 || step > 19_900) {
        const want = [...model.entries()].sort((x, y) => x[0] - y[0]);
        expect(g.pendingCount).toBe(want.length);
        expect(pelOf(g)).toEqual(want.map(([seq, n]) => `${seq & 0xff}:${n}`));
        expect(g.firstPending()).toBe(want.length === 0 ? undefined : streamId(1, want[0]![0]));
        expect(g.lastPending()).toBe(want.length === 0 ? undefined : streamId(1, want.at(-1)![0]));
        for (const n of names) {
          const c = g.consumers.get(n);
          if (c !== undefined) expect(c.pending).toBe(want.filter(([, o]) => o === n).length);
        }
      }
    }
  });
});
