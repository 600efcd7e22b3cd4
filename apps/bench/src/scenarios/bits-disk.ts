import net from 'node:net';
import path from 'node:path';
import { Store, type StoreCore } from '@strata/hlog';
import { encodeCommand, ReplyReader } from '@strata/protocol';
import { type DatabaseProvider, RespServer } from '@strata/resp';
import { defineScenario, higher, type Measurement } from '../scenario.js';
import { MiB } from '../sizes.js';

/**
 * GETBIT at random offsets of a large bitmap on disk (a blob on files, its
 * record pushed out of memory), each variant with its device bytes read
 * per op (`bytes_per_op`):
 * - `getbit`: GETBIT through a RespServer in this process over a socket,
 *   `pipeline` commands in flight: the ranged read, one 64 KiB chunk and
 *   the blob's chunk table per command;
 * - `store-range`: the store's ranged read of the byte, `pipeline` in
 *   flight, no socket;
 * - `store-whole`: the store's whole-value read, as GETBIT read a large
 *   value before ranged reads (`wholeOps` of them: each reads the bitmap).
 * - `setbit`: SETBIT at a random offset through the RespServer, the
 *   bitmap pushed out of memory again before each (`writeOps` of them; only
 *   the SETBIT is timed). A write is not ranged: the read-modify-write
 *   reads the whole value and appends a whole new blob (the log is written
 *   once, so a chunk cannot be rewritten where it lies; see the bench
 *   README), so it also reports `log_bytes_per_op`, the log's growth.
 * Ratio `store-range/store-whole`: what the ranged read gains.
 */

type Params = {
  bitmapBytes: number;
  ops: number;
  wholeOps: number;
  writeOps: number;
  pipeline: number;
};

interface State {
  server: RespServer;
  port: number;
  store: Store;
  offsets: Float64Array;
  /** Filler keys written so far (the next one's number). */
  fillers: number;
}

const KEY = Buffer.from('bitmap');

/** Deterministic bit offsets (a xorshift sequence, 52 bits a draw) inside the bitmap. */
function bitOffsets(n: number, bits: number): Float64Array {
  const out = new Float64Array(n);
  let x = 0x9e3779b9;
  const draw = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  for (let i = 0; i < n; i++) out[i] = ((draw() >>> 12) * 2 ** 32 + draw()) % bits;
  return out;
}

/**
 * Small keys (numbered from `from`) until everything written so far has
 * left the log's memory (the bitmap on disk); resolves with the next number.
 */
async function pushOut(store: Store, from: number): Promise<number> {
  const mark = store.log.tail;
  const filler = Buffer.alloc(100, 0x61);
  let i = from;
  while (store.log.head <= mark) await store.set(`filler:${i++}`, filler);
  return i;
}

/** One SETBIT over a new connection; resolves with its ms. */
function setbit(port: number, offset: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let started = 0;
    const reader = new ReplyReader((reply) => {
      if (reply[0] !== 0x3a) reject(new Error(`SETBIT answered ${reply.toString('latin1')}`));
    });
    sock.on('error', reject);
    sock.on('connect', () => {
      started = performance.now();
      sock.write(
        encodeCommand([Buffer.from('SETBIT'), KEY, Buffer.from(String(offset)), Buffer.from('1')]),
      );
    });
    sock.on('data', (d: Buffer) => {
      if (reader.feed(d) > 0) {
        const ms = performance.now() - started;
        sock.destroy();
        resolve(ms);
      }
    });
  });
}

function bytesRead(store: Store): number {
  return store.stats().device.bytesRead;
}

/** GETBITs over one connection, `depth` in flight; resolves with ops/s. */
function getbits(port: number, offsets: Float64Array, count: number, depth: number) {
  return new Promise<number>((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let sent = 0;
    let started = 0;
    const send = (): void => {
      const o = offsets[sent % offsets.length]!;
      sent++;
      sock.write(encodeCommand([Buffer.from('GETBIT'), KEY, Buffer.from(String(o))]));
    };
    const reader = new ReplyReader((reply) => {
      if (reply[0] !== 0x3a) reject(new Error(`GETBIT answered ${reply.toString('latin1')}`));
    });
    sock.on('error', reject);
    sock.on('connect', () => {
      started = performance.now();
      while (sent < Math.min(depth, count)) send();
    });
    sock.on('data', (d: Buffer) => {
      const done = reader.feed(d);
      for (let i = 0; i < done && sent < count; i++) send();
      if (reader.count === count) {
        const ms = performance.now() - started;
        sock.destroy();
        resolve(count / (ms / 1000));
      }
    });
  });
}

async function storeReads(
  store: StoreCore,
  offsets: Float64Array,
  count: number,
  lanes: number,
  whole: boolean,
): Promise<number> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const byte = Math.floor(offsets[next++ % offsets.length]! / 8);
      const r = whole ? await store.get(KEY) : await store.getRange(KEY, byte, 1);
      if (r.status !== 'found') throw new Error('the bitmap is missing');
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: lanes }, lane));
  return count / ((performance.now() - start) / 1000);
}

export const bitsDisk = defineScenario<Params, State>({
  name: 'bits-disk',
  description:
    'GETBIT at random offsets of a large bitmap on disk: ranged reads (a chunk per op) against whole-value reads',
  params: {
    full: { bitmapBytes: 64 * MiB, ops: 20_000, wholeOps: 40, writeOps: 8, pipeline: 16 },
    ci: { bitmapBytes: 8 * MiB, ops: 2_000, wholeOps: 10, writeOps: 4, pipeline: 8 },
  },
  readsDisk: true,
  runs: { full: 3, ci: 1 },
  warmup: { full: 1, ci: 0 },
  variants: [
    higher('getbit', 'ops/s'),
    higher('store-range', 'ops/s'),
    higher('store-whole', 'ops/s'),
    higher('setbit', 'ops/s'),
  ],
  ratios: ['store-range/store-whole'],

  async setup(ctx) {
    const p = ctx.params;
    const store = await Store.open({
      dir: path.join(ctx.dir, 'db'),
      memory: 4 * MiB,
      pageSize: 256 * 1024,
      checkpoints: null,
      expiry: false,
    });
    // The bitmap (a blob), a bit set every 4 KiB, then small keys enough to
    // push its record out of the log's memory.
    const bitmap = Buffer.alloc(p.bitmapBytes);
    for (let i = 0; i < bitmap.length; i += 4096) bitmap[i] = 0x80;
    await store.set(KEY, bitmap);
    const fillers = await pushOut(store, 0);
    const provider: DatabaseProvider = {
      count: 1,
      async open() {
        return store;
      },
      async close() {
        await store.close();
      },
    };
    const server = new RespServer({ databases: provider });
    const { port } = await server.listen(0);
    ctx.log(`a bitmap of ${p.bitmapBytes} bytes on disk`);
    return { server, port, store, offsets: bitOffsets(4096, p.bitmapBytes * 8), fillers };
  },

  async run(variant, ctx): Promise<Measurement> {
    const p = ctx.params;
    const s = ctx.state;
    const before = bytesRead(s.store);
    let value: number;
    let ops = p.ops;
    if (variant.name === 'setbit') {
      // Each SETBIT meets the bitmap on disk; only the command is timed.
      let ms = 0;
      let read = 0;
      let logged = 0;
      for (let i = 0; i < p.writeOps; i++) {
        s.fillers = await pushOut(s.store, s.fillers);
        const r0 = bytesRead(s.store);
        const t0 = s.store.log.tail;
        ms += await setbit(s.port, s.offsets[i % s.offsets.length]!);
        read += bytesRead(s.store) - r0;
        logged += s.store.log.tail - t0;
      }
      return {
        value: p.writeOps / (ms / 1000),
        samples: { bytes_per_op: read / p.writeOps, log_bytes_per_op: logged / p.writeOps },
      };
    }
    if (variant.name === 'getbit') value = await getbits(s.port, s.offsets, ops, p.pipeline);
    else if (variant.name === 'store-range') {
      value = await storeReads(s.store, s.offsets, ops, p.pipeline, false);
    } else {
      ops = p.wholeOps;
      value = await storeReads(s.store, s.offsets, ops, 1, true);
    }
    return { value, samples: { bytes_per_op: (bytesRead(s.store) - before) / ops } };
  },

  async teardown(ctx) {
    const s = ctx.state;
    if (s === undefined) return;
    await s.server.close();
    // The server closes a database only once a client opened it.
    if (!s.store.closed) await s.store.close();
  },
});
