import { describe, expect, it } from 'vitest';
import { type StrataError, TornWriteError } from './errors.js';
import { FaultDevice, type FaultDeviceOptions } from './fault-device.js';
import type { FaultSpec } from './fault-spec.js';
import { MemoryDevice } from './memory-device.js';

const SEG = 4096;

function make(options: FaultDeviceOptions = {}): { inner: MemoryDevice; device: FaultDevice } {
  const inner = new MemoryDevice({ segmentSize: SEG });
  return { inner, device: new FaultDevice(inner, options) };
}

async function errorOf(p: Promise<unknown>): Promise<StrataError> {
  try {
    await p;
  } catch (e) {
    return e as StrataError;
  }
  throw new Error('expected a rejection');
}

/** Runs 200 single-byte writes and returns the indices that failed. */
async function failingIndices(seed: number, spec: FaultSpec): Promise<number[]> {
  const { device } = make({ seed, faults: [spec] });
  const failed: number[] = [];
  for (let i = 0; i < 200; i++) {
    await device.write(i, new Uint8Array(1)).catch(() => failed.push(i));
  }
  return failed;
}

describe('FaultDevice', () => {
  it('passes everything through when no fault is installed', async () => {
    const { inner, device } = make();
    await device.write(10, new Uint8Array([1, 2, 3]));
    expect(device.endAddress).toBe(13);
    expect(device.segmentSize).toBe(SEG);
    expect(device.maxInFlight).toBe(inner.maxInFlight);
    expect(device.name).toBe('fault(memory)');
    const into = new Uint8Array(3);
    expect(await inner.read(10, into)).toBe(3);
    expect([...into]).toEqual([1, 2, 3]);
  });

  it('error on the nth operation of a kind, once', async () => {
    const { device } = make({ faults: [{ on: 'write', nth: 3 }] });
    await device.read(0, new Uint8Array(1));
    await device.write(0, new Uint8Array(1));
    await device.write(1, new Uint8Array(1));
    const e = await errorOf(device.write(4096 + 2, new Uint8Array(1)));
    expect(e).toMatchObject({ code: 'ERR_INJECTED_FAULT', address: 4098, segment: 1 });
    await device.write(3, new Uint8Array(1));
    expect(device.faults[0]).toMatchObject({ matched: 4, fired: 1, exhausted: true });
    expect(device.endAddress).toBe(4);
  });

  it('errors by probability are deterministic for a seed', async () => {
    const spec: FaultSpec = { probability: 0.25 };
    const a = await failingIndices(11, spec);
    const b = await failingIndices(11, spec);
    const c = await failingIndices(12, spec);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(a.length).toBeGreaterThan(25);
    expect(a.length).toBeLessThan(75);
  });

  it('errors by address range hit only IO overlapping the range', async () => {
    const { device } = make({ faults: [{ range: { from: 5000, to: 5100 } }] });
    await device.write(4000, new Uint8Array(1000)); // ends at 5000
    await device.write(5100, new Uint8Array(100));
    const e = await errorOf(device.write(4500, new Uint8Array(1000)));
    expect(e).toMatchObject({ code: 'ERR_INJECTED_FAULT', address: 5000, segment: 1 });
    const r = await errorOf(device.read(5099, new Uint8Array(1)));
    expect(r).toMatchObject({ address: 5099, segment: 1 });
    await device.sync(); // no address: a range fault never matches
    expect(device.stats()).toMatchObject({ errors: 2, writes: 2, syncs: 1 });
  });

  it('custom codes, and ERR_IO with an OS code', async () => {
    const { device } = make({
      faults: [
        { on: 'read', nth: 1, code: 'ERR_MEDIA' },
        { on: 'read', nth: 2, code: 'ERR_IO', osCode: 'ENOSPC' },
      ],
    });
    expect(await errorOf(device.read(0, new Uint8Array(1)))).toMatchObject({ code: 'ERR_MEDIA' });
    const io = await errorOf(device.read(8192, new Uint8Array(1)));
    expect(io).toMatchObject({ code: 'ERR_IO', osCode: 'ENOSPC', address: 8192, segment: 2 });
    expect(io.cause).toMatchObject({ code: 'ERR_INJECTED_FAULT' });
  });

  it('torn writes persist a prefix and reject with ERR_TORN_WRITE', async () => {
    const { inner, device } = make({ faults: [{ effect: 'torn-write', persist: 300 }] });
    const e = await errorOf(device.write(100, new Uint8Array(1000).fill(5)));
    expect(e).toBeInstanceOf(TornWriteError);
    expect(e).toMatchObject({
      code: 'ERR_TORN_WRITE',
      bytesPersisted: 300,
      address: 100,
      segment: 0,
    });
    expect(inner.endAddress).toBe(400);
    const into = new Uint8Array(300);
    expect(await inner.read(100, into)).toBe(300);
    expect(into.every((b) => b === 5)).toBe(true);
  });

  it('torn prefixes are random but aligned and repeatable for a seed', async () => {
    const prefixes = async (seed: number) => {
      const inner = new MemoryDevice({ segmentSize: SEG, alignment: 512 });
      const device = new FaultDevice(inner, { seed, faults: [{ effect: 'torn-write' }] });
      const out: number[] = [];
      for (let i = 0; i < 20; i++) {
        const e = await errorOf(device.write(0, new Uint8Array(8 * 512)));
        out.push((e as TornWriteError).bytesPersisted);
      }
      return out;
    };
    const a = await prefixes(3);
    expect(a).toEqual(await prefixes(3));
    expect(a).not.toEqual(await prefixes(4));
    for (const p of a) {
      expect(p % 512).toBe(0);
      expect(p).toBeLessThan(8 * 512);
    }
    expect(new Set(a).size).toBeGreaterThan(3);
  });

  it('short writes persist a prefix silently', async () => {
    const { inner, device } = make({ faults: [{ effect: 'short-write', persist: 10, nth: 1 }] });
    await device.write(0, new Uint8Array(100).fill(7));
    expect(inner.endAddress).toBe(10);
    expect(device.stats()).toMatchObject({ writes: 1, errors: 0, bytesWritten: 100 });
    await device.write(0, new Uint8Array(100).fill(7));
    expect(inner.endAddress).toBe(100);
  });

  it('bit flips corrupt exactly one bit of a read', async () => {
    const { device } = make({ seed: 5, faults: [{ effect: 'bit-flip', nth: 2 }] });
    const data = new Uint8Array(256).map((_, i) => i);
    await device.write(0, data);
    const clean = new Uint8Array(256);
    await device.read(0, clean);
    expect(clean).toEqual(data);
    const dirty = new Uint8Array(256);
    expect(await device.read(0, dirty)).toBe(256);
    let bits = 0;
    for (let i = 0; i < 256; i++) {
      let x = dirty[i]! ^ data[i]!;
      while (x !== 0) {
        bits += x & 1;
        x >>>= 1;
      }
    }
    expect(bits).toBe(1);
  });

  it('sync and truncate faults', async () => {
    const { inner, device } = make({ faults: [{ on: ['sync', 'truncate'] }] });
    await device.write(0, new Uint8Array(3 * SEG));
    expect(await errorOf(device.sync())).toMatchObject({ code: 'ERR_INJECTED_FAULT' });
    const t = await errorOf(device.truncateUntil(2 * SEG));
    expect(t).toMatchObject({ code: 'ERR_INJECTED_FAULT', address: 2 * SEG, segment: 2 });
    expect(inner.beginAddress).toBe(0);
    device.clearFaults();
    await device.truncateUntil(2 * SEG);
    expect(device.beginAddress).toBe(2 * SEG);
  });

  it('faults change at runtime: fail everything, then recover', async () => {
    const { device } = make();
    await device.write(0, new Uint8Array(10));
    const outage = device.addFault({});
    for (const op of [
      device.read(0, new Uint8Array(1)),
      device.write(0, new Uint8Array(1)),
      device.sync(),
    ]) {
      expect(await errorOf(op)).toMatchObject({ code: 'ERR_INJECTED_FAULT' });
    }
    outage.remove();
    expect(device.faults).toHaveLength(0);
    await device.write(0, new Uint8Array(1));
    expect(await device.read(0, new Uint8Array(10))).toBe(10);
    expect(outage.fired).toBe(3);
  });

  it('adds fixed latency while holding an in-flight slot', async () => {
    const { device } = make({ latency: { minMs: 20 }, maxInFlight: 1 });
    const start = performance.now();
    await Promise.all([0, 1, 2].map((i) => device.write(i, new Uint8Array(1))));
    // Timers may fire up to ~1 ms early against performance.now() (libuv's cached loop time).
    expect(performance.now() - start).toBeGreaterThanOrEqual(55);
    const s = device.stats();
    expect(s.writeLatencyUs.p50).toBeGreaterThanOrEqual(18_000);
    expect(s.inFlightHighWater).toBe(1);
    device.setLatency(undefined);
    const quick = performance.now();
    await device.read(0, new Uint8Array(1));
    expect(performance.now() - quick).toBeLessThan(18);
  });

  it('adds random latency within the range, only for the chosen kinds', async () => {
    const { device } = make({ latency: { minMs: 40, maxMs: 80, on: 'read' } });
    const times: number[] = [];
    for (let i = 0; i < 8; i++) {
      const t = performance.now();
      await device.read(0, new Uint8Array(1));
      times.push(performance.now() - t);
    }
    for (const t of times) expect(t).toBeGreaterThanOrEqual(38);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(1);
    const w = performance.now();
    await device.write(0, new Uint8Array(1));
    expect(performance.now() - w).toBeLessThan(35);
  });

  it('rejects invalid fault specs', () => {
    const { device } = make();
    const bad: FaultSpec[] = [
      { probability: 2 },
      { nth: 0 },
      { times: 0 },
      { range: { from: 10, to: 5 } },
      { effect: 'torn-write', on: 'read' },
      { effect: 'bit-flip', on: 'write' },
      { persist: -1, effect: 'short-write' },
    ];
    for (const spec of bad) expect(() => device.addFault(spec)).toThrow(/fault/);
    expect(() => device.setLatency({ minMs: 5, maxMs: 1 })).toThrow(/latency/);
    expect(device.faults).toHaveLength(0);
  });
});
