import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasRedisServer, startRedis } from '../compat/compat-runner.js';
import { failingReads } from './failing-reads.js';
import { type FuzzReport, runFuzz } from './fuzz-run.js';
import { RequestConnection } from './request-connection.js';

// CI-sized runs; `node scripts/fuzz/run.mjs --frames 1000000` is the full one.
// STRATA_FUZZ_SEED / STRATA_FUZZ_FRAMES reproduce or enlarge a run.
const FRAMES = Number(process.env.STRATA_FUZZ_FRAMES ?? 50_000);
const SEED = Number(process.env.STRATA_FUZZ_SEED ?? 20261129);
const MB = 1 << 20;

function summary(r: FuzzReport): string {
  return JSON.stringify({
    target: r.target,
    frames: r.frames,
    sessions: r.sessions,
    commands: r.commands,
    seconds: Number(r.seconds.toFixed(1)),
    endings: Object.keys(r.endings).length,
    stalled: r.stalled,
    resets: r.resets,
    ping: r.ping,
    control: r.control,
    memoryMb: r.memory && {
      baselineHeapExt: ((r.memory.baseline.heapUsed + r.memory.baseline.external) / MB).toFixed(1),
      finalHeapExt: ((r.memory.final.heapUsed + r.memory.final.external) / MB).toFixed(1),
      peakRss: (r.memory.peak.rss / MB).toFixed(1),
    },
  });
}

describe('hostile input: random and mutated frames over real sockets', () => {
  test(`an in-process RespServer takes ${FRAMES} frames on 48 connections (seed ${SEED})`, {
    timeout: 180_000,
  }, async () => {
    const r = await runFuzz({ frames: FRAMES, seed: SEED, connections: 48 });
    console.log(summary(r));
    // Every session's replies, protocol error, close or open connection were as Redis's.
    expect(r.failures).toEqual([]);
    expect(r.uncaught).toEqual([]);
    expect(r.frames).toBeGreaterThanOrEqual(FRAMES);
    // Malformed input of every kind was sent, and ended connections in many ways.
    for (const kind of [
      'mutated',
      'truncated',
      'huge-length',
      'negative-length',
      'nested',
      'binary-junk',
    ]) {
      expect(r.kinds[kind] ?? 0).toBeGreaterThan(0);
    }
    expect(Object.keys(r.endings).length).toBeGreaterThan(10);
    expect(r.endings['between requests'] ?? 0).toBeGreaterThan(0);
    expect(r.endings['inside a request'] ?? 0).toBeGreaterThan(0);
    // Clients that never read were disconnected by the output buffer limit.
    expect(r.stalled.sessions).toBeGreaterThan(0);
    expect(r.stalled.disconnected).toBe(r.stalled.sessions);
    // The server answered its other clients throughout, and right.
    expect(r.ping.count).toBeGreaterThan(10);
    expect(r.control.ops).toBeGreaterThan(100);
    expect(r.control.mismatches).toBe(0);
    // No client left behind; memory back near where it was (heap and buffers, after a GC).
    expect(r.clientsLeft).toBe(0);
    const m = r.memory!;
    expect(m.final.heapUsed + m.final.external).toBeLessThan(
      m.baseline.heapUsed + m.baseline.external + 48 * MB,
    );
  });
});

describe('hostile input while store reads fail', () => {
  test('every command still gets one reply, in order; nothing is left unhandled', {
    timeout: 180_000,
  }, async () => {
    // Reads of one fuzz key in ten fail, as a failing device's would.
    const r = await runFuzz({
      frames: Math.min(FRAMES, 20_000),
      seed: SEED + 2,
      connections: 32,
      wrapDatabases: (p) =>
        failingReads(
          p,
          (key) => key[key.length - 1] === 0x37 && key.toString('latin1').startsWith('fz:'),
        ),
    });
    console.log(summary(r));
    expect(r.failures).toEqual([]);
    expect(r.uncaught).toEqual([]);
    expect(r.control.mismatches).toBe(0);
  });

  test('and when every kind of key operation fails (reads, writes, deletes, expiries)', {
    timeout: 180_000,
  }, async () => {
    const r = await runFuzz({
      frames: Math.min(FRAMES, 20_000),
      seed: SEED + 3,
      connections: 32,
      wrapDatabases: (p) =>
        failingReads(
          p,
          (key) => key[key.length - 1] === 0x33 && key.toString('latin1').startsWith('fz:'),
          'device failed',
          ['read', 'probe', 'upsert', 'remove', 'readModifyWrite', 'setExpiry'],
        ),
    });
    console.log(summary(r));
    expect(r.failures).toEqual([]);
    expect(r.uncaught).toEqual([]);
    expect(r.control.mismatches).toBe(0);
  });
});

const redis = hasRedisServer();

describe.skipIf(!redis)('the same kind of input to redis-server 7 ends the same way', () => {
  let server: Awaited<ReturnType<typeof startRedis>>;
  let port: number;
  beforeAll(async () => {
    server = await startRedis();
    port = server.port;
    const c = await RequestConnection.open(port);
    // The limits the in-process server runs with.
    await c.call(['CONFIG', 'SET', 'proto-max-bulk-len', String(4 * MB)]);
    await c.call(['CONFIG', 'SET', 'client-output-buffer-limit', `normal ${16 * MB} 0 0`]);
    c.close();
  });
  afterAll(() => server?.stop());

  test('replies, protocol errors in the same words, closes where expected', {
    timeout: 180_000,
  }, async () => {
    const r = await runFuzz({
      frames: Math.min(FRAMES, 20_000),
      seed: SEED + 1,
      connections: 32,
      target: { port, name: 'redis-server' },
    });
    console.log(summary(r));
    expect(r.failures).toEqual([]);
    // Most sessions were compared (a reset one cannot be: see FuzzReport.resets).
    expect(r.resets).toBeLessThan(r.sessions / 4);
    expect(r.stalled.disconnected).toBe(r.stalled.sessions);
    expect(r.control.mismatches).toBe(0);
  });
});
